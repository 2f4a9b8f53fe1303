"""The whole knowledge library as JSON Lines: export, and an atomic import that names the file, line and field of any problem.

One record a line, `type` first: `guidelines` (a dataset's revision), `faq` (an entry) and `case`.
Entries and cases carry their `uid`, so importing a file twice creates nothing the second time.
A criterion is written as its lineage key with its question id, number and wording in the
dataset's latest version, so a file moves to an installation where the same dataset has other
keys (the key is tried first, then the question id and wording, then the question id and number).
A case made from a campaign names it and its response's opaque id: an installation without that
campaign (import it first with `import_campaign`) refuses the case, since its visibility depends
on that campaign. What experts opened is not part of the library and is not exported.

An imported entry or case obeys every rule a written one does, checked by the same functions as
the pages and the API (`annotation.services.knowledge`): its author may write it here, its texts
name no model and quote no response of an open campaign, a case names none of its raters. A
review is not imported: a file's published entry arrives waiting for review here (its reviewer,
review note and times dropped), so only someone here publishes it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.knowledge.selectors import visible_cases
from annotation.models import Campaign, Case, DatasetGuidelines, FaqEntry
from annotation.services.knowledge import (
    CaseContent,
    CaseSource,
    FaqContent,
    _case_checked,
    _case_search,
    _faq_checked,
    _faq_search,
    can_write_cases,
    can_write_faq,
    model_names,
)
from heartbench_core.jsonl import ErrorCollector, type_name
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, ModelResponse, User

FORMAT = 1


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _criterion_ref(key: uuid.UUID, snapshots: dict[str, Criterion]) -> dict[str, Any]:
    snapshot = snapshots.get(str(key))
    return {
        "key": str(key),
        "question_id": snapshot.item.question_id if snapshot else None,
        "number": snapshot.position + 1 if snapshot else None,
        "text": snapshot.text if snapshot else None,
    }


def _latest_snapshots(datasets: list[Dataset]) -> dict[str, Criterion]:
    found: dict[str, Criterion] = {}
    for criterion in (
        Criterion.objects.filter(lineage__dataset__in=datasets).select_related("item").order_by("lineage_id", "-item__version__number")
    ):
        found.setdefault(str(criterion.lineage_id), criterion)
    return found


def export_lines(*, dataset: Dataset | None = None, viewer: User | None = None) -> Iterator[str]:
    """The library (one dataset's, or every dataset's) as JSON lines, guidelines first; with a `viewer`, only what they may read as staff."""
    datasets = [dataset] if dataset is not None else list(Dataset.objects.order_by("name"))
    snapshots = _latest_snapshots(datasets)
    for g in (
        DatasetGuidelines.objects.filter(dataset__in=datasets).select_related("dataset", "author").order_by("dataset__name", "revision")
    ):
        yield _line(
            {
                "type": "guidelines",
                "format": FORMAT,
                "dataset": g.dataset.name,
                "revision": g.revision,
                "body": g.body,
                "change_note": g.change_note,
                "author": g.author.username if g.author else None,
                "created_at": _iso(g.created_at),
            }
        )
    entries = (
        FaqEntry.objects.filter(dataset__in=datasets)
        .select_related("dataset", "author", "reviewer", "replaces")
        .prefetch_related("lineages")
    )
    for e in entries.order_by("id"):  # an entry comes after the one it replaces
        yield _line(
            {
                "type": "faq",
                "format": FORMAT,
                "uid": str(e.uid),
                "dataset": e.dataset.name,
                "question": e.question,
                "answer": e.answer,
                "tags": e.tags,
                "abilities": e.abilities,
                "criteria": [_criterion_ref(lineage.key, snapshots) for lineage in sorted(e.lineages.all(), key=lambda x: str(x.key))],
                "status": e.status,
                "author": e.author.username,
                "reviewer": e.reviewer.username if e.reviewer else None,
                "review_note": e.review_note,
                "replaces": str(e.replaces.uid) if e.replaces else None,
                "created_at": _iso(e.created_at),
                "submitted_at": _iso(e.submitted_at),
                "published_at": _iso(e.published_at),
                "retired_at": _iso(e.retired_at),
            }
        )
    cases = visible_cases(viewer, as_expert=False) if viewer is not None else Case.objects.all()
    for c in (
        cases.filter(dataset__in=datasets)
        .select_related("dataset", "author", "published_by", "source_campaign", "source_response")
        .order_by("id")
    ):
        yield _line(
            {
                "type": "case",
                "format": FORMAT,
                "uid": str(c.uid),
                "dataset": c.dataset.name,
                "criterion": _criterion_ref(c.lineage_id, snapshots),
                "criterion_revision": c.criterion_revision,
                "criterion_text": c.criterion_text,
                "title": c.title,
                "excerpt": c.excerpt,
                "hit": c.hit,
                "reasoning": c.reasoning,
                "cause": c.cause,
                "tags": c.tags,
                "source": c.source,
                "invented": c.invented,
                "source_campaign": c.source_campaign.name if c.source_campaign else None,
                "source_response": c.source_response.public_id if c.source_response else None,
                "source_adjudication": c.source_adjudication_id,
                "status": c.status,
                "author": c.author.username,
                "published_by": c.published_by.username if c.published_by else None,
                "created_at": _iso(c.created_at),
                "published_at": _iso(c.published_at),
                "retired_at": _iso(c.retired_at),
            }
        )


def waiting_for_review(count: int) -> str:
    """What an import says of the entries that were published in its file."""
    return ngettext(
        "%(n)d FAQ entry was published in the file: it waits for a review here.",
        "%(n)d FAQ entries were published in the file: they wait for a review here.",
        count,
    ) % {"n": count}


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


# --- import ---------------------------------------------------------------------------------------


@dataclass
class LibraryImportOutcome:
    guidelines: int = 0
    faq: int = 0
    cases: int = 0
    already_present: int = 0
    lines: int = 0
    to_review: int = 0  # FAQ entries published in the file: they wait for a reviewer here


@dataclass
class _Plan:
    """What a checked file will write, in order."""

    guidelines: list[DatasetGuidelines] = field(default_factory=list)
    faq: list[tuple[FaqEntry, list[CriterionLineage], str | None]] = field(default_factory=list)  # entry, lineages, replaces uid
    cases: list[Case] = field(default_factory=list)
    already_present: int = 0
    to_review: int = 0
    created_at: dict[int, Any] = field(default_factory=dict)  # id() of a planned row → its creation time in the file


class _Reader:
    """Checks one line's fields, recording each problem under its field; returns None for a bad value."""

    def __init__(self, errors: ErrorCollector, line: int, record: dict[str, Any]) -> None:
        self.errors, self.line, self.record = errors, line, record

    def bad(self, name: str, message: str) -> None:
        self.errors.add(self.line, name, message)

    def refused(self, exc: ValidationError) -> None:
        """A service's refusal, each message under its field (the services name fields as the file does)."""
        for name, messages in exc.message_dict.items():
            for message in messages:
                self.bad(name, message)

    def text(self, name: str, *, required: bool = True, limit: int = 50_000) -> str | None:
        value = self.record.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            self.bad(name, _("expected a non-empty string, found %(found)s") % {"found": type_name(value)})
            return None
        if len(value) > limit:
            self.bad(name, _("at most %(n)d characters") % {"n": limit})
            return None
        return value

    def strings(self, name: str) -> list[str] | None:
        value = self.record.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.bad(name, _("expected a list of strings, found %(found)s") % {"found": type_name(value)})
            return None
        return value

    def boolean(self, name: str) -> bool | None:
        value = self.record.get(name)
        if not isinstance(value, bool):
            self.bad(name, _("expected true or false, found %(found)s") % {"found": type_name(value)})
            return None
        return value

    def choice(self, name: str, choices: list[str]) -> str | None:
        value = self.record.get(name)
        if value not in choices:
            self.bad(name, _("expected one of %(choices)s, found %(value)r") % {"choices": ", ".join(choices), "value": value})
            return None
        return value

    def moment(self, name: str) -> Any:
        value = self.record.get(name)
        if value is None:
            return None
        parsed = parse_datetime(value) if isinstance(value, str) else None
        if parsed is None:
            self.bad(name, _("expected an ISO 8601 date and time, found %(value)r") % {"value": value})
        return parsed

    def uid(self) -> uuid.UUID | None:
        try:
            return uuid.UUID(str(self.record.get("uid")))
        except ValueError:
            self.bad("uid", _("expected a UUID, found %(value)r") % {"value": self.record.get("uid")})
            return None


