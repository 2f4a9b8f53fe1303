"""Building a gold set or calibration set on a page: picked responses, with the verdicts closed blind tests settled.

A verdict is settled when a closed blind test on the same version holds it in its golden standard
as unanimous or adjudicated (a mere majority is not settled). Every criterion of a picked
response needs one, and every picked response must be free: held by no gold set, hidden gold
check or calibration set (the same response, or the same text to the same question). The set is
then written by the same services as an imported file (`create_gold_set`, `create_calibration`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import Campaign
from annotation.services.campaigns import CampaignOutcome, GoldRow, create_calibration, create_gold_set, labelled_holders
from heartbench_core.blindness import CLOSED_RESPONSE, blind_scope, record_exposures
from heartbench_core.models import Criterion, DatasetVersion, ModelResponse, User
from heartbench_core.roles import Role, has_role
from validation.models import GoldDraft, GoldDraftVerdict, GoldenLabel

SETTLED = (GoldenLabel.Provenance.UNANIMOUS, GoldenLabel.Provenance.ADJUDICATED)


@dataclass(frozen=True)
class SettledVerdict:
    """A criterion's verdict on a response as closed blind tests settled it."""

    hit: bool
    explanation: str  # the adjudication's reasoning; empty for a unanimous verdict
    provenance: str


def settled_verdicts(*, version: DatasetVersion, response_ids: list[int]) -> dict[int, dict[int, SettledVerdict]]:
    """{response: {criterion: verdict}} from the golden standard of the closed blind tests on `version` (one query).

    A criterion on which two closed blind tests settled opposite verdicts has none.
    """
    found: dict[tuple[int, int], set[bool]] = defaultdict(set)
    best: dict[tuple[int, int], SettledVerdict] = {}
    for response, criterion, hit, provenance, note in (
        GoldenLabel.objects.filter(
            campaign__kind=Campaign.Kind.BLIND_TEST,
            campaign__status=Campaign.Status.CLOSED,
            campaign__version=version,
            campaign_response__response_id__in=response_ids,
            provenance__in=SETTLED,
        )
        .order_by("updated_at", "pk")
        .values_list("campaign_response__response_id", "criterion_id", "hit", "provenance", "adjudication__note")
    ):
        key = (response, criterion)
        found[key].add(hit)
        if provenance == GoldenLabel.Provenance.ADJUDICATED or key not in best or not best[key].explanation:
            best[key] = SettledVerdict(hit=hit, explanation=note or "", provenance=provenance)
    out: dict[int, dict[int, SettledVerdict]] = defaultdict(dict)
    for (response, criterion), verdict in best.items():
        if len(found[(response, criterion)]) == 1:
            out[response][criterion] = verdict
    return dict(out)


SETTINGS = ("pass_threshold", "max_attempts", "retake_cooldown", "sitting_size")


@dataclass(frozen=True)
class BuiltSet:
    """What the builder asks for beyond the picks: the kind of set, and a calibration set's settings."""

    kind: str  # Campaign.Kind.GOLD_SET or Campaign.Kind.CALIBRATION
    name: str
    pass_threshold: float = 0.8
    max_attempts: int = 2
    retake_cooldown: timedelta = timedelta(days=1)
    sitting_size: int | None = None

    def settings(self) -> dict[str, Any]:
        """A calibration set's settings, as its service and a draft take them."""
        return {name: getattr(self, name) for name in SETTINGS}

    @classmethod
    def from_input(cls, d: Mapping[str, Any]) -> BuiltSet:
        """The spec from a form's or a serializer's cleaned data (retake cool-down given in days)."""
        return cls(
            kind=d["kind"],
            name=d["name"],
            pass_threshold=d["pass_threshold"],
            max_attempts=d["max_attempts"],
            retake_cooldown=timedelta(days=d["cooldown_days"]),
            sitting_size=d["sitting_size"],
        )


def criteria_by_item(item_ids: Iterable[int], *columns: str) -> dict[int, list[tuple[Any, ...]]]:
    """Per item, these columns of its criteria in rubric (position) order (one query)."""
    out: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for item_id, *values in Criterion.objects.filter(item_id__in=list(item_ids)).order_by("position").values_list("item_id", *columns):
        out[item_id].append(tuple(values))
    return out


