"""Rubric reads: the editor's criteria, histories, the review queue, the audit log, staleness, quality, work list.

Staff only. Nothing here names a model: responses appear by their opaque public id.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import Any, TypedDict, cast

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.utils.translation import gettext

from heartbench_core.lib import rubric_quality as quality
from heartbench_core.lib.agreement import Stat, agreeing_pairs
from heartbench_core.lib.reasons import Reason
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, Item, JudgeRun, JudgeVerdict, User
from heartbench_core.selectors import stale_q
from rubrics import feedback
from rubrics.models import CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment

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

    # Staleness is a property of the criterion (its revision is older than its lineage's meaning): the stale
    # criteria are found first, then only their judgments and verdicts are read, by the index on the criterion.
    # Joined the other way round, every judgment of the dataset was read (0.53 s at 100× HeartBench, to find none).
    criteria = Criterion.objects.filter(lineage__dataset=dataset).filter(stale_q(""))
    if question_id is not None:
        criteria = criteria.filter(item__question_id=question_id)
    stale_ids = list(criteria.values_list("pk", flat=True))
    if not stale_ids:
        return []
    scope = Q(criterion_id__in=stale_ids)
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


def cached_quality_signals(
    dataset: Dataset, keys: Collection[uuid.UUID] | None, *, leave_out: Iterable[int] | None = None
) -> dict[uuid.UUID, CriterionSignals]:
    """`quality_signals` of these criteria, kept in the cache under the fingerprint of what they read (`_signals_fingerprint`).

    The signals of an item's criteria read every judgment ever made on them: at 100× HeartBench, a
    hundred blind tests' (35–200 ms an item). The editor shows them on every view; they are computed
    again only after new submitted work, a correction, new verdicts or a change of meaning.
    """
    wanted = None if keys is None else sorted(str(k) for k in keys)  # None: every criterion of the dataset
    digest = hashlib.sha256(repr(wanted).encode()).hexdigest()
    key = f"rubrics:quality-signals:v1:{dataset.pk}:{digest}:{_signals_fingerprint(dataset, leave_out)}"
    return cast(
        "dict[uuid.UUID, CriterionSignals]",
        cache.get_or_set(key, lambda: quality_signals(dataset, keys, leave_out=leave_out), WORK_SIGNALS_TIMEOUT),
    )


# --- the authors' work list --------------------------------------------------------------

# The kinds of entry, in the order a severity level lists them (see `WorkItem.sort_key`).
WORK_KINDS = ("ambiguous", "adjudicated", "flag", "unclear", "stale", "saturated")
WORK_SORTS = ("severity", "item")
SEVERITY_HIGH, SEVERITY_MEDIUM, SEVERITY_LOW = 3, 2, 1
SEVERITY_NAMES = {SEVERITY_HIGH: "high", SEVERITY_MEDIUM: "medium", SEVERITY_LOW: "low"}
WORK_PAGE_SIZE = 50
# Cached per dataset and viewer scope; a change of what the signals read changes the key, so the day is only a backstop.
WORK_SIGNALS_TIMEOUT = 24 * 3600


def severity_of(kind: str, source: str = "") -> int:
    """How urgently an entry needs an author (docs/rubrics.md, "Severity").

    High: the criterion's golden labels are unreliable now (experts disagree on it: ambiguous), senior
    reviewers keep deciding its units because the criterion itself is unclear (adjudicated: many
    decisions give "ambiguous criterion" as their cause), or a senior reviewer met the problem while
    deciding a golden label (a flag from adjudication).
    Medium: someone could not apply it (an expert's unclear report, any other flag), or judgments
    made against an older meaning wait to be re-checked (stale: they count nowhere meanwhile).
    Low: it no longer separates models (saturated); the labels are not at risk.
    """
    if kind in ("ambiguous", "adjudicated") or (kind == "flag" and source == "adjudication"):
        return SEVERITY_HIGH
    if kind == "saturated":
        return SEVERITY_LOW
    return SEVERITY_MEDIUM


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
    ability: str = ""
    severity: int = SEVERITY_MEDIUM  # `severity_of`
    strength: float = 0.0  # orders entries of one kind and severity: larger first (see docs/rubrics.md)

    @property
    def severity_name(self) -> str:
        return SEVERITY_NAMES[self.severity]

    def sort_key(self) -> tuple[Any, ...]:
        """Severity first, then the kind's rank, the entry's strength, the newest, the item."""
        stamp = self.created_at.timestamp() if self.created_at else 0.0
        return (-self.severity, WORK_KINDS.index(self.kind), -self.strength, -stamp, self.question_id, self.criterion_key)

    def item_key(self) -> tuple[Any, ...]:
        """By item, then severity."""
        return (self.dataset, self.question_id == "", self.question_id, self.criterion_key, *self.sort_key())


@dataclass(frozen=True)
class CriterionWorkSignals:
    """What the work list computes for one criterion lineage from judgments and verdicts (only lineages with a signal)."""

    key: str
    agreement: float | None  # experts' pairwise agreement (None: no response rated twice)
    agreement_units: int  # responses rated by two or more experts
    ambiguous: bool
    judged: int  # responses with a current judge verdict (latest run)
    models: int
    saturated: bool
    stale_judgments: int
    stale_verdicts: int


def _int_rows(queryset: QuerySet[Any, Any], columns: int) -> np.ndarray:
    """An integer `values_list` queryset as a (rows × columns) array, fetched in one go (no per-row model or converter)."""
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=len(rows) * columns).reshape(-1, columns)


def _last_per_group(keys: list[np.ndarray], order: np.ndarray) -> np.ndarray:
    """Indices of the row with the largest `order` within each group of equal `keys`."""
    if order.size == 0:
        return np.zeros(0, np.int64)
    idx = np.lexsort((order, *reversed(keys)))
    sorted_keys = np.stack([k[idx] for k in keys], axis=1)
    last = np.ones(idx.size, dtype=bool)
    last[:-1] = (sorted_keys[1:] != sorted_keys[:-1]).any(axis=1)
    return idx[last]


def compute_work_signals(dataset: Dataset, *, leave_out: Iterable[int] | None = None) -> list[CriterionWorkSignals]:
    """Ambiguity, saturation and staleness of every criterion lineage of the dataset, vectorised.

    The same figures as `quality_signals` (same formula, `agreement.agreeing_pairs`, same rules:
    a rater's later judgment of a response replaces the earlier, the latest judge run per response,
    only the current meaning counts), computed for every lineage at once from three queries.
    Plus the stale judgments and verdicts of each lineage. `leave_out`: ModelResponse ids not counted.
    """
    from annotation.models import Assignment, Judgment

    criteria = _int_rows(
        Criterion.objects.filter(lineage__dataset=dataset).order_by().values_list("id", "revision", "lineage__meaning_revision"), 3
    )
    lineage_of = list(Criterion.objects.filter(lineage__dataset=dataset).order_by().values_list("id", "lineage_id"))
    keys = sorted({str(k) for _, k in lineage_of})
    key_index = {k: i for i, k in enumerate(keys)}
    max_id = int(criteria[:, 0].max()) + 1 if criteria.size else 1
    crit_lineage = np.full(max_id, -1, np.int64)
    for cid, key in lineage_of:
        crit_lineage[cid] = key_index[str(key)]
    crit_stale = np.zeros(max_id, dtype=bool)
    if criteria.size:
        crit_stale[criteria[:, 0]] = criteria[:, 1] < criteria[:, 2]
    judgments = Judgment.objects.filter(
        criterion__lineage__dataset=dataset, assignment__status=Assignment.Status.SUBMITTED, hit__isnull=False
    )
    verdicts = JudgeVerdict.objects.filter(criterion__lineage__dataset=dataset)
    if leave_out is not None:
        judgments = judgments.exclude(assignment__campaign_response__response_id__in=leave_out)
        verdicts = verdicts.exclude(response_id__in=leave_out)
    j = _int_rows(
        judgments.order_by().values_list(
            "criterion_id", "assignment__campaign_response__response_id", "assignment__expert_id", "hit", "id"
        ),
        5,
    )
    v = _int_rows(verdicts.order_by().values_list("criterion_id", "response_id", "response__model_id", "hit", "run_id"), 5)
    n = len(keys)
    j_lineage, j_stale = crit_lineage[j[:, 0]], crit_stale[j[:, 0]]
    v_lineage, v_stale = crit_lineage[v[:, 0]], crit_stale[v[:, 0]]
    stale_judgments = np.bincount(j_lineage[j_stale], minlength=n)
    stale_verdicts = np.bincount(v_lineage[v_stale], minlength=n)
    # Experts: one rating per (lineage, response, expert), the later judgment winning; units are (lineage, response).
    cur = j[~j_stale]
    cur_lineage = j_lineage[~j_stale]
    kept = _last_per_group([cur_lineage, cur[:, 1], cur[:, 2]], cur[:, 4])
    # One integer per (lineage, response): a 1-D unique is far faster than a unique over rows.
    width = int(cur[:, 1].max()) + 1 if kept.size else 1
    unit_codes, unit_of = np.unique(cur_lineage[kept] * width + cur[kept, 1], return_inverse=True)
    unit_of = np.asarray(unit_of).reshape(-1)
    unit_lineage = unit_codes // width
    units = unit_codes
    ratings = np.bincount(unit_of, minlength=len(units))
    hits = np.bincount(unit_of, weights=cur[kept, 3], minlength=len(units)).astype(np.int64)
    agree, pairs = agreeing_pairs(hits, ratings)
    agree_sum = np.bincount(unit_lineage, weights=agree, minlength=n)
    pair_sum = np.bincount(unit_lineage, weights=pairs, minlength=n)
    rated_twice = np.bincount(unit_lineage, weights=ratings >= 2, minlength=n).astype(np.int64)
    # Judge: the latest run's verdict per (lineage, response).
    vcur, vcur_lineage = v[~v_stale], v_lineage[~v_stale]
    latest = _last_per_group([vcur_lineage, vcur[:, 1]], vcur[:, 4])
    judged = np.bincount(vcur_lineage[latest], minlength=n)
    judged_hits = np.bincount(vcur_lineage[latest], weights=vcur[latest, 3], minlength=n)
    model_width = int(vcur[:, 2].max()) + 1 if latest.size else 1
    model_pairs = np.unique(vcur_lineage[latest] * model_width + vcur[latest, 2])
    models = np.bincount(model_pairs // model_width, minlength=n)
    rule = ambiguity_rule()
    out: list[CriterionWorkSignals] = []
    for i in range(n):
        value = float(agree_sum[i] / pair_sum[i]) if pair_sum[i] > 0 else None
        stat = Stat(value, int(rated_twice[i]), "" if value is not None else Reason("no_unit_rated_twice"))
        ambiguous = rule.is_ambiguous(stat)
        saturated = bool(models[i] >= 2 and judged[i] > 0 and judged_hits[i] == judged[i])
        if ambiguous or saturated or stale_judgments[i] or stale_verdicts[i]:
            out.append(
                CriterionWorkSignals(
                    key=keys[i],
                    agreement=value,
                    agreement_units=int(rated_twice[i]),
                    ambiguous=ambiguous,
                    judged=int(judged[i]),
                    models=int(models[i]),
                    saturated=saturated,
                    stale_judgments=int(stale_judgments[i]),
                    stale_verdicts=int(stale_verdicts[i]),
                )
            )
    return out


def _signals_fingerprint(dataset: Dataset, leave_out: Iterable[int] | None) -> str:
    """What the work signals read, in small aggregates: submitted work, accepted corrections, judge verdicts, criterion meanings.

    Submitted judgments change only through an accepted correction (a database guard refuses
    anything else), so new submissions, corrections, new verdicts and meaning changes are all that
    move the signals; the viewer's blind scope and the ambiguity rule complete the key. Submitted
    work is read from the experts' tallies (their count and time on task, per expert and campaign
    of the dataset), not from every assignment: 122 ms at 100× HeartBench, where this is ~3 ms.
    """
    from annotation.models import CorrectionRequest, ExpertCampaignTally

    work = ExpertCampaignTally.objects.filter(campaign__version__dataset=dataset).aggregate(
        n=Sum("submitted"), seconds=Sum("submitted_seconds"), rows=Count("id"), campaign=Max("campaign_id")
    )
    work.update(
        CorrectionRequest.objects.filter(status=CorrectionRequest.Status.ACCEPTED).aggregate(
            corrections=Count("id"), corrected=Max("decided_at")
        )
    )
    # Verdicts are written with their run and never changed: the dataset's runs and the newest verdict id cover them.
    judged = JudgeRun.objects.filter(version__dataset=dataset).aggregate(n=Count("id"), last=Max("id"), at=Max("created_at"))
    judged["verdict"] = JudgeVerdict.objects.aggregate(last=Max("id"))["last"]
    meanings = CriterionLineage.objects.filter(dataset=dataset).aggregate(n=Count("key"), m=Sum("meaning_revision"))
    scope = ""
    if isinstance(leave_out, QuerySet):
        try:  # the subquery's SQL names the viewer's open campaigns
            scope = str(leave_out.query)
        except EmptyResultSet:
            scope = "nothing"
    elif leave_out is not None:
        scope = repr(sorted(leave_out))
    # The dataset's creation time tells apart two databases that reuse ids (a test database rolled back between tests).
    raw = repr((dataset.created_at, sorted(work.items()), sorted(judged.items()), sorted(meanings.items()), scope, ambiguity_rule()))
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass(frozen=True)
class WorkSignals:
    """The cached part of the work list: the lineages with a signal, and where each is in the latest version."""

    signals: list[CriterionWorkSignals]
    where: dict[str, tuple[str, str, str]]  # lineage key -> (question id, text, ability) in the latest version


def _where(version: DatasetVersion | None, keys: Collection[str]) -> dict[str, tuple[str, str, str]]:
    """Question id, text and ability of each lineage in the latest version (one query; none without keys)."""
    if version is None or not keys:
        return {}
    return {
        str(k): (q, t, a)
        for k, q, t, a in Criterion.objects.filter(item__version=version, lineage_id__in=keys)
        .order_by()
        .values_list("lineage_id", "item__question_id", "text", "ability")
    }


def work_signals(dataset: Dataset, version: DatasetVersion | None, *, leave_out: Iterable[int] | None = None) -> WorkSignals:
    """`compute_work_signals` with where each lineage is in `version` (the latest), cached under a fingerprint of what it reads."""
    key = f"rubrics:work-signals:v1:{dataset.pk}:{version.pk if version else 0}:{_signals_fingerprint(dataset, leave_out)}"

    def compute() -> WorkSignals:
        signals = compute_work_signals(dataset, leave_out=leave_out)
        return WorkSignals(signals, _where(version, {s.key for s in signals}))

    return cast("WorkSignals", cache.get_or_set(key, compute, WORK_SIGNALS_TIMEOUT))


def work_list(
    dataset: Dataset,
    *,
    kind: str | None = None,
    question_id: str | None = None,
    ability: str | None = None,
    leave_out: Iterable[int] | None = None,
    sort: str = "severity",
) -> list[WorkItem]:
    """What needs an author's attention, most severe first (`WorkItem.sort_key`; `sort="item"`: by item).

    Ambiguous (experts agree too little), often adjudicated as ambiguous, saturated and stale criteria,
    experts' unclear reports, open flags. `leave_out`: ModelResponse ids the signals do not count (see `quality_signals`),
    nor their unclear reports.
    """
    from annotation.models import UnclearCriterionReport

    items: list[WorkItem] = []
    missing = ("", gettext("(not in the latest version)"), "")
    version = latest_version(dataset)

    def add(
        entry: str,
        key: str,
        at: tuple[str, str, str],
        detail: str,
        severity: int,
        strength: float,
        created_at: datetime | None = None,
        object_id: int | None = None,
    ) -> None:
        """An entry of a kind on the criterion `key`, `at` (question id, text, ability) in the latest version; reported when, which."""
        question, text, label = at
        items.append(
            WorkItem(
                entry, dataset.name, question, key, text, detail, created_at, object_id, ability=label, severity=severity, strength=strength
            )
        )

    if kind in (None, "ambiguous", "saturated", "stale"):
        cached = work_signals(dataset, version, leave_out=leave_out)
        threshold = ambiguity_rule().threshold
        ambiguous_text = gettext("experts agree on %(share)s of pairs over %(n)s responses")
        stale_text = gettext("%(judgments)s judgments and %(verdicts)s judge verdicts were made against an older meaning")
        saturated_text = gettext("hit by all %(n)s judged responses of %(models)s models: a candidate for removal")
        for s in cached.signals:
            at = cached.where.get(s.key, missing)
            if s.ambiguous and kind in (None, "ambiguous"):
                detail = ambiguous_text % {"share": f"{s.agreement or 0:.0%}", "n": s.agreement_units}
                add("ambiguous", s.key, at, detail, SEVERITY_HIGH, threshold - (s.agreement or 0))
            if (s.stale_judgments or s.stale_verdicts) and kind in (None, "stale"):
                detail = stale_text % {"judgments": s.stale_judgments, "verdicts": s.stale_verdicts}
                add("stale", s.key, at, detail, SEVERITY_MEDIUM, s.stale_judgments + s.stale_verdicts)
            if s.saturated and kind in (None, "saturated"):
                add("saturated", s.key, at, saturated_text % {"n": s.judged, "models": s.models}, SEVERITY_LOW, s.judged)
    if kind in (None, "adjudicated"):
        # Decided units whose cause is "ambiguous criterion" that put a criterion on the work list.
        minimum = int(getattr(settings, "RUBRICS_AMBIGUITY", {}).get("min_adjudicated", 3))
        counts = {
            key: causes[feedback.AMBIGUOUS_CRITERION]
            for key, causes in feedback.adjudication_causes(dataset, leave_out=leave_out).items()
            if causes[feedback.AMBIGUOUS_CRITERION] >= minimum
        }
        where = _where(version, set(counts))
        adjudicated_text = gettext("%(n)s adjudicated units gave “ambiguous criterion” as the cause")
        for key, n in counts.items():
            add("adjudicated", key, where.get(key, missing), adjudicated_text % {"n": n}, SEVERITY_HIGH, n)
    if kind in (None, "flag"):
        flags = list(
            CriterionFlag.objects.filter(resolved_at__isnull=True, lineage__dataset=dataset)
            .order_by("-created_at", "-id")
            .values_list("id", "lineage_id", "source", "reason", "created_at")
        )
        where = _where(version, {str(k) for _, k, _, _, _ in flags})
        for pk, lineage_key, source, reason, created_at in flags:
            key = str(lineage_key)
            add("flag", key, where.get(key, missing), f"{source}: {reason}", severity_of("flag", source), 0.0, created_at, pk)
    if kind in (None, "unclear"):
        reports = UnclearCriterionReport.objects.filter(resolved_at__isnull=True, criterion__lineage__dataset=dataset)
        if leave_out is not None:  # another rater's note on a response the viewer judges blind
            reports = reports.exclude(assignment__campaign_response__response_id__in=leave_out)
        unclear = list(
            reports.order_by("-created_at", "-id").values_list(
                "id",
                "comment",
                "created_at",
                "criterion__lineage_id",
                "criterion__text",
                "criterion__ability",
                "criterion__item__question_id",
            )
        )
        per_criterion = Counter(row[3] for row in unclear)
        for pk, comment, created_at, lineage_key, text, criterion_ability, q in unclear:
            add(
                "unclear",
                str(lineage_key),
                (q, text, criterion_ability),
                comment,
                SEVERITY_MEDIUM,
                per_criterion[lineage_key],
                created_at,
                pk,
            )
    if question_id is not None:
        items = [w for w in items if w.question_id == question_id]
    if ability:
        items = [w for w in items if w.ability == ability]
    items.sort(key=WorkItem.item_key if sort == "item" else WorkItem.sort_key)
    return items