class _Lookups:
    """What the lines name, looked up once per value."""

    def __init__(self) -> None:
        self.datasets: dict[str, Dataset | None] = {}
        self.users: dict[str, User | None] = {}
        self.latest: dict[int, DatasetVersion | None] = {}
        self.campaigns: dict[str, Campaign | None] = {}
        self.model_names = model_names()

    def dataset(self, name: str) -> Dataset | None:
        if name not in self.datasets:
            self.datasets[name] = Dataset.objects.filter(name=name).first()
        return self.datasets[name]

    def user(self, username: str) -> User | None:
        if username not in self.users:
            self.users[username] = User.objects.filter(username=username).first()
        return self.users[username]

    def campaign(self, name: str) -> Campaign | None:
        if name not in self.campaigns:
            self.campaigns[name] = Campaign.objects.filter(name=name).first()
        return self.campaigns[name]

    def lineage(self, dataset: Dataset, ref: Any, reader: _Reader, name: str) -> CriterionLineage | None:
        """The dataset's lineage a criterion reference names: by key, else by question id and wording, else by question id and number."""
        if not isinstance(ref, dict):
            reader.bad(name, _("expected an object {key, question_id, number, text}, found %(found)s") % {"found": type_name(ref)})
            return None
        try:
            key = uuid.UUID(str(ref.get("key")))
        except ValueError:
            key = None
        if key is not None:
            found = CriterionLineage.objects.filter(key=key, dataset=dataset).first()
            if found is not None:
                return found
        if dataset.pk not in self.latest:
            self.latest[dataset.pk] = dataset.versions.order_by("-number").first()
        latest, qid = self.latest[dataset.pk], ref.get("question_id")
        if latest is not None and isinstance(qid, str):
            snapshot = None
            if isinstance(ref.get("text"), str):
                snapshot = (
                    Criterion.objects.filter(item__version=latest, item__question_id=qid, text=ref["text"])
                    .select_related("lineage")
                    .first()
                )
            if snapshot is None and isinstance(ref.get("number"), int):
                snapshot = (
                    Criterion.objects.filter(item__version=latest, item__question_id=qid, position=ref["number"] - 1)
                    .select_related("lineage")
                    .first()
                )
            if snapshot is not None:
                return snapshot.lineage
        reader.bad(
            name,
            _("no criterion of dataset %(dataset)s matches %(ref)s")
            % {"dataset": dataset.name, "ref": json.dumps(ref, ensure_ascii=False)},
        )
        return None


