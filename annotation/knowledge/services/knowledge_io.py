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
the pages and the API (`annotation.knowledge.services.knowledge`): its author may write it here, its texts
name no model and quote no response of an open campaign, a case names none of its raters. A
review is not imported: a file's published entry arrives waiting for review here (its reviewer,
review note and times dropped), so only someone here publishes it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from rest_framework import serializers

from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry
from annotation.knowledge.selectors import latest_snapshots, visible_cases
from annotation.knowledge.services.knowledge import (
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
from annotation.models import Campaign
from heartbench_core.input_lines import Boolean, Choice, Integer, Items, JsonField, Line, LineCheck, Moment, Strings, Text, Uuid, refuse
from heartbench_core.jsonl import ErrorCollector, type_name
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, ModelResponse, User

FORMAT = 1


def _criterion_ref(key: uuid.UUID, snapshots: dict[str, Criterion]) -> dict[str, Any]:
    snapshot = snapshots.get(str(key))
    return {
        "key": str(key),
        "question_id": snapshot.item.question_id if snapshot else None,
        "number": snapshot.position + 1 if snapshot else None,
        "text": snapshot.text if snapshot else None,
    }


def export_lines(*, dataset: Dataset | None = None, viewer: User | None = None) -> Iterator[str]:
    """The library (one dataset's, or every dataset's) as JSON lines, guidelines first; with a `viewer`, only what they may read as staff."""
    datasets = [dataset] if dataset is not None else list(Dataset.objects.order_by("name"))
    snapshots = latest_snapshots(None, datasets=datasets)
    for g in (
        DatasetGuidelines.objects.filter(dataset__in=datasets).select_related("dataset", "author").order_by("dataset__name", "revision")
    ):
        author = g.author.username if g.author else None
        yield _line(g, "guidelines", "dataset revision body change_note author created_at", dataset=g.dataset.name, author=author)
    entries = (
        FaqEntry.objects.filter(dataset__in=datasets)
        .select_related("dataset", "author", "reviewer", "replaces")
        .prefetch_related("lineages")
    )
    for e in entries.order_by("id"):  # an entry comes after the one it replaces
        yield _line(
            e,
            "faq",
            "uid dataset question answer tags abilities criteria status author reviewer review_note replaces created_at submitted_at "
            "published_at retired_at",
            dataset=e.dataset.name,
            criteria=[_criterion_ref(lineage.key, snapshots) for lineage in sorted(e.lineages.all(), key=lambda x: str(x.key))],
            author=e.author.username,
            reviewer=e.reviewer.username if e.reviewer else None,
            replaces=str(e.replaces.uid) if e.replaces else None,
        )
    cases = visible_cases(viewer, as_expert=False) if viewer is not None else Case.objects.all()
    for c in (
        cases.filter(dataset__in=datasets)
        .select_related("dataset", "author", "published_by", "source_campaign", "source_response")
        .order_by("id")
    ):
        yield _line(
            c,
            "case",
            "uid dataset criterion criterion_revision criterion_text title excerpt hit reasoning cause tags source invented source_campaign "
            "source_response source_adjudication status author published_by created_at published_at retired_at",
            dataset=c.dataset.name,
            criterion=_criterion_ref(c.lineage_id, snapshots),
            source_campaign=c.source_campaign.name if c.source_campaign else None,
            source_response=c.source_response.public_id if c.source_response else None,
            source_adjudication=c.source_adjudication_id,
            author=c.author.username,
            published_by=c.published_by.username if c.published_by else None,
        )


def waiting_for_review(count: int) -> str:
    """What an import says of the entries that were published in its file."""
    return ngettext(
        "%(n)d FAQ entry was published in the file: it waits for a review here.",
        "%(n)d FAQ entries were published in the file: they wait for a review here.",
        count,
    ) % {"n": count}


def _line(row: Model, kind: str, names: str, **given: Any) -> str:
    """The row's line: its type and the format, then each named field in order, as `given`, else the row's (a time in ISO 8601, a uid as text)."""
    record: dict[str, Any] = {"type": kind, "format": FORMAT}
    for name in names.split():
        value = given[name] if name in given else getattr(row, name)
        record[name] = value.isoformat() if isinstance(value, datetime) else str(value) if isinstance(value, uuid.UUID) else value
    return json.dumps(record, ensure_ascii=False) + "\n"


# --- import ---------------------------------------------------------------------------------------


@dataclass
class LibraryImportOutcome:
    guidelines: int = field(default=0, metadata={"help_text": "Guidelines revisions imported."})
    faq: int = field(default=0, metadata={"help_text": "FAQ entries imported."})
    cases: int = field(default=0, metadata={"help_text": "Cases imported."})
    already_present: int = field(default=0, metadata={"help_text": "Records already here (same uid, same revision), left as they are."})
    lines: int = 0
    to_review: int = field(
        default=0, metadata={"help_text": "FAQ entries published in the file: imported waiting for a review here."}
    )  # they wait for a reviewer here


@dataclass
class _Plan:
    """What a checked file will write, in order."""

    guidelines: list[DatasetGuidelines] = field(default_factory=list)
    faq: list[tuple[FaqEntry, list[CriterionLineage], str | None]] = field(default_factory=list)  # entry, lineages, replaces uid
    cases: list[Case] = field(default_factory=list)
    already_present: int = 0
    to_review: int = 0
    created_at: dict[int, Any] = field(default_factory=dict)  # id() of a planned row → its creation time in the file


# What a line's fields must be, as the file's readers are told (the lines' serializers below use them).
_TEXT = gettext_lazy("expected a non-empty string, found %(found)s")
_TOO_LONG = gettext_lazy("at most %(n)d characters")
_MOMENT = gettext_lazy("expected an ISO 8601 date and time, found %(value)r")
_POSITIVE = gettext_lazy("expected a positive integer, found %(found)s")
_MAX_ID = 2**31 - 1  # beyond it, no revision or row here: refused before any query


def _text(limit: int = 50_000) -> Text:
    return Text(_TEXT, max_length=limit, too_long=_TOO_LONG, missing=None)


def _choice(choices: list[str]) -> Choice:
    return Choice(choices, gettext_lazy("expected one of %(choices)s, found %(value)r"), missing=None)


def _strings() -> Strings:
    return Strings(gettext_lazy("expected a list of strings, found %(found)s"), required=False, default=list)


def _boolean() -> Boolean:
    return Boolean(gettext_lazy("expected true or false, found %(found)s"), missing=None)


def _moment() -> Moment:
    return Moment(_MOMENT, missing=None)


def _uid() -> Uuid:
    return Uuid(gettext_lazy("expected a UUID, found %(value)r"), missing=None)


class _Lookups:
    """What the lines name, looked up once per value."""

    def __init__(self) -> None:
        self.found: dict[tuple[type, str], Any] = {}
        self.latest: dict[int, DatasetVersion | None] = {}
        self.model_names = model_names()

    def named(self, model: type[Dataset | User | Campaign], name: str) -> Any:
        """The dataset, user (by username) or campaign of that name here, or None."""
        if (model, name) not in self.found:
            field = "username" if model is User else "name"
            self.found[(model, name)] = model._default_manager.filter(**{field: name}).first()
        return self.found[(model, name)]

    def lineage(self, dataset: Dataset, ref: dict[str, Any]) -> CriterionLineage | None:
        """The dataset's lineage a criterion reference names: by key, else by question id and wording, else by question id and number."""
        return self._by_key(dataset, ref.get("key")) or self._by_question(dataset, ref)

    @staticmethod
    def _by_key(dataset: Dataset, key: Any) -> CriterionLineage | None:
        uid = _uuid_or_none(key)
        return CriterionLineage.objects.filter(key=uid, dataset=dataset).first() if uid is not None else None

    def _by_question(self, dataset: Dataset, ref: dict[str, Any]) -> CriterionLineage | None:
        if dataset.pk not in self.latest:
            self.latest[dataset.pk] = dataset.versions.order_by("-number").first()
        latest, qid, text, number = self.latest[dataset.pk], ref.get("question_id"), ref.get("text"), ref.get("number")
        if latest is None or not isinstance(qid, str):
            return None
        snapshots = Criterion.objects.filter(item__version=latest, item__question_id=qid).select_related("lineage")
        snapshot = snapshots.filter(text=text).first() if isinstance(text, str) else None
        if snapshot is None and isinstance(number, int) and 0 < number <= _MAX_ID:
            snapshot = snapshots.filter(position=number - 1).first()
        return snapshot.lineage if snapshot is not None else None


class _Named(Text):
    """A dataset (`kind="dataset"`) or a user of this installation, named by its name."""

    def __init__(self, kind: str, **kwargs: Any) -> None:
        self.kind = kind
        super().__init__(_TEXT, max_length=100 if kind == "dataset" else 150, too_long=_TOO_LONG, missing=None, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        name = super().to_internal_value(data)
        found = self.context["lookups"].named(Dataset if self.kind == "dataset" else User, name)
        if found is None and self.kind == "dataset":
            raise refuse(gettext_lazy("no dataset named %(name)r"), name=name)
        if found is None:
            raise refuse(gettext_lazy("no user named %(name)r in this installation"), name=name)
        return found


class _Writer(_Named):
    """The user a field names, who must hold a role that writes this kind of record here (as on the pages)."""

    def __init__(self, *, faq: bool, **kwargs: Any) -> None:
        self.faq = faq
        super().__init__("user", **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        user = super().to_internal_value(data)
        if self.faq and not can_write_faq(user):
            raise refuse(
                gettext_lazy("%(name)s does not write FAQ entries here (rubric authors and senior reviewers do)"), name=user.username
            )
        if not self.faq and not can_write_cases(user):
            raise refuse(gettext_lazy("%(name)s does not write cases here (senior reviewers and admins do)"), name=user.username)
        return user


class _CriterionRef(JsonField):
    """A criterion of the line's dataset, as the export writes it (see `_Lookups.lineage`)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise refuse(gettext_lazy("expected an object {key, question_id, number, text}, found %(found)s"), found=type_name(data))
        dataset = self.context["dataset"]
        found = self.context["lookups"].lineage(dataset, data)
        if found is None:
            message = gettext_lazy("no criterion of dataset %(dataset)s matches %(ref)s")
            raise refuse(message, dataset=dataset.name, ref=json.dumps(data, ensure_ascii=False))
        return found


class _Replaces(JsonField):
    """The uid of the entry an entry replaces: earlier in the file, or here."""

    def to_internal_value(self, data: Any) -> Any:
        if str(data) not in self.context["faq_uids"]:
            uid = _uuid_or_none(data)
            if uid is None or not FaqEntry.objects.filter(uid=uid).exists():
                raise refuse(gettext_lazy("the entry it replaces (%(uid)s) is neither earlier in the file nor here"), uid=data)
        return str(data)


class _Header(Line):
    type = _choice(["guidelines", "faq", "case"])
    dataset = _Named("dataset")


class _GuidelinesLine(Line):
    revision = Integer(_POSITIVE, minimum=1, maximum=_MAX_ID, missing=None)
    body = _text()
    author = _Named("user", allow_null=True, blank=True)
    created_at = _moment()


class _FaqLine(Line):
    uid = _uid()
    question = _text(300)
    answer = _text()
    tags = _strings()
    abilities = _strings()
    status = _choice(list(FaqEntry.Status.values))
    author = _Writer(faq=True)
    criteria = Items(_CriterionRef(), gettext_lazy("expected a list, found %(found)s"), allow_empty=True, required=False, default=list)
    replaces = _Replaces(allow_null=True, missing=None)
    created_at = _moment()
    submitted_at = _moment()
    retired_at = _moment()


class _CaseLine(Line):
    uid = _uid()
    criterion = _CriterionRef(missing=None)
    title = _text(200)
    excerpt = _text(600)
    reasoning = _text()
    criterion_text = _text()
    hit = _boolean()
    invented = _boolean()
    cause = _choice(list(Case.Cause.values))
    source = _choice(list(Case.Source.values))  # type: ignore[assignment]  # the file's field, not DRF's attribute (the serializer takes it out of the class)
    status = _choice(list(Case.Status.values))
    tags = _strings()
    author = _Writer(faq=False)
    published_by = _Writer(faq=False, allow_null=True, blank=True)
    criterion_revision = Integer(_POSITIVE, minimum=1, maximum=_MAX_ID, missing=None)
    source_campaign = serializers.JSONField(required=False, allow_null=True, default=None)  # checked by `validate`
    source_response = serializers.JSONField(required=False, allow_null=True, default=None)
    source_adjudication = Integer(
        gettext_lazy("expected an integer or null, found %(found)s"), minimum=0, maximum=2**63 - 1, allow_null=True, missing=None
    )
    created_at = _moment()
    published_at = _moment()
    retired_at = _moment()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """A case written from a campaign names a campaign here and one of its dataset's responses."""
        name, public_id = attrs["source_campaign"], attrs["source_response"]
        attrs["source_campaign"] = attrs["source_response"] = None
        if attrs["source"] == Case.Source.WRITTEN and name is None:
            return attrs
        dataset, problems = self.context["dataset"], {}
        attrs["source_campaign"] = self.context["lookups"].named(Campaign, name) if isinstance(name, str) else None
        if attrs["source_campaign"] is None:
            message = _("campaign %(name)r is not in this installation: import it first (its cases' visibility depends on it)")
            problems["source_campaign"] = message % {"name": name}
        if isinstance(public_id, str):
            attrs["source_response"] = ModelResponse.objects.filter(public_id=public_id, dataset=dataset).first()
        if attrs["source_response"] is None:
            problems["source_response"] = _("no response %(id)r of dataset %(dataset)s") % {"id": public_id, "dataset": dataset.name}
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


def import_library(*, source: str | Path | IO, name: str | None = None) -> LibraryImportOutcome:
    """Import a library file (see the module docstring); every line is checked first and nothing is written on any error."""
    with transaction.atomic():  # the checks may index responses (annotation.knowledge.services.quotes): a refused file leaves nothing
        return _import_library(source=source, name=name)


def _import_library(*, source: str | Path | IO, name: str | None) -> LibraryImportOutcome:
    errors = ErrorCollector(name or source_name(source))
    lookups, plan, faq_uids = _Lookups(), _Plan(), set[str]()
    header = LineCheck(_Header, errors, lookups=lookups)
    planners = {
        "guidelines": (LineCheck(_GuidelinesLine, errors, lookups=lookups), _plan_guidelines),
        "faq": (LineCheck(_FaqLine, errors, lookups=lookups, faq_uids=faq_uids), _plan_faq),
        "case": (LineCheck(_CaseLine, errors, lookups=lookups), _plan_case),
    }
    lines = 0
    for number, record in read_jsonl(source, errors):
        lines += 1
        head = header(record, number)
        if head is None:
            continue
        check, planner = planners[head["type"]]
        data = check(record, number, dataset=head["dataset"])
        if data is not None:
            planner(_Planned(head["dataset"], data, record, lookups, plan, faq_uids, partial(errors.add, number)))
    if not lines and not errors:
        errors.add(None, None, _("the file holds no records"))
    errors.raise_if_any()
    return _write(plan, lines)


def _write(plan: _Plan, lines: int) -> LibraryImportOutcome:
    """Write a checked file's plan, in order: guidelines, entries (each after the one it replaces), cases."""
    for g in plan.guidelines:
        g.save()
        _keep_created_at(g, plan)
    by_uid = {str(u): pk for u, pk in FaqEntry.objects.values_list("uid", "pk")}
    for entry, lineages, replaces in plan.faq:
        entry.replaces_id = by_uid.get(replaces) if replaces else None
        _faq_search(entry)
        entry.save()
        _keep_created_at(entry, plan)
        entry.lineages.set(lineages)
        by_uid[str(entry.uid)] = entry.pk
    for case in plan.cases:
        _case_search(case)
        case.save()
        _keep_created_at(case, plan)
    return LibraryImportOutcome(
        guidelines=len(plan.guidelines),
        faq=len(plan.faq),
        cases=len(plan.cases),
        already_present=plan.already_present,
        lines=lines,
        to_review=plan.to_review,
    )


def _keep_created_at(row: DatasetGuidelines | FaqEntry | Case, plan: _Plan) -> None:
    """The creation time the file gives (`auto_now_add` set the import's own on save)."""
    when = plan.created_at.get(id(row))
    if when is not None:
        type(row).objects.filter(pk=row.pk).update(created_at=when)


@dataclass(frozen=True)
class _Planned:
    """A checked line on its way into the plan: its dataset, checked values and raw record, and where its problems go."""

    dataset: Dataset
    data: dict[str, Any]
    record: dict[str, Any]
    lookups: _Lookups
    plan: _Plan
    faq_uids: set[str]
    report: Callable[[str | None, str], None]

    def refused(self, exc: ValidationError) -> None:
        """A service's refusal, each message under its field (the services name fields as the file does)."""
        for name, messages in exc.message_dict.items():
            for message in messages:
                self.report(name, message)


def _plan_guidelines(line: _Planned) -> None:
    dataset, revision, body, plan = line.dataset, line.data["revision"], line.data["body"], line.plan
    existing = DatasetGuidelines.objects.filter(dataset=dataset, revision=revision).first()
    if existing is not None:
        if existing.body != body:
            line.report("body", _("revision %(n)d of %(dataset)s exists here with another text") % {"n": revision, "dataset": dataset.name})
        else:
            plan.already_present += 1
        return
    if any(g.dataset_id == dataset.pk and g.revision == revision for g in plan.guidelines):
        line.report("revision", _("revision %(n)d of %(dataset)s is twice in the file") % {"n": revision, "dataset": dataset.name})
        return
    change_note = str(line.record.get("change_note") or "")[:300]
    g = DatasetGuidelines(dataset=dataset, revision=revision, body=body, change_note=change_note, author=line.data["author"])
    plan.guidelines.append(g)
    plan.created_at[id(g)] = line.data["created_at"]


def _plan_faq(line: _Planned) -> None:
    data, plan = line.data, line.plan
    if str(data["uid"]) in line.faq_uids:
        line.report("uid", _("this entry is twice in the file"))
        return
    line.faq_uids.add(str(data["uid"]))
    if FaqEntry.objects.filter(uid=data["uid"]).exists():
        plan.already_present += 1
        return
    lineages = data["criteria"]
    keys = [lin.key for lin in lineages]
    content = FaqContent(question=data["question"], answer=data["answer"], tags=data["tags"], abilities=data["abilities"], criteria=keys)
    try:
        fields = _faq_checked(line.dataset, content, names=line.lookups.model_names)[0]
    except ValidationError as exc:
        line.refused(exc)
        return
    # A review is not imported: a published entry waits for review here; the other states are kept.
    status = FaqEntry.Status.IN_REVIEW if data["status"] == FaqEntry.Status.PUBLISHED else data["status"]
    plan.to_review += status != data["status"]
    entry = FaqEntry(
        uid=data["uid"],
        dataset=line.dataset,
        status=status,
        author=data["author"],
        review_note=str(line.record.get("review_note") or "") if status == FaqEntry.Status.DRAFT else "",
        submitted_at=(data["submitted_at"] or timezone.now()) if status == FaqEntry.Status.IN_REVIEW else None,
        retired_at=data["retired_at"] if status == FaqEntry.Status.RETIRED else None,
        **fields,
    )
    plan.faq.append((entry, lineages, data["replaces"]))
    plan.created_at[id(entry)] = data["created_at"]


def _uuid_or_none(value: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _plan_case(line: _Planned) -> None:
    data, plan = line.data, line.plan
    if Case.objects.filter(uid=data["uid"]).exists() or any(c.uid == data["uid"] for c in plan.cases):
        plan.already_present += 1
        return
    content = CaseContent(**{name: data[name] for name in ("title", "excerpt", "hit", "reasoning", "cause", "tags", "invented")})
    origin = CaseSource(data["source"], data["source_campaign"], data["source_response"], data["source_adjudication"])
    try:
        fields = _case_checked(content, origin, names=line.lookups.model_names)
    except ValidationError as exc:
        line.refused(exc)
        return
    status, published_at = data["status"], data["published_at"]
    published = status == Case.Status.PUBLISHED or (status == Case.Status.RETIRED and published_at is not None)
    case = Case(
        uid=data["uid"],
        dataset=line.dataset,
        lineage=data["criterion"],
        criterion_revision=data["criterion_revision"],
        criterion_text=data["criterion_text"],
        source=data["source"],
        source_campaign=data["source_campaign"],
        source_response=data["source_response"],
        source_adjudication_id=data["source_adjudication"],
        status=status,
        author=data["author"],
        # Published by someone who publishes cases here: the file's publisher, else its author (as `create_case(publish=True)`).
        published_by=(data["published_by"] or data["author"]) if published else None,
        published_at=(published_at or timezone.now()) if published else None,
        retired_at=data["retired_at"] if status == Case.Status.RETIRED else None,
        **fields,
    )
    plan.cases.append(case)
    plan.created_at[id(case)] = data["created_at"]
