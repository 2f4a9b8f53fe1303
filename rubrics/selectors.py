"""Rubric reads: the editor's criteria, histories, the review queue, the audit log, staleness, quality, work list.

Staff only. Nothing here names a model: responses appear by their opaque public id.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, TypedDict, cast

from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from heartbench_core.lib import rubric_quality as quality
from heartbench_core.lib.agreement import Stat
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, Item, JudgeVerdict, User
from heartbench_core.selectors import stale_q
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment

Status = CriterionRevision.Status


def latest_version(dataset: Dataset) -> DatasetVersion | None:
    return dataset.versions.order_by("-number").first()


# --- the editor --------------------------------------------------------------------------


@dataclass
class EditorRow:
    criterion: Criterion
    head: int  # newest revision number: an edit must be based on it
    open_revision: CriterionRevision | None
    signals: CriterionSignals | None = None  # filled in by the page that shows them


def editor_rows(version: DatasetVersion, question_id: str) -> tuple[Item, list[EditorRow], list[CriterionRevision]] | None:
    """The item, its criteria with their open revision and head number, and pending additions."""
    item = version.items.filter(question_id=question_id).first()
    if item is None:
        return None
    criteria = list(item.criteria.select_related("lineage").order_by("position"))
    keys = [c.lineage_id for c in criteria]
    heads = dict(
        CriterionRevision.objects.filter(lineage_id__in=keys).values("lineage_id").annotate(n=Max("number")).values_list("lineage_id", "n")
    )
    open_revs = {r.lineage_id: r for r in CriterionRevision.objects.filter(lineage_id__in=keys).open().select_related("author")}
    rows = [EditorRow(c, max(c.lineage.current_revision, heads.get(c.lineage_id, 0)), open_revs.get(c.lineage_id)) for c in criteria]
    additions = list(
        CriterionRevision.objects.filter(
            dataset_id=version.dataset_id,
            question_id=question_id,
            change_kind=CriterionRevision.Kind.ADDITION,
            published_in__isnull=True,
        )
        .exclude(status=Status.SUPERSEDED)
        .exclude(lineage_id__in=keys)
        .select_related("author", "lineage")
        .order_by("created_at")
    )
    # Only the newest revision of each pending addition.
    newest: dict[uuid.UUID, CriterionRevision] = {}
    for rev in additions:
        newest[rev.lineage_id] = rev
    return item, rows, list(newest.values())


def lineage_question(lineage: CriterionLineage) -> tuple[str, Criterion | None]:
    """The question id a lineage belongs to and its newest snapshot (None for a pending addition)."""
    snap = Criterion.objects.filter(lineage=lineage).select_related("item__version").order_by("-item__version__number").first()
    if snap is not None:
        return snap.item.question_id, snap
    rev = lineage.revisions.order_by("number").first()
    return (rev.question_id if rev else ""), None


# --- history -----------------------------------------------------------------------------


@dataclass
class HistoryEntry:
    number: int
    text: str
    ability: str
    weight: int | None
    source: str  # "import" (a published snapshot with no revision row) or "revision"
    revision: CriterionRevision | None = None
    versions: list[str] = field(default_factory=list)


def criterion_history(lineage: CriterionLineage) -> list[HistoryEntry]:
    """Every revision of a lineage, oldest first: imported snapshots and proposed revisions alike."""
    entries: dict[int, HistoryEntry] = {}
    for rev in lineage.revisions.select_related("author", "published_in").order_by("number"):
        entries[rev.number] = HistoryEntry(rev.number, rev.text, rev.ability, rev.weight, "revision", rev)
    for number, text, ability, weight, label in (
        Criterion.objects.filter(lineage=lineage)
        .order_by("item__version__number")
        .values_list("revision", "text", "ability", "weight", "item__version__label")
    ):
        entry = entries.setdefault(number, HistoryEntry(number, text, ability, weight, "import"))
        entry.versions.append(label)
    return [entries[n] for n in sorted(entries)]


# --- review ------------------------------------------------------------------------------


def review_queue(user: User) -> QuerySet[CriterionRevision]:
    """Submitted revisions this reviewer may still decide on (never their own)."""
    return (
        CriterionRevision.objects.filter(status=Status.SUBMITTED)
        .exclude(author=user)
        .exclude(decisions__reviewer=user)
        .select_related("author", "dataset", "lineage")
        .annotate(approvals=Count("decisions", filter=Q(decisions__verdict=ReviewDecision.Verdict.APPROVE)))
        .order_by("submitted_at", "id")
    )


def revision_detail(revision_id: int) -> CriterionRevision | None:
    return (
        CriterionRevision.objects.select_related("author", "dataset", "lineage", "parent", "edited_from", "published_in")
        .filter(pk=revision_id)
        .first()
    )


def comment_thread(revision: CriterionRevision) -> list[tuple[RevisionComment, int]]:
    """Comments in thread order with their depth."""
    comments = list(revision.comments.select_related("author").order_by("created_at", "id"))
    children: defaultdict[int | None, list[RevisionComment]] = defaultdict(list)
    for c in comments:
        children[c.reply_to_id].append(c)
    out: list[tuple[RevisionComment, int]] = []

    def walk(parent_id: int | None, depth: int) -> None:
        for c in children.get(parent_id, ()):
            out.append((c, depth))
            walk(c.pk, min(depth + 1, 6))

    walk(None, 0)
    return out


# --- audit log ---------------------------------------------------------------------------


def audit_entries(
    *,
    dataset: str | None = None,
    item: str | None = None,
    criterion: str | None = None,
    person: str | None = None,
    action: str | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[AuditEntry]:
    """Audit entries, newest first, filtered by any of item, criterion key (prefix), person, action, dates."""
    qs = AuditEntry.objects.select_related("dataset").order_by("-created_at", "-id")
    if dataset:
        qs = qs.filter(dataset__name=dataset)
    if item:
        qs = qs.filter(question_id=item)
    if criterion:
        keys = (
            list(CriterionLineage.objects.filter(key__startswith=criterion).values_list("key", flat=True)[:50])
            if len(criterion) < 36
            else [criterion]
        )
        qs = qs.filter(criterion_key__in=keys)
    if person:
        qs = qs.filter(actor_name=person)
    if action:
        qs = qs.filter(action=action)
    tz = timezone.get_current_timezone()
    if since:
        qs = qs.filter(created_at__gte=datetime.combine(since, time.min, tzinfo=tz))
    if until:
        qs = qs.filter(created_at__lte=datetime.combine(until, time.max, tzinfo=tz))
    return qs


# --- staleness ---------------------------------------------------------------------------


class StaleRow(TypedDict):
    """One response and criterion to re-check: how many judgments and verdicts predate the criterion's meaning."""

    response: str  # the response's opaque public id
    question_id: str
    criterion_key: str
    judged_revision: int
    meaning_revision: int
    judgments: int
    verdicts: int