def import_library(*, source: str | Path | IO, name: str | None = None) -> LibraryImportOutcome:
    """Import a library file (see the module docstring); every line is checked first and nothing is written on any error."""
    with transaction.atomic():  # the checks may index responses (annotation.services.quotes): a refused file leaves nothing
        return _import_library(source=source, name=name)


def _import_library(*, source: str | Path | IO, name: str | None) -> LibraryImportOutcome:
    errors = ErrorCollector(name or source_name(source))
    lookups = _Lookups()
    plan = _Plan()
    faq_uids: set[str] = set()
    lines = 0
    for number, record in read_jsonl(source, errors):
        lines += 1
        reader = _Reader(errors, number, record)
        kind = reader.choice("type", ["guidelines", "faq", "case"])
        dataset_name = reader.text("dataset", limit=100)
        dataset = lookups.dataset(dataset_name) if dataset_name else None
        if dataset_name and dataset is None:
            reader.bad("dataset", _("no dataset named %(name)r") % {"name": dataset_name})
        if kind is None or dataset is None:
            continue
        if kind == "guidelines":
            _check_guidelines(reader, dataset, lookups, plan)
        elif kind == "faq":
            _check_faq(reader, dataset, lookups, plan, faq_uids)
        else:
            _check_case(reader, dataset, lookups, plan)
    if not lines and not errors:
        errors.add(None, None, _("the file holds no records"))
    errors.raise_if_any()
    outcome = LibraryImportOutcome(lines=lines, already_present=plan.already_present)
    for g in plan.guidelines:
        g.save()
        _keep_created_at(g, plan)
    outcome.guidelines = len(plan.guidelines)
    by_uid = {str(u): pk for u, pk in FaqEntry.objects.values_list("uid", "pk")}
    for entry, lineages, replaces in plan.faq:
        entry.replaces_id = by_uid.get(replaces) if replaces else None
        _faq_search(entry)
        entry.save()
        _keep_created_at(entry, plan)
        entry.lineages.set(lineages)
        by_uid[str(entry.uid)] = entry.pk
    outcome.faq = len(plan.faq)
    outcome.to_review = plan.to_review
    for case in plan.cases:
        _case_search(case)
        case.save()
        _keep_created_at(case, plan)
    outcome.cases = len(plan.cases)
    return outcome


