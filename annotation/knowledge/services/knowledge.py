"""Writes of the knowledge library: FAQ entries (written, reviewed by someone else, published), cases, and what experts open.

Who writes what (docs/knowledge.md):

- FAQ entries: rubric authors and senior reviewers write them; another of them (never the
  author) reviews each one, and only then is it published. A published entry is never edited:
  `revise_faq_entry` starts a new draft that replaces it once published.
- Cases: senior reviewers (and admins) write and publish them, from an adjudication decision or
  a discussion (`validation.services.cases`), from a calibration item (`case_from_calibration`)
  or from scratch. Every write checks that the case carries no rater's name, and that an
  "invented" excerpt shares no run of text with the real response.
- Every text of both (`check_library_texts`) names no language model of the platform and quotes
  no response of an open campaign (`annotation.knowledge.services.quotes`), however it is written: pages,
  API, demo or import (`knowledge_io` calls the same checks).

Each write normalises `search_title`/`search_text` (heartbench_core.lib.search), which the
search indexes read.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.knowledge.models import Case, FaqEntry, LibraryOpen
from annotation.knowledge.services.quotes import open_campaign_quotes
from annotation.models import Assignment, Campaign, CampaignResponse, GoldLabel
from heartbench_core.lib.quotes import RUN as QUOTE_RUN
from heartbench_core.lib.quotes import quote_form, shared_run
from heartbench_core.lib.search import normalise, pair_document, plain_text
from heartbench_core.lib.taxonomy import english_name, is_known_label
from heartbench_core.models import Criterion, CriterionLineage, Dataset, LanguageModel, ModelResponse, User
from heartbench_core.roles import Role, has_role

Entry = TypeVar("Entry", FaqEntry, Case)
FAQ_WRITERS = (Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
CASE_WRITERS = (Role.SENIOR_REVIEWER, Role.ADMIN)
QUESTION_MAX_CHARS = FaqEntry._meta.get_field("question").max_length or 300
TITLE_MAX_CHARS = Case._meta.get_field("title").max_length or 200
ANSWER_MAX_CHARS = 20_000
EXCERPT_MAX_CHARS = 600
MAX_TAGS = 12
TAG_MAX_CHARS = 40
MAX_CRITERIA = 50
# An invented excerpt may not share a run this long (normalised characters) with the real response.
INVENTED_MAX_SHARED_RUN = 12


def can_write_faq(user: User) -> bool:
    return has_role(user, *FAQ_WRITERS)


def can_write_cases(user: User) -> bool:
    return has_role(user, *CASE_WRITERS)


# --- shared checks --------------------------------------------------------------------------------


def _distinct(raw: Iterable[str] | str | None) -> list[str]:
    """Comma-separated text (either comma) or a list: stripped, without blanks or repeats, in order."""
    items = raw.replace("，", ",").split(",") if isinstance(raw, str) else list(raw or [])
    return list(dict.fromkeys(text for text in (str(item).strip() for item in items) if text))


def _tags(raw: Iterable[str] | str | None, errors: dict[str, list[str]]) -> list[str]:
    """Tags (`_distinct`), each short."""
    tags = _distinct(raw)
    if len(tags) > MAX_TAGS:
        errors.setdefault("tags", []).append(_("At most %(n)d tags.") % {"n": MAX_TAGS})
    if any(len(t) > TAG_MAX_CHARS for t in tags):
        errors.setdefault("tags", []).append(_("A tag has at most %(n)d characters.") % {"n": TAG_MAX_CHARS})
    return tags


def _text(value: str | None, field: str, limit: int, errors: dict[str, list[str]], *, required: bool = True) -> str:
    text = (value or "").replace("\r\n", "\n").strip()
    if required and not text:
        errors.setdefault(field, []).append(_("This field is required."))
    elif len(text) > limit:
        errors.setdefault(field, []).append(_("At most %(n)d characters.") % {"n": limit})
    return text


def _lineages(dataset: Dataset, keys: Iterable[str | uuid.UUID], errors: dict[str, list[str]]) -> list[CriterionLineage]:
    """The dataset's criterion lineages with these keys (unknown or foreign keys are named in the error)."""
    wanted: list[uuid.UUID] = []
    for key in keys:
        try:
            parsed = key if isinstance(key, uuid.UUID) else uuid.UUID(str(key).strip())
        except ValueError:
            errors.setdefault("criteria", []).append(_("%(key)r is not a criterion key.") % {"key": str(key)})
            continue
        if parsed not in wanted:
            wanted.append(parsed)
    if len(wanted) > MAX_CRITERIA:
        errors.setdefault("criteria", []).append(_("At most %(n)d criteria.") % {"n": MAX_CRITERIA})
        return []
    found = {lineage.key: lineage for lineage in CriterionLineage.objects.filter(key__in=wanted, dataset_id=dataset.pk)}
    for key in wanted:
        if key not in found:
            errors.setdefault("criteria", []).append(
                _("No criterion %(key)s in dataset %(dataset)s.") % {"key": key, "dataset": dataset.name}
            )
    return [found[k] for k in wanted if k in found]