# The criterion columns a stale row is grouped by, after the response's public id.
_STALE_CRITERION_FIELDS = (
    "criterion__lineage_id",
    "criterion__item__question_id",
    "criterion__revision",
    "criterion__lineage__meaning_revision",
)


def stale_rows(dataset: Dataset, *, question_id: str | None = None) -> list[StaleRow]:
    """Responses with judgments or verdicts made against an older meaning of a criterion, for re-checking."""
    from annotation.models import Assignment, Judgment

    scope = Q(criterion__lineage__dataset=dataset) & stale_q("criterion")
    if question_id is not None:
        scope &= Q(criterion__item__question_id=question_id)
    judgments = (
        Judgment.objects.filter(scope, assignment__status=Assignment.Status.SUBMITTED)
        .values("assignment__campaign_response__response__public_id", *_STALE_CRITERION_FIELDS)
        .annotate(n=Count("id"))
    )
    verdicts = JudgeVerdict.objects.filter(scope).values("response__public_id", *_STALE_CRITERION_FIELDS).annotate(n=Count("id"))
    rows: dict[tuple[str, uuid.UUID, int], StaleRow] = {}

    def row(public_id: str, r: dict[str, Any]) -> StaleRow:
        k = (public_id, r["criterion__lineage_id"], r["criterion__revision"])
        return rows.setdefault(
            k,
            {
                "response": public_id,
                "question_id": r["criterion__item__question_id"],
                "criterion_key": str(r["criterion__lineage_id"]),
                "judged_revision": r["criterion__revision"],
                "meaning_revision": r["criterion__lineage__meaning_revision"],
                "judgments": 0,
                "verdicts": 0,
            },
        )

    for r in judgments:
        row(r["assignment__campaign_response__response__public_id"], r)["judgments"] += r["n"]
    for r in verdicts:
        row(r["response__public_id"], r)["verdicts"] += r["n"]
    return sorted(rows.values(), key=lambda r: (r["question_id"], r["criterion_key"], r["response"]))