def _keep_created_at(row: DatasetGuidelines | FaqEntry | Case, plan: _Plan) -> None:
    """The creation time the file gives (`auto_now_add` set the import's own on save)."""
    when = plan.created_at.get(id(row))
    if when is not None:
        type(row).objects.filter(pk=row.pk).update(created_at=when)


def _person(reader: _Reader, lookups: _Lookups, name: str, *, required: bool) -> User | None:
    username = reader.text(name, required=required, limit=150)
    if username is None:
        return None
    user = lookups.user(username)
    if user is None:
        reader.bad(name, _("no user named %(name)r in this installation") % {"name": username})
    return user


def _check_guidelines(reader: _Reader, dataset: Dataset, lookups: _Lookups, plan: _Plan) -> None:
    revision, body = reader.record.get("revision"), reader.text("body")
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        reader.bad("revision", _("expected a positive integer, found %(found)s") % {"found": type_name(revision)})
        return
    author = _person(reader, lookups, "author", required=False)
    created_at = reader.moment("created_at")
    if body is None:
        return
    existing = DatasetGuidelines.objects.filter(dataset=dataset, revision=revision).first()
    if existing is not None:
        if existing.body != body:
            reader.bad("body", _("revision %(n)d of %(dataset)s exists here with another text") % {"n": revision, "dataset": dataset.name})
        else:
            plan.already_present += 1
        return
    if any(g.dataset_id == dataset.pk and g.revision == revision for g in plan.guidelines):
        reader.bad("revision", _("revision %(n)d of %(dataset)s is twice in the file") % {"n": revision, "dataset": dataset.name})
        return
    g = DatasetGuidelines(
        dataset=dataset, revision=revision, body=body, change_note=str(reader.record.get("change_note") or "")[:300], author=author
    )
    plan.guidelines.append(g)
    plan.created_at[id(g)] = created_at


def _writer(reader: _Reader, lookups: _Lookups, name: str, *, faq: bool, required: bool) -> User | None:
    """The user a field names, who must hold a role that writes this kind of record here (as on the pages)."""
    user = _person(reader, lookups, name, required=required)
    if user is None or (can_write_faq(user) if faq else can_write_cases(user)):
        return user
    if faq:
        reader.bad(name, _("%(name)s does not write FAQ entries here (rubric authors and senior reviewers do)") % {"name": user.username})
    else:
        reader.bad(name, _("%(name)s does not write cases here (senior reviewers and admins do)") % {"name": user.username})
    return None


def _imported_status(status: str) -> str:
    """A review is not imported: a published entry waits for review here; the other states are kept."""
    return FaqEntry.Status.IN_REVIEW if status == FaqEntry.Status.PUBLISHED else status


def _check_faq(reader: _Reader, dataset: Dataset, lookups: _Lookups, plan: _Plan, seen: set[str]) -> None:
    uid = reader.uid()
    question, answer = reader.text("question", limit=300), reader.text("answer")
    tags, abilities = reader.strings("tags"), reader.strings("abilities")
    status = reader.choice("status", list(FaqEntry.Status.values))
    author = _writer(reader, lookups, "author", faq=True, required=True)
    refs = reader.record.get("criteria", [])
    lineages: list[CriterionLineage] = []
    if not isinstance(refs, list):
        reader.bad("criteria", _("expected a list, found %(found)s") % {"found": type_name(refs)})
    else:
        for i, ref in enumerate(refs):
            found = lookups.lineage(dataset, ref, reader, f"criteria[{i}]")
            if found is not None:
                lineages.append(found)
    replaces = reader.record.get("replaces")
    replaced = _uuid_or_none(replaces) if replaces is not None else None
    if replaces is not None and str(replaces) not in seen and (replaced is None or not FaqEntry.objects.filter(uid=replaced).exists()):
        reader.bad("replaces", _("the entry it replaces (%(uid)s) is neither earlier in the file nor here") % {"uid": replaces})
    moments = {name: reader.moment(name) for name in ("created_at", "submitted_at", "retired_at")}
    if uid is None or question is None or answer is None or tags is None or abilities is None or status is None or author is None:
        return
    if str(uid) in seen:
        reader.bad("uid", _("this entry is twice in the file"))
        return
    seen.add(str(uid))
    if FaqEntry.objects.filter(uid=uid).exists():
        plan.already_present += 1
        return
    content = FaqContent(question=question, answer=answer, tags=tags, abilities=abilities, criteria=[lin.key for lin in lineages])
    try:
        fields = _faq_checked(dataset, content, names=lookups.model_names)[0]
    except ValidationError as exc:
        reader.refused(exc)
        return
    imported = _imported_status(status)
    if imported != status:
        plan.to_review += 1
    entry = FaqEntry(
        uid=uid,
        dataset=dataset,
        status=imported,
        author=author,
        review_note=str(reader.record.get("review_note") or "") if imported == FaqEntry.Status.DRAFT else "",
        submitted_at=(moments["submitted_at"] or timezone.now()) if imported == FaqEntry.Status.IN_REVIEW else None,
        retired_at=moments["retired_at"] if imported == FaqEntry.Status.RETIRED else None,
        **fields,
    )
    plan.faq.append((entry, lineages, str(replaces) if replaces else None))
    plan.created_at[id(entry)] = moments["created_at"]