def _abilities(dataset: Dataset, raw: Iterable[str] | str | None, errors: dict[str, list[str]]) -> list[str]:
    labels = _distinct(raw)
    for label in labels:
        if not is_known_label(label, dataset.extra_labels or ()):
            errors.setdefault("abilities", []).append(_("Unknown ability label %(label)r.") % {"label": label})
    return labels


def model_names() -> list[str]:
    """The names of the platform's language models that a library text may not contain (three characters or more)."""
    return [name for name in LanguageModel.objects.values_list("name", flat=True) if len(name) >= 3]


def _named_model(text: str, names: Sequence[str]) -> str | None:
    """The first of these model names the text contains (compatibility form, any case), if any."""
    folded = normalise(text)
    return next((name for name in names if normalise(name) in folded), None)


def check_library_texts(
    texts: Mapping[str, str],
    errors: dict[str, list[str]],
    *,
    exempt_response_id: int | None = None,
    names: Sequence[str] | None = None,
) -> None:
    """The rules every text of a FAQ entry or a case obeys, however written: each field that breaks one gets an error.

    A text names no language model of the platform, and quotes no response of an open campaign
    (a run of QUOTE_RUN characters, whitespace aside; `annotation.knowledge.services.quotes`) but
    `exempt_response_id`. The error never says which campaign or response.
    """
    names = model_names() if names is None else names
    for field, text in texts.items():
        model = _named_model(text, names)
        if model:
            errors.setdefault(field, []).append(
                _("This names the model %(model)s; nothing in the library carries a model's identity.") % {"model": model}
            )
    for field, run in open_campaign_quotes(texts, exempt_response_id=exempt_response_id).items():
        errors.setdefault(field, []).append(
            _(
                "This quotes a response of a campaign that is still open (“%(run)s”, %(n)d characters or more alike, whitespace aside): "
                "an expert rating it would recognise it. Say it in your own words."
            )
            % {"run": run, "n": QUOTE_RUN}
        )


def _names_a_rater(texts: Sequence[str], response_id: int | None) -> bool:
    """Whether the texts contain the username of an expert who was given the response (as a whole word)."""
    if response_id is None:
        return False
    folded = normalise("\n".join(texts))
    names = Assignment.objects.filter(campaign_response__response_id=response_id).values_list("expert__username", flat=True)
    return any(len(n) >= 3 and re.search(rf"(?<!\w){re.escape(normalise(n))}(?!\w)", folded) for n in set(names))


def _shares_a_run(excerpt: str, original: str, run: int = INVENTED_MAX_SHARED_RUN) -> bool:
    """Whether the excerpt and original have `run` consecutive characters in common (quote form), or the short excerpt is in it."""
    a = quote_form(excerpt)
    if len(a) < run:
        return bool(a) and a in quote_form(original)
    return shared_run(a, original, run=run) is not None


# --- FAQ entries ------------------------------------------------------------------------------------


@dataclass
class FaqContent:
    """What an author writes of an entry."""

    question: str
    answer: str
    tags: Iterable[str] | str = ()
    abilities: Iterable[str] | str = ()
    criteria: Iterable[str | uuid.UUID] = ()  # lineage keys