def stale_totals(rows: list[StaleRow]) -> dict[str, int]:
    """What `stale_rows` asks to re-check: distinct responses, expert judgments, judge verdicts."""
    return {
        "responses": len({r["response"] for r in rows}),
        "judgments": sum(r["judgments"] for r in rows),
        "verdicts": sum(r["verdicts"] for r in rows),
    }


# --- quality signals ---------------------------------------------------------------------


def ambiguity_rule() -> quality.AmbiguityRule:
    conf = getattr(settings, "RUBRICS_AMBIGUITY", {})
    return quality.AmbiguityRule(threshold=float(conf.get("threshold", 0.75)), min_units=int(conf.get("min_units", 5)))


class CriterionSignals(TypedDict):
    """The quality signals of one criterion (see `quality_signals`)."""

    hit_rate: Stat
    agreement: Stat
    alpha: Stat
    judge_human: Stat
    ambiguous: bool


def quality_signals(
    dataset: Dataset, keys: Collection[uuid.UUID] | None = None, *, leave_out: Iterable[int] | None = None
) -> dict[uuid.UUID, CriterionSignals]:
    """Per lineage key: hit rate across models, human agreement (pairwise, alpha), judge–human agreement, ambiguity.

    Only judgments and verdicts made against the criterion's current meaning count (stale ones are excluded).
    Judge–human agreement takes the agreement report's units: each blind-test campaign response on its own,
    waiting for its campaign's k ratings, hidden gold checks left out.
    `leave_out` (ModelResponse ids) are not counted: the responses of an open campaign the viewer is an expert of,
    whose judge verdicts a saturated hit rate would otherwise give away.
    """
    from annotation.models import Assignment, Campaign, Judgment

    scope = Q(criterion__lineage__dataset=dataset)
    if keys is not None:
        scope &= Q(criterion__lineage_id__in=list(keys))
    verdict_scope = judgment_scope = scope
    if leave_out is not None:
        verdict_scope = scope & ~Q(response_id__in=leave_out)
        judgment_scope = scope & ~Q(assignment__campaign_response__response_id__in=leave_out)
    # Latest run per (criterion lineage, response).
    verdicts: dict[tuple[uuid.UUID, int], tuple[int, bool]] = {}
    for key, response, model, hit in (
        JudgeVerdict.objects.filter(verdict_scope)
        .exclude(stale_q("criterion"))
        .values_list("criterion__lineage_id", "response_id", "response__model_id", "hit")
        .order_by("run_id")
    ):
        verdicts[(key, response)] = (model, hit)
    judgments: defaultdict[uuid.UUID, list[quality.Rating]] = defaultdict(list)
    # Per key: the report's units, {(campaign response, response, k): {expert: hit}}.
    campaign_units: defaultdict[uuid.UUID, defaultdict[tuple[int, int, int], dict[int, bool]]] = defaultdict(lambda: defaultdict(dict))
    for key, response, expert, judged, entry, k, kind, is_gold in (
        Judgment.objects.filter(judgment_scope, assignment__status=Assignment.Status.SUBMITTED, hit__isnull=False)
        .exclude(stale_q("criterion"))
        .values_list(
            "criterion__lineage_id",
            "assignment__campaign_response__response_id",
            "assignment__expert_id",
            "hit",
            "assignment__campaign_response_id",
            "assignment__campaign_response__campaign__overlap",
            "assignment__campaign_response__campaign__kind",
            "assignment__campaign_response__is_gold",
        )
    ):
        hit = cast("bool", judged)  # the filter leaves out judgments without a hit
        judgments[key].append((response, expert, hit))
        if kind == Campaign.Kind.BLIND_TEST and not is_gold:
            campaign_units[key][(entry, response, k)][expert] = hit
    by_key_verdicts: defaultdict[uuid.UUID, list[quality.Rating]] = defaultdict(list)
    for (key, response), (model, hit) in verdicts.items():
        by_key_verdicts[key].append((response, model, hit))
    rule = ambiguity_rule()
    out: dict[uuid.UUID, CriterionSignals] = {}
    for key in set(by_key_verdicts) | set(judgments) | set(keys or ()):
        ratings = judgments.get(key, [])
        units: dict[tuple[int, int, int], dict[int, bool]] = campaign_units.get(key, {})
        pairs = [(verdicts[(key, r)][1], list(h.values()), k) for (_, r, k), h in units.items() if (key, r) in verdicts]
        agreement = quality.pairwise_agreement(ratings)
        out[key] = {
            "hit_rate": quality.hit_rate(by_key_verdicts.get(key, [])),
            "agreement": agreement,
            "alpha": quality.krippendorff_alpha(ratings),
            "judge_human": quality.judge_human_agreement(pairs),
            "ambiguous": rule.is_ambiguous(agreement),
        }
    return out