def _uuid_or_none(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _check_case(reader: _Reader, dataset: Dataset, lookups: _Lookups, plan: _Plan) -> None:
    uid = reader.uid()
    lineage = lookups.lineage(dataset, reader.record.get("criterion"), reader, "criterion")
    title, excerpt, reasoning = reader.text("title", limit=200), reader.text("excerpt", limit=600), reader.text("reasoning")
    criterion_text = reader.text("criterion_text")
    hit, invented = reader.boolean("hit"), reader.boolean("invented")
    cause = reader.choice("cause", list(Case.Cause.values))
    kind = reader.choice("source", list(Case.Source.values))
    status = reader.choice("status", list(Case.Status.values))
    tags = reader.strings("tags")
    author = _writer(reader, lookups, "author", faq=False, required=True)
    published_by = _writer(reader, lookups, "published_by", faq=False, required=False)
    revision = reader.record.get("criterion_revision")
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        reader.bad("criterion_revision", _("expected a positive integer, found %(found)s") % {"found": type_name(revision)})
    campaign, response = None, None
    campaign_name, public_id = reader.record.get("source_campaign"), reader.record.get("source_response")
    if (kind is not None and kind != Case.Source.WRITTEN) or campaign_name is not None:
        campaign = lookups.campaign(str(campaign_name)) if isinstance(campaign_name, str) else None
        if campaign is None:
            reader.bad(
                "source_campaign",
                _("campaign %(name)r is not in this installation: import it first (its cases' visibility depends on it)")
                % {"name": campaign_name},
            )
        response = ModelResponse.objects.filter(public_id=public_id, dataset=dataset).first() if isinstance(public_id, str) else None
        if response is None:
            reader.bad("source_response", _("no response %(id)r of dataset %(dataset)s") % {"id": public_id, "dataset": dataset.name})
    adjudication = reader.record.get("source_adjudication")
    if adjudication is not None and (not isinstance(adjudication, int) or isinstance(adjudication, bool)):
        reader.bad("source_adjudication", _("expected an integer or null, found %(found)s") % {"found": type_name(adjudication)})
        adjudication = None
    moments = {name: reader.moment(name) for name in ("created_at", "published_at", "retired_at")}
    if (
        uid is None
        or lineage is None
        or title is None
        or excerpt is None
        or reasoning is None
        or criterion_text is None
        or hit is None
        or invented is None
        or cause is None
        or kind is None
        or status is None
        or tags is None
        or author is None
        or not isinstance(revision, int)
    ):
        return  # its problems are recorded; the import will write nothing
    if Case.objects.filter(uid=uid).exists() or any(c.uid == uid for c in plan.cases):
        plan.already_present += 1
        return
    content = CaseContent(title=title, excerpt=excerpt, hit=hit, reasoning=reasoning, cause=cause, tags=tags, invented=invented)
    try:
        fields = _case_checked(content, CaseSource(kind, campaign, response, adjudication), names=lookups.model_names)
    except ValidationError as exc:
        reader.refused(exc)
        return
    published = status == Case.Status.PUBLISHED or (status == Case.Status.RETIRED and moments["published_at"] is not None)
    plan.cases.append(
        Case(
            uid=uid,
            dataset=dataset,
            lineage=lineage,
            criterion_revision=revision,
            criterion_text=criterion_text,
            source=kind,
            source_campaign=campaign,
            source_response=response,
            source_adjudication_id=adjudication,
            status=status,
            author=author,
            # Published by someone who publishes cases here: the file's publisher, else its author (as `create_case(publish=True)`).
            published_by=(published_by or author) if published else None,
            published_at=(moments["published_at"] or timezone.now()) if published else None,
            retired_at=moments["retired_at"] if status == Case.Status.RETIRED else None,
            **fields,
        )
    )
    plan.created_at[id(plan.cases[-1])] = moments["created_at"]