def _faq_texts(question: str, answer: str, tags: Sequence[str]) -> dict[str, str]:
    return {"question": question, "answer": answer, "tags": "\n".join(tags)}


def _faq_checked(
    dataset: Dataset, content: FaqContent, *, names: Sequence[str] | None = None
) -> tuple[dict[str, Any], list[CriterionLineage]]:
    """The entry's fields, checked by every rule an entry obeys (however it is written: page, API, import)."""
    errors: dict[str, list[str]] = {}
    fields: dict[str, Any] = {
        "question": _text(content.question, "question", QUESTION_MAX_CHARS, errors),
        "answer": _text(content.answer, "answer", ANSWER_MAX_CHARS, errors),
        "tags": _tags(content.tags, errors),
        "abilities": _abilities(dataset, content.abilities, errors),
    }
    lineages = _lineages(dataset, content.criteria, errors)
    check_library_texts(_faq_texts(fields["question"], fields["answer"], fields["tags"]), errors, names=names)
    if errors:
        raise ValidationError(errors)
    return fields, lineages


def check_faq_content(dataset: Dataset, content: FaqContent, *, names: Sequence[str] | None = None) -> None:
    """Raise the ValidationError a write of this content would raise, writing no entry (a form reports every error at once)."""
    with transaction.atomic():
        _faq_checked(dataset, content, names=names)


def _faq_search(entry: FaqEntry) -> None:
    abilities = [f"{label} {english_name(label)}" for label in entry.abilities]
    entry.ability_labels = f" {' '.join(entry.abilities)} " if entry.abilities else ""
    entry.search_title = normalise(entry.question)
    entry.search_text = normalise("\n".join([entry.question, " ".join(entry.tags), " ".join(abilities), plain_text(entry.answer)]))
    entry.search_pairs = pair_document(entry.search_text)


def create_faq_entry(*, author: User, dataset: Dataset, content: FaqContent, replaces: FaqEntry | None = None) -> FaqEntry:
    """A draft entry (rubric authors and senior reviewers)."""
    if not can_write_faq(author):
        raise PermissionDenied(_("Only rubric authors and senior reviewers write FAQ entries."))
    with transaction.atomic():
        fields, lineages = _faq_checked(dataset, content)
        entry = FaqEntry(dataset=dataset, author=author, replaces=replaces, **fields)
        _faq_search(entry)
        entry.save()
        entry.lineages.set(lineages)
    return entry


def edit_faq_entry(*, entry: FaqEntry, editor: User, content: FaqContent) -> FaqEntry:
    """Change a draft (its author only; an entry in review or published is not edited)."""
    with transaction.atomic():
        locked = FaqEntry.objects.select_for_update().get(pk=entry.pk)
        if locked.author_id != editor.pk or not can_write_faq(editor):
            raise PermissionDenied(_("Only its author edits a FAQ entry."))
        if locked.status != FaqEntry.Status.DRAFT:
            raise ValidationError(_("Only a draft is edited; revise a published entry instead."))
        fields, lineages = _faq_checked(locked.dataset, content)
        for name, value in fields.items():
            setattr(locked, name, value)
        _faq_search(locked)
        locked.save()
        locked.lineages.set(lineages)
    return locked


def submit_faq_entry(*, entry: FaqEntry, author: User) -> FaqEntry:
    """Send a draft to review (its author)."""
    with transaction.atomic():
        locked = FaqEntry.objects.select_for_update().get(pk=entry.pk)
        if locked.author_id != author.pk:
            raise PermissionDenied(_("Only its author submits a FAQ entry for review."))
        if locked.status != FaqEntry.Status.DRAFT:
            raise ValidationError(_("Only a draft is submitted for review."))
        locked.status = FaqEntry.Status.IN_REVIEW
        locked.submitted_at = timezone.now()
        locked.save(update_fields=["status", "submitted_at", "updated_at"])
    return locked