# --- the authors' work list --------------------------------------------------------------


WORK_KINDS = ("ambiguous", "saturated", "unclear", "flag")


@dataclass
class WorkItem:
    kind: str  # one of WORK_KINDS
    dataset: str
    question_id: str
    criterion_key: str
    text: str
    detail: str
    created_at: datetime | None = None
    object_id: int | None = None


def work_list(
    dataset: Dataset, *, kind: str | None = None, question_id: str | None = None, leave_out: Iterable[int] | None = None
) -> list[WorkItem]:
    """What needs an author's attention: ambiguous and saturated criteria, experts' unclear reports, open flags.

    `leave_out`: ModelResponse ids the quality signals do not count (see `quality_signals`), nor their unclear reports.
    """
    from annotation.models import UnclearCriterionReport

    version = latest_version(dataset)
    items: list[WorkItem] = []
    texts: dict[uuid.UUID, tuple[str, str]] = {}
    if version is not None:
        texts = {
            k: (q, t) for k, q, t in Criterion.objects.filter(item__version=version).values_list("lineage_id", "item__question_id", "text")
        }
    # A question's criteria are those of its item in the latest version (the work list shows no others for it).
    keys = None if question_id is None else [k for k, (q, _) in texts.items() if q == question_id]

    def where(key: uuid.UUID) -> tuple[str, str]:
        return texts.get(key, ("", "(not in the latest version)"))

    if kind in (None, "ambiguous", "saturated"):
        # Sorted, so that the list reads by question and pages of it stay put between requests.
        signals = sorted(quality_signals(dataset, keys=keys, leave_out=leave_out).items(), key=lambda ks: (where(ks[0])[0], str(ks[0])))
        for key, s in signals:
            q, t = where(key)
            if s["ambiguous"] and kind in (None, "ambiguous"):
                a = s["agreement"]
                items.append(
                    WorkItem("ambiguous", dataset.name, q, str(key), t, f"experts agree on {a.value:.0%} of pairs over {a.n} responses")
                )
            if s["hit_rate"].extra.get("saturated") and kind in (None, "saturated"):
                h = s["hit_rate"]
                items.append(
                    WorkItem(
                        "saturated",
                        dataset.name,
                        q,
                        str(key),
                        t,
                        f"hit by all {h.n} judged responses of {h.extra['models']} models: a candidate for removal",
                    )
                )
    if kind in (None, "unclear"):
        reports = UnclearCriterionReport.objects.filter(resolved_at__isnull=True, criterion__lineage__dataset=dataset)
        if keys is not None:
            reports = reports.filter(criterion__lineage_id__in=keys)
        if leave_out is not None:  # another rater's note on a response the viewer judges blind
            reports = reports.exclude(assignment__campaign_response__response_id__in=leave_out)
        for report in reports.select_related("criterion__item").order_by("-created_at", "-id"):
            items.append(
                WorkItem(
                    "unclear",
                    dataset.name,
                    report.criterion.item.question_id,
                    str(report.criterion.lineage_id),
                    report.criterion.text,
                    report.comment,
                    report.created_at,
                    report.pk,
                )
            )
    if kind in (None, "flag"):
        flags = CriterionFlag.objects.filter(resolved_at__isnull=True, lineage__dataset=dataset)
        if keys is not None:
            flags = flags.filter(lineage_id__in=keys)
        for flag in flags.order_by("-created_at", "-id"):
            q, t = where(flag.lineage_id)
            items.append(
                WorkItem("flag", dataset.name, q, str(flag.lineage_id), t, f"{flag.source}: {flag.reason}", flag.created_at, flag.pk)
            )
    return items