@dataclass(frozen=True)
class _Pick:
    response: int
    label: str  # question_id/model, to name it in an error
    item: int
    criteria: list[tuple[int, int]]  # (position, criterion) in rubric order


def _free_picks(*, version: DatasetVersion, response_ids: list[int], spec: BuiltSet, user: User) -> list[_Pick]:
    """The picked responses with their items and criteria; refused unless every pick is free and on the version."""
    if spec.kind not in (Campaign.Kind.GOLD_SET, Campaign.Kind.CALIBRATION):
        raise ValidationError({"kind": _("must be a gold set or a calibration set")})
    if blind_scope(user).hides_dataset(version.dataset_id):
        raise PermissionDenied(CLOSED_RESPONSE)
    ids = sorted(set(response_ids))
    if not ids:
        raise ValidationError({"responses": _("choose at least one response")})
    picked = {
        pk: (qid, model)
        for pk, qid, model in ModelResponse.objects.filter(dataset_id=version.dataset_id, pk__in=ids).values_list(
            "pk", "question_id", "model__name"
        )
    }
    unknown = [pk for pk in ids if pk not in picked]
    if unknown:
        raise ValidationError({"responses": _("no response %(ids)s on %(version)s") % {"ids": unknown, "version": version}})
    items = dict(version.items.filter(question_id__in={q for q, _m in picked.values()}).values_list("question_id", "pk"))
    criteria = criteria_by_item(items.values(), "position", "pk")
    held = labelled_holders(ids, dataset_id=version.dataset_id)
    problems: list[str] = []
    out: list[_Pick] = []
    for pk in ids:
        qid, model = picked[pk]
        where = f"{qid}/{model}"
        if qid not in items:
            problems.append(_("%(response)s: the question is not in %(version)s") % {"response": where, "version": version})
        elif pk in held:
            names = ", ".join(name for _kind, name in held[pk])
            problems.append(_("%(response)s is not free: %(sets)s holds it") % {"response": where, "sets": names})
        else:
            out.append(_Pick(response=pk, label=where, item=items[qid], criteria=criteria[items[qid]]))
    if problems:
        raise ValidationError({"responses": problems})
    return out


def _rows(picks: list[_Pick], verdicts: dict[int, dict[int, tuple[bool, str]]], missing_message: str) -> list[GoldRow]:
    """Gold rows of the picks, each criterion with its verdict; refused, naming every criterion without one."""
    problems: list[str] = []
    rows: list[GoldRow] = []
    for pick in picks:
        mine = verdicts.get(pick.response, {})
        missing = [position for position, criterion in pick.criteria if criterion not in mine]
        if missing:
            problems.append(missing_message % {"response": pick.label, "positions": ", ".join(f"#{p + 1}" for p in missing)})
        else:
            rows.append((pick.response, pick.item, [(c, *mine[c]) for _p, c in pick.criteria]))
    if problems:
        raise ValidationError({"responses": problems})
    return rows


def _create(*, version: DatasetVersion, rows: list[GoldRow], spec: BuiltSet, created_by: User) -> CampaignOutcome:
    """Write the set through the services a file goes through."""
    dataset, label = version.dataset.name, version.label
    if spec.kind == Campaign.Kind.GOLD_SET:
        return create_gold_set(name=spec.name, dataset_name=dataset, version_label=label, labels=rows, created_by=created_by)
    outcome = create_calibration(
        name=spec.name,
        dataset_name=dataset,
        version_label=label,
        labels=rows,
        created_by=created_by,
        **spec.settings(),
    )
    # The builder showed the admin these responses' verdicts: none of them may reach the admin blind.
    record_exposures(user=created_by, response_ids=[r[0] for r in rows], via="calibration_builder")
    return outcome


def create_set_from_settled_verdicts(
    *, version: DatasetVersion, response_ids: list[int], spec: BuiltSet, created_by: User
) -> CampaignOutcome:
    """Create a gold set or calibration set of free picked responses, each criterion labelled with its settled verdict.

    Refused, naming the question and model, while a pick is not free or a criterion of it has no
    settled verdict; refused whole for an admin blind to the version's dataset.
    """
    picks = _free_picks(version=version, response_ids=response_ids, spec=spec, user=created_by)
    settled = settled_verdicts(version=version, response_ids=[p.response for p in picks])
    verdicts = {r: {c: (v.hit, v.explanation) for c, v in by.items()} for r, by in settled.items()}
    rows = _rows(picks, verdicts, _("%(response)s has no settled verdict on criteria %(positions)s"))
    return _create(version=version, rows=rows, spec=spec, created_by=created_by)