def review_faq_entry(*, entry: FaqEntry, reviewer: User, approve: bool, note: str = "") -> FaqEntry:
    """Publish an entry in review, or send it back to its author with a note; by a rubric author or senior reviewer, never its author.

    Publishing a revision retires the entry it replaces, in the same transaction.
    """
    if not can_write_faq(reviewer):
        raise PermissionDenied(_("Only rubric authors and senior reviewers review FAQ entries."))
    note = (note or "").strip()
    with transaction.atomic():
        locked = FaqEntry.objects.select_for_update().get(pk=entry.pk)
        if locked.author_id == reviewer.pk:
            raise PermissionDenied(_("Someone other than its author reviews a FAQ entry."))
        if locked.status != FaqEntry.Status.IN_REVIEW:
            raise ValidationError(_("This entry is not waiting for review."))
        if approve:  # a campaign opened since it was written may hold a response it quotes, a model added since one it names
            errors: dict[str, list[str]] = {}
            check_library_texts(_faq_texts(locked.question, locked.answer, locked.tags), errors)
            if errors:
                raise ValidationError(errors)
        now = timezone.now()
        if not approve:
            if not note:
                raise ValidationError({"note": [_("Say what the author should change.")]})
            locked.status, locked.review_note, locked.submitted_at = FaqEntry.Status.DRAFT, note, None
            locked.save(update_fields=["status", "review_note", "submitted_at", "updated_at"])
            return locked
        locked.status, locked.reviewer, locked.published_at, locked.review_note = FaqEntry.Status.PUBLISHED, reviewer, now, note
        locked.save(update_fields=["status", "reviewer", "published_at", "review_note", "updated_at"])
        if locked.replaces_id is not None:
            FaqEntry.objects.filter(pk=locked.replaces_id, status=FaqEntry.Status.PUBLISHED).update(
                status=FaqEntry.Status.RETIRED, retired_at=now, updated_at=now
            )
    return locked


def retire_faq_entry(*, entry: FaqEntry, by: User) -> FaqEntry:
    """Take a published entry (or a draft) out of use; it stays readable to staff."""
    if not can_write_faq(by):
        raise PermissionDenied(_("Only rubric authors and senior reviewers retire FAQ entries."))
    return _retired(FaqEntry, entry.pk, _("This entry is already retired."))


def _retired(model: type[Entry], pk: int, already: str) -> Entry:
    """The FAQ entry or case, retired now (ValidationError `already` when it was)."""
    with transaction.atomic():
        locked = model.objects.select_for_update().get(pk=pk)
        if locked.status == model.Status.RETIRED:
            raise ValidationError(already)
        locked.status, locked.retired_at = model.Status.RETIRED, timezone.now()
        locked.save(update_fields=["status", "retired_at", "updated_at"])
    return locked


def revise_faq_entry(*, entry: FaqEntry, author: User) -> FaqEntry:
    """A new draft with the published entry's content, which replaces it once reviewed and published."""
    if entry.status != FaqEntry.Status.PUBLISHED:
        raise ValidationError(_("Only a published entry is revised; edit a draft directly."))
    if FaqEntry.objects.filter(replaces=entry).exclude(status=FaqEntry.Status.RETIRED).exists():
        raise ValidationError(_("A revision of this entry is already under way."))
    content = FaqContent(
        question=entry.question,
        answer=entry.answer,
        tags=entry.tags,
        abilities=entry.abilities,
        criteria=[str(k) for k in entry.lineages.values_list("key", flat=True)],
    )
    return create_faq_entry(author=author, dataset=entry.dataset, content=content, replaces=entry)


# --- cases ------------------------------------------------------------------------------------------


@dataclass
class CaseContent:
    """What a senior reviewer writes of a case."""

    title: str
    excerpt: str
    hit: bool | None
    reasoning: str
    cause: str = Case.Cause.OTHER
    tags: Iterable[str] | str = ()
    invented: bool = False


@dataclass(frozen=True)
class CaseSource:
    """Where a case came from (never shown to experts): what the visibility rules need to protect running work."""

    kind: str = Case.Source.WRITTEN
    campaign: Campaign | None = None
    response: ModelResponse | None = None
    adjudication_id: int | None = None


def _case_checked(content: CaseContent, source: CaseSource, *, names: Sequence[str] | None = None) -> dict[str, Any]:
    """The case's fields, checked by every rule a case obeys (however it is written: page, API, adjudication, import)."""
    errors: dict[str, list[str]] = {}
    title = _text(content.title, "title", TITLE_MAX_CHARS, errors)
    excerpt = _text(content.excerpt, "excerpt", EXCERPT_MAX_CHARS, errors)
    reasoning = _text(content.reasoning, "reasoning", ANSWER_MAX_CHARS, errors)
    tags = _tags(content.tags, errors)
    if content.hit is None:
        errors.setdefault("hit", []).append(_("Choose hit or miss."))
    if content.cause not in Case.Cause.values:
        errors.setdefault("cause", []).append(_("Choose one of %(causes)s.") % {"causes": ", ".join(Case.Cause.values)})
    if source.kind not in Case.Source.values:
        errors.setdefault("source", []).append(_("Choose one of %(sources)s.") % {"sources": ", ".join(Case.Source.values)})
    if source.kind != Case.Source.WRITTEN and (source.campaign is None or source.response is None):
        errors.setdefault("source", []).append(_("A case from a campaign names the campaign and the response it came from."))
    elif (
        source.campaign is not None
        and source.response is not None
        and not CampaignResponse.objects.filter(campaign=source.campaign, response=source.response).exists()
    ):
        errors.setdefault("source_response", []).append(_("This response was not sampled into the case's campaign."))
    texts = {"title": title, "excerpt": excerpt, "reasoning": reasoning, "tags": "\n".join(tags)}
    # A case on a real response may quote it: the visibility rules keep it from whoever rates that response.
    # An invented one may not (it reaches experts while its campaign runs), nor any case another response.
    own = source.response.pk if source.response is not None and not content.invented else None
    check_library_texts(texts, errors, exempt_response_id=own, names=names)
    if _names_a_rater(list(texts.values()), source.response.pk if source.response else None):
        errors.setdefault("reasoning", []).append(_("The case names a rater of the response; write it without anyone's name."))
    if content.invented:
        if source.response is None:
            errors.setdefault("invented", []).append(_("Only a case made from a real response can be rewritten on an invented one."))
        elif _shares_a_run(excerpt, source.response.text):
            errors.setdefault("excerpt", []).append(
                _("An invented excerpt shares no run of %(n)d characters with the real response; this one does.")
                % {"n": INVENTED_MAX_SHARED_RUN}
            )
    if errors:
        raise ValidationError(errors)
    return {
        "title": title,
        "excerpt": excerpt,
        "reasoning": reasoning,
        "tags": tags,
        "hit": bool(content.hit),
        "cause": content.cause,
        "invented": bool(content.invented),
    }


def _case_search(case: Case) -> None:
    case.search_title = normalise(case.title)
    case.search_text = normalise(
        "\n".join([case.title, " ".join(case.tags), case.criterion_text, case.excerpt, plain_text(case.reasoning)])
    )
    case.search_pairs = pair_document(case.search_text)


def create_case(
    *,
    author: User,
    criterion: Criterion,
    content: CaseContent,
    source: CaseSource = CaseSource(),
    publish: bool = False,
) -> Case:
    """A case on the criterion (the snapshot's lineage, revision and wording are kept); a draft unless `publish`."""
    if not can_write_cases(author):
        raise PermissionDenied(_("Only senior reviewers and admins write cases."))
    lineage = criterion.lineage
    with transaction.atomic():
        fields = _case_checked(content, source)
        case = Case(
            dataset_id=lineage.dataset_id,
            lineage=lineage,
            criterion_revision=criterion.revision,
            criterion_text=criterion.text,
            source=source.kind,
            source_campaign=source.campaign,
            source_response=source.response,
            source_adjudication_id=source.adjudication_id,
            author=author,
            **fields,
        )
        if publish:
            case.status, case.published_by, case.published_at = Case.Status.PUBLISHED, author, timezone.now()
        _case_search(case)
        case.save()
    return case


def _source_of(case: Case) -> CaseSource:
    return CaseSource(case.source, case.source_campaign, case.source_response, case.source_adjudication_id)