# --- drafts whose verdicts senior reviewers write --------------------------------------------------


def start_gold_draft(*, version: DatasetVersion, response_ids: list[int], spec: BuiltSet, created_by: User) -> GoldDraft:
    """A draft of free picked responses, for senior reviewers to write every criterion's verdict and explanation."""
    picks = _free_picks(version=version, response_ids=response_ids, spec=spec, user=created_by)
    name = (spec.name or "").strip()
    if not name:
        raise ValidationError({"name": _("a gold set needs a name")})
    if Campaign.objects.filter(name=name).exists() or GoldDraft.objects.filter(name=name, campaign__isnull=True).exists():
        raise ValidationError({"name": _("a campaign named %(name)r already exists") % {"name": name}})
    with transaction.atomic():
        draft = GoldDraft.objects.create(
            name=name,
            kind=spec.kind,
            version=version,
            created_by=created_by,
            **spec.settings(),
        )
        draft.responses.set([p.response for p in picks])
    return draft


def _refuse_draft_viewer(draft: GoldDraft, user: User) -> None:
    if not has_role(user, Role.SENIOR_REVIEWER, Role.ADMIN):
        raise PermissionDenied(_("Only a senior reviewer or an admin writes the verdicts of a gold set."))
    if blind_scope(user).hides_dataset(draft.version.dataset_id):
        raise PermissionDenied(CLOSED_RESPONSE)


def write_draft_verdicts(*, draft: GoldDraft, response_id: int, verdicts: list[tuple[int, bool, str]], by: User) -> int:
    """Save a senior reviewer's verdicts (criterion, hit, explanation) on one response of an open draft; returns how many."""
    _refuse_draft_viewer(draft, by)
    if draft.campaign_id is not None:
        raise ValidationError({"draft": _("this draft is finalised: its verdicts no longer change")})
    if not draft.responses.filter(pk=response_id).exists():
        raise ValidationError({"response": _("response %(id)d is not in this draft") % {"id": response_id}})
    question = ModelResponse.objects.values_list("question_id", flat=True).get(pk=response_id)
    criteria = set(Criterion.objects.filter(item__version=draft.version, item__question_id=question).values_list("pk", flat=True))
    errors: dict[str, str] = {}
    for criterion, _hit, explanation in verdicts:
        if criterion not in criteria:
            errors[f"criterion_{criterion}"] = _("not a criterion of %(question)s") % {"question": question}
        elif not (explanation or "").strip():
            errors[f"explanation_{criterion}"] = _("write the explanation experts read when they miss this criterion")
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        for criterion, hit, explanation in verdicts:
            GoldDraftVerdict.objects.update_or_create(
                draft=draft,
                response_id=response_id,
                criterion_id=criterion,
                defaults={"hit": hit, "explanation": explanation.strip(), "written_by": by},
            )
        # Whoever writes a gold verdict knows it: the response may never reach them blind.
        record_exposures(user=by, response_ids=[response_id], via="gold_draft")
    return len(verdicts)


def finalise_gold_draft(*, draft: GoldDraft, by: User) -> CampaignOutcome:
    """Create the draft's gold set or calibration set once every criterion of every response has a written verdict."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only an admin finalises a gold set."))
    if draft.campaign_id is not None:
        raise ValidationError({"draft": _("this draft is finalised already")})
    spec = BuiltSet(kind=draft.kind, name=draft.name, **{name: getattr(draft, name) for name in SETTINGS})
    picks = _free_picks(version=draft.version, response_ids=list(draft.responses.values_list("pk", flat=True)), spec=spec, user=by)
    written: dict[int, dict[int, tuple[bool, str]]] = defaultdict(dict)
    for response, criterion, hit, explanation in draft.verdicts.values_list("response_id", "criterion_id", "hit", "explanation"):
        written[response][criterion] = (hit, explanation)
    rows = _rows(picks, written, _("%(response)s has no written verdict on criteria %(positions)s"))
    with transaction.atomic():
        outcome = _create(version=draft.version, rows=rows, spec=spec, created_by=by)
        draft.campaign = outcome.campaign
        draft.save(update_fields=["campaign"])
    return outcome