def edit_case(*, case: Case, editor: User, content: CaseContent) -> Case:
    """Change a draft case (senior reviewers and admins); a published case is retired and written anew instead."""
    if not can_write_cases(editor):
        raise PermissionDenied(_("Only senior reviewers and admins write cases."))
    with transaction.atomic():
        locked = Case.objects.select_for_update(of=("self",)).select_related("source_campaign", "source_response").get(pk=case.pk)
        if locked.status != Case.Status.DRAFT:
            raise ValidationError(_("Only a draft case is edited."))
        for name, value in _case_checked(content, _source_of(locked)).items():
            setattr(locked, name, value)
        _case_search(locked)
        locked.save()
    return locked


def publish_case(*, case: Case, by: User) -> Case:
    """Publish a draft case (its checks run again: a model registered since, a rater's name)."""
    if not can_write_cases(by):
        raise PermissionDenied(_("Only senior reviewers and admins publish cases."))
    with transaction.atomic():
        locked = Case.objects.select_for_update(of=("self",)).select_related("source_campaign", "source_response").get(pk=case.pk)
        if locked.status != Case.Status.DRAFT:
            raise ValidationError(_("Only a draft case is published."))
        content = CaseContent(locked.title, locked.excerpt, locked.hit, locked.reasoning, locked.cause, locked.tags, locked.invented)
        _case_checked(content, _source_of(locked))
        locked.status, locked.published_by, locked.published_at = Case.Status.PUBLISHED, by, timezone.now()
        locked.save(update_fields=["status", "published_by", "published_at", "updated_at"])
    return locked


def retire_case(*, case: Case, by: User) -> Case:
    """Take a case out of use; it stays readable to staff."""
    if not can_write_cases(by):
        raise PermissionDenied(_("Only senior reviewers and admins retire cases."))
    return _retired(Case, case.pk, _("This case is already retired."))


def calibration_source(*, campaign_response: CampaignResponse, criterion: Criterion) -> tuple[CaseSource, GoldLabel]:
    """The source of a case made from a calibration item, and the item's reference verdict on the criterion."""
    if campaign_response.campaign.kind != Campaign.Kind.CALIBRATION:
        raise ValidationError({"source": [_("This response is not a calibration item.")]})
    if criterion.item_id != campaign_response.item_id:
        raise ValidationError({"criterion": [_("This criterion does not belong to the item.")]})
    gold = GoldLabel.objects.filter(campaign_response=campaign_response, criterion=criterion).first()
    if gold is None:
        raise ValidationError({"criterion": [_("The calibration item has no reference verdict on this criterion.")]})
    source = CaseSource(Case.Source.CALIBRATION, campaign_response.campaign, campaign_response.response)
    return source, gold


def case_from_calibration(
    *, author: User, campaign_response: CampaignResponse, criterion: Criterion, content: CaseContent, publish: bool = False
) -> Case:
    """A case from a calibration item: its reference verdict is the decision (a different one is refused)."""
    source, gold = calibration_source(campaign_response=campaign_response, criterion=criterion)
    if content.hit is not None and content.hit != gold.hit:
        raise ValidationError({"hit": [_("The calibration item's reference verdict is the decision of its case.")]})
    content.hit = gold.hit
    return create_case(author=author, criterion=criterion, content=content, source=source, publish=publish)


# --- what experts open ----------------------------------------------------------------------------


def record_open(
    *,
    user: User,
    faq: FaqEntry | None = None,
    case: Case | None = None,
    campaign: Campaign | None = None,
    lineage_id: uuid.UUID | None = None,
) -> LibraryOpen:
    """An expert opened an entry (from a judging page of `campaign`, on the criterion `lineage_id`, or from the library)."""
    return LibraryOpen.objects.create(user=user, faq=faq, case=case, campaign=campaign, lineage_id=lineage_id)


def mark_helped(
    *, user: User, faq: FaqEntry | None = None, case: Case | None = None, campaign: Campaign | None = None, helped: bool = True
) -> LibraryOpen:
    """The expert says an entry helped (or not): set on their latest open of it, or recorded as an open."""
    with transaction.atomic():
        latest = (
            LibraryOpen.objects.select_for_update()
            .filter(user_id=user.pk, faq=faq, case=case, campaign=campaign)
            .order_by("-opened_at", "-id")
            .first()
        )
        if latest is None:
            latest = LibraryOpen(user=user, faq=faq, case=case, campaign=campaign)
        latest.helped = helped
        latest.save()
    return latest
