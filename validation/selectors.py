"""Reads of the validation app: a campaign's judgments, verdicts and labels as NumPy arrays.

Everything the statistics need is loaded with a handful of `values_list` queries into flat
arrays (no model instances), so a HeartBench-sized campaign loads in a fraction of a second.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

import numpy as np
import psycopg
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Page
from django.db import connections
from django.db.models import BooleanField, Count, Exists, F, FloatField, Func, Max, OuterRef, Q, QuerySet, Value
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from numpy.typing import ArrayLike, DTypeLike
from psycopg import pq
from psycopg.abc import Buffer
from psycopg.adapt import Dumper, Loader

from annotation.manage.selectors import CAMPAIGNS_PER_PAGE  # the campaign lists have the same pages
from annotation.models import (
    Assignment,
    Campaign,
    CampaignResponse,
    CorrectionRequest,
    DiscussionComment,
    DiscussionVote,
    Judgment,
    UnclearCriterionReport,
)
from heartbench_core.lib.agreement_report import required_ratings
from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item, JudgeRun, JudgeVerdict, LanguageModel
from heartbench_core.paging import page_of_ids
from validation.models import Adjudication, AgreementReport, GoldenLabel, ReleaseGate


@dataclass
class CampaignArrays:
    """A campaign's data as flat arrays; `u_*` arrays have one entry per unit (response, criterion)."""

    campaign_id: int
    k: int
    # responses (clusters)
    cr_id: np.ndarray
    cr_model: np.ndarray  # index into model_names
    cr_item: np.ndarray  # index into the item arrays
    model_names: list[str]
    item_question: list[str]
    item_difficulty: list[str]
    item_scene: list[str]
    # criteria of the campaign's version (only items in the campaign)
    crit_id: np.ndarray
    crit_ability: list[str]
    crit_weight: np.ndarray  # float, NaN for null
    crit_catastrophic: np.ndarray
    crit_stale: np.ndarray
    crit_revision: np.ndarray
    crit_lineage: list[str]
    crit_position: np.ndarray
    crit_item: np.ndarray  # index into the item arrays
    crit_text: list[str]
    # units
    u_cr: np.ndarray  # index into cr_*
    u_crit: np.ndarray  # index into crit_*
    # judgments (only submitted, non-stale, with a hit value), in unit order
    j_unit: np.ndarray  # index into u_*, ascending
    j_expert: np.ndarray  # index into expert_names
    j_hit: np.ndarray
    j_time: np.ndarray  # submitted_at as POSIX seconds
    expert_ids: list[int]
    expert_names: list[str]
    # judge verdicts, per unit: −1 none, 0 miss, 1 hit
    u_judge: np.ndarray
    # adjudicated label per unit: −1 none, 0, 1; and the decision id
    u_adjudicated: np.ndarray
    u_adjudication_id: np.ndarray
    judge_runs: list[dict] = field(default_factory=list)
    excluded: dict = field(default_factory=dict)
    # the JudgeVerdict id behind u_judge (−1 none): where the judge's reason is read
    u_judge_verdict: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    # Post-discussion view only: how many accepted revisions replaced blind verdicts (empty: blind verdicts).
    revisions: dict = field(default_factory=dict)
    # Per campaign response: extra raters granted where its k verdicts split (empty: none anywhere).
    cr_extra: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def n_units(self) -> int:
        return int(self.u_cr.size)

    def unit_index(self, cr_ids: np.ndarray, criterion_ids: np.ndarray) -> np.ndarray:
        """Unit positions of (campaign response id, criterion id) pairs; −1 where the pair is not a unit."""
        kept = np.zeros(len(self.crit_id), bool)
        kept[self.u_crit] = True  # a criterion left out is on no unit
        units = _Units.laid_out(self.cr_id, self.cr_item, self.crit_id, self.crit_item, kept, self.u_cr, self.u_crit)
        return units.of(cr_ids, criterion_ids)

    def unit_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per unit: (expert hit votes, expert ratings)."""
        hits = np.bincount(self.j_unit, weights=self.j_hit, minlength=self.n_units).astype(np.int64)
        ratings = np.bincount(self.j_unit, minlength=self.n_units).astype(np.int64)
        return hits, ratings


def _index(values: ArrayLike, keys: ArrayLike) -> np.ndarray:
    """Positions of `values` in the sorted unique array `keys` (−1 where absent).

    Keys spread over a range not much wider than their count (a campaign's assignment or
    response ids, mostly) are looked up in a table as long as that range; others by binary
    search, which for millions of values costs ten times more.
    """
    keys = np.asarray(keys)
    values = np.asarray(values)
    if keys.size == 0:
        return np.full(values.shape, -1, dtype=np.int64)
    low, high = int(keys[0]), int(keys[-1])
    span = high - low + 1
    if keys.dtype.kind in "iu" and values.dtype.kind in "iu" and values.size > keys.size and span <= 4 * keys.size + 65_536:
        table = np.full(span + 1, -1, dtype=np.int64)  # the last entry answers every value out of range
        table[keys - low] = np.arange(keys.size)
        offset = values.astype(np.int64, copy=False) - low
        return table[np.where((offset >= 0) & (offset < span), offset, span)]
    pos = np.searchsorted(keys, values)
    pos = np.clip(pos, 0, keys.size - 1)
    return np.where(keys[pos] == values, pos, -1)


def int_rows(queryset: QuerySet, columns: int, dtype: DTypeLike = np.int64) -> np.ndarray:
    """An integer `values_list` queryset as a (rows × columns) array, fetched in one go.

    On PostgreSQL an unordered queryset comes back as one array per column (`array_agg`), read
    in binary straight into NumPy: no Python object per value, where a campaign at 100× HeartBench
    has five million judgments. Otherwise fetchall: iterating a queryset fetches 100 rows per
    round trip through the driver, which costs more than the query itself for tens of
    thousands of rows. Only for columns the driver returns as numbers (no converters run).
    """
    sql, params = queryset.query.sql_with_params()
    connection = connections[queryset.db]
    if connection.vendor == "postgresql" and not queryset.ordered:
        arrays = _aggregated_rows(connection, sql, params, columns, dtype)
        if arrays is not None:
            return arrays
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # fromiter over the flattened rows is about twice as fast as np.array on a list of tuples.
    return np.fromiter(chain.from_iterable(rows), dtype=dtype, count=len(rows) * columns).reshape(-1, columns)


class _ArrayBytes(Loader):
    """A PostgreSQL array as the bytes of its binary form, for NumPy to read in place."""

    format = pq.Format.BINARY

    def load(self, data: Buffer) -> bytes:
        return bytes(data)


# Array type oids → the big-endian element type of their binary form.
_NUMBER_ARRAYS = {1000: ">u1", 1005: ">i2", 1007: ">i4", 1016: ">i8", 1021: ">f4", 1022: ">f8"}


def _aggregated_rows(connection: Any, sql: str, params: Any, columns: int, dtype: DTypeLike) -> np.ndarray | None:
    """The rows of `sql` as a (rows × columns) array, fetched as one array per column in one row (PostgreSQL).

    The arrays come in PostgreSQL's binary form (a header, then each element's length and its
    bytes), read by NumPy without a conversion on either side: printing and parsing five
    million numbers as text cost more than the query. None when a column is not an integer,
    boolean or float column (a bare parameter, a decimal): the caller fetches the rows instead.
    """
    names = ", ".join(f"c{i}" for i in range(columns))
    aggregates = ", ".join(f"array_agg(q.c{i})" for i in range(columns))
    connection.ensure_connection()
    # Django's cursors bind parameters on the client, which allows no binary results: a cursor that
    # binds them on the server, in the same transaction, wrapped as Django wraps its own (query
    # logging and counting, execute wrappers).
    raw = psycopg.Cursor(connection.connection)
    raw.format = pq.Format.BINARY
    for oid in _NUMBER_ARRAYS:
        raw.adapters.register_loader(oid, _ArrayBytes)
    wrapped = connection.make_debug_cursor(raw) if connection.queries_logged else connection.make_cursor(raw)
    with wrapped as cursor:
        cursor.execute(f"SELECT {aggregates} FROM ({sql}) AS q({names})", params)
        description = cursor.description or []
        kinds = [_NUMBER_ARRAYS.get(d.type_code) for d in description]
        row = cursor.fetchone()
    if None in kinds:
        return None
    if row is None or row[0] is None:  # no rows
        return np.zeros((0, columns), dtype)
    out = np.empty((0, 0), dtype)
    for i, (kind, data) in enumerate(zip(kinds, row)):
        ndim, has_nulls = np.frombuffer(data, ">i4", count=2)
        if has_nulls:
            raise TypeError(f"column {i} of the query has NULLs, which are not numbers: {sql[:200]}")
        # ndim, has_nulls, element oid, then (size, lower bound) per dimension: one dimension here.
        elements = np.frombuffer(data, dtype=[("length", ">i4"), ("value", kind)], offset=12 + 8 * int(ndim))
        if i == 0:
            out = np.empty((elements.size, columns), dtype, order="F")  # each column contiguous, as the callers read them
        out[:, i] = elements["value"]
    return out


class IdArray:
    """Integer ids sent to PostgreSQL as one bigint[] parameter, dumped from their NumPy array in binary.

    Psycopg dumps a list of Python ints element by element (a regex check and a string each in
    text): for the 776,000 ids a report sends at 100× HeartBench that cost more than the queries
    they filter. Here the array's binary form is built by NumPy in one pass; the text form is
    kept for the client-side cursors that log or inline a query.
    """

    __slots__ = ("ids",)

    def __init__(self, ids: ArrayLike) -> None:
        self.ids = np.asarray(ids, np.int64).ravel()


_INT8_OID, _INT8_ARRAY_OID = 20, 1016


class _IdArrayBinaryDumper(Dumper):
    format = pq.Format.BINARY
    oid = _INT8_ARRAY_OID

    def dump(self, obj: IdArray) -> bytes:
        ids = obj.ids
        if not ids.size:  # no dimension: the empty array
            return np.array([0, 0, _INT8_OID], ">i4").tobytes()
        # ndim, has nulls, element oid, (size, lower bound); then each element's length and value.
        header = np.array([1, 0, _INT8_OID, ids.size, 1], ">i4").tobytes()
        body = np.empty(ids.size, dtype=[("length", ">i4"), ("value", ">i8")])
        body["length"] = 8
        body["value"] = ids
        return header + body.tobytes()


class _IdArrayTextDumper(Dumper):
    format = pq.Format.TEXT
    oid = _INT8_ARRAY_OID

    def dump(self, obj: IdArray) -> bytes:
        return ("{" + ",".join(map(str, obj.ids.tolist())) + "}").encode()


# Text first: the format a placeholder leaves to psycopg is the one registered last, binary.
psycopg.adapters.register_dumper(IdArray, _IdArrayTextDumper)
psycopg.adapters.register_dumper(IdArray, _IdArrayBinaryDumper)


class AnyOf(Func):
    """PostgreSQL: `column = ANY(<ids>)`, the ids sent as one bigint array parameter (`IdArray`).

    For ids the caller has loaded already (a campaign's responses, its submitted assignments):
    the table is filtered by a hash of the array (a constant to the planner, which picks an index
    for a few ids and a scan for many) rather than joined again to the tables that found them.
    At 100× HeartBench the judgments' semi-join hashed 444,000 assignments, spilled to disk
    and took twice the scan's time. One parameter, not one placeholder per id.
    """

    output_field = BooleanField()

    def __init__(self, column: str, ids: ArrayLike) -> None:
        super().__init__(F(column))
        self.ids = IdArray(ids)

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, tuple[Any, ...]]:  # type: ignore[override]
        column, column_params = compiler.compile(self.source_expressions[0])
        return f"{column} = ANY(%s::bigint[])", (*column_params, self.ids)


def float_rows(queryset: QuerySet, columns: int) -> np.ndarray:
    """Like `int_rows`, as floats."""
    return int_rows(queryset, columns, dtype=np.float64)


class EpochSeconds(Func):
    """A PostgreSQL timestamptz as POSIX seconds (double precision)."""

    template = "EXTRACT(EPOCH FROM %(expressions)s)::double precision"
    output_field = FloatField()


def select_judge_runs(campaign: Campaign, *, judge: str | None = None, run: str | None = None) -> list[JudgeRun]:
    """The judge runs whose verdicts a report compares: one per model of the campaign.

    With no judge named, the campaign's single judge is used (none → an empty list; several →
    an error naming them). With several runs of the judge for one model, the run on the
    campaign's version is preferred; a remaining ambiguity is an error asking for --run.
    """
    model_ids = set(
        CampaignResponse.objects.filter(campaign=campaign, is_gold=False).order_by().values_list("response__model_id", flat=True).distinct()
    )
    # A run without a verdict yet (a platform run just started, or whose questions all failed) has nothing to compare.
    matching = JudgeRun.objects.filter(version__dataset_id=campaign.version.dataset_id, model_id__in=model_ids).filter(
        Exists(JudgeVerdict.objects.filter(run=OuterRef("pk")))
    )
    if judge:
        matching = matching.filter(judge=judge)
    if run:
        matching = matching.filter(label=run)
    runs = list(matching.select_related("model", "version").order_by("model__name", "-version__number", "label"))
    if not judge:
        judges = sorted({r.judge for r in runs})
        if len(judges) > 1:
            raise ValidationError(
                {"judge": _("several judges have verdicts for this campaign; pick one: %(judges)s") % {"judges": ", ".join(judges)}}
            )
    elif not runs:
        facts = {"judge": judge, "run": run, "campaign": campaign.name}
        if run:
            message = _("judge %(judge)r run %(run)r has no verdicts for the models of campaign %(campaign)r") % facts
        else:
            message = _("judge %(judge)r has no verdicts for the models of campaign %(campaign)r") % facts
        raise ValidationError({"judge": message})
    chosen: dict[int, list[JudgeRun]] = {}
    for r in runs:
        chosen.setdefault(r.model_id, []).append(r)
    result = []
    for model_runs in chosen.values():
        same_version = [r for r in model_runs if r.version_id == campaign.version_id] or model_runs
        newest = [r for r in same_version if r.version_id == same_version[0].version_id]
        if len(newest) > 1:
            labels = ", ".join(sorted(r.label for r in newest))
            raise ValidationError(
                {
                    "run": _("judge %(judge)r has several runs for model %(model)r (%(labels)s); pick one with --run")
                    % {"judge": newest[0].judge, "model": newest[0].model.name, "labels": labels}
                }
            )
        result.append(newest[0])
    return result


def load_campaign_arrays(
    campaign: Campaign,
    *,
    judge_runs: list[JudgeRun] | None = None,
    exclude_catastrophic: bool = False,
    post_discussion: bool = False,
) -> CampaignArrays:
    """Load everything the golden standard and the statistics need, in eight queries (nine with judge runs).

    Hidden gold checks are left out: they measure the experts, not the judge, and their labels
    come from the gold set, so they belong to no golden label, agreement figure or gate.

    The judgments are the blind verdicts as submitted (and corrected before the discussion was
    seen). With `post_discussion`, each assignment's newest accepted post-discussion revision
    replaces its verdicts (one more query): an exploratory view, never the golden standard.
    """
    entries = CampaignResponse.objects.filter(campaign=campaign, is_gold=False)
    responses = _load_campaign_responses(entries)
    models = _load_models(entries)
    items = _load_items(entries)
    criteria = _load_criteria(entries, items.ids)
    left_out = criteria.stale | (criteria.catastrophic if exclude_catastrophic else False)
    units = _build_units(responses, _index(responses.item_id, items.ids), criteria, left_out, n_items=len(items.ids))
    assignments = _load_submitted_assignments(campaign, responses)
    rows = _load_blind_judgments(campaign, assignments)
    revisions: dict = {}
    if post_discussion:
        rows, revisions = _apply_post_discussion_revisions(campaign, rows)
    judgments = _place_judgments(rows, assignments, units, criteria)
    judge = _judge_per_unit(campaign, judge_runs, entries, responses, criteria, units)
    adjudicated, adjudication_id = _adjudications_per_unit(campaign, units)
    return CampaignArrays(
        campaign_id=campaign.pk,
        k=int(campaign.overlap),
        cr_id=responses.id,
        cr_extra=responses.extra,
        cr_model=_index(responses.model_id, models.ids),
        cr_item=units.cr_item,
        model_names=models.names,
        item_question=items.question,
        item_difficulty=items.difficulty,
        item_scene=items.scene,
        crit_id=criteria.id,
        crit_ability=criteria.ability,
        crit_weight=criteria.weight,
        crit_catastrophic=criteria.catastrophic,
        crit_stale=criteria.stale,
        crit_revision=criteria.revision,
        crit_lineage=criteria.lineage,
        crit_position=criteria.position,
        crit_item=criteria.item,
        crit_text=criteria.text,
        u_cr=units.cr,
        u_crit=units.crit,
        j_unit=judgments.unit,
        j_expert=judgments.expert,
        j_hit=judgments.hit,
        j_time=judgments.time,
        expert_ids=judgments.expert_ids,
        expert_names=judgments.expert_names,
        u_judge=judge.per_unit,
        u_judge_verdict=judge.verdict,
        u_adjudicated=adjudicated,
        u_adjudication_id=adjudication_id,
        judge_runs=judge.runs,
        revisions=revisions,
        excluded={
            "stale_judgments": judgments.stale,
            "other_excluded_judgments": judgments.other_excluded,
            "stale_verdicts": judge.stale,
            "stale_criteria": int(criteria.stale.sum()),
            "catastrophic_criteria": int(criteria.catastrophic.sum()) if exclude_catastrophic else 0,
        },
    )


# --- the steps of load_campaign_arrays: campaign responses, models, items, criteria ---------------


class _CampaignResponses(NamedTuple):
    """A campaign's (non-gold) responses in id order, one array per column."""

    id: np.ndarray
    response_id: np.ndarray
    item_id: np.ndarray
    model_id: np.ndarray
    extra: np.ndarray  # extra raters granted where the verdicts split (0 for most)


class _Models(NamedTuple):
    """The language models of a campaign."""

    ids: np.ndarray  # sorted
    names: list[str]  # in the order of `ids`


class _Items(NamedTuple):
    """The campaign's items in id order."""

    ids: np.ndarray
    question: list[str]
    difficulty: list[str]
    scene: list[str]


@dataclass(frozen=True)
class _Criteria:
    """The criteria of the campaign's items, in (item id, position) order."""

    id: np.ndarray
    item: np.ndarray  # index into the items
    position: np.ndarray
    ability: list[str]
    weight: np.ndarray  # float, NaN for null
    catastrophic: np.ndarray
    stale: np.ndarray  # the meaning changed after this revision was written
    revision: np.ndarray
    lineage: list[str]
    text: list[str]


def _load_campaign_responses(entries: QuerySet[CampaignResponse]) -> _CampaignResponses:
    """The campaign responses' ids, response ids, item ids, model ids and extra raters (one query)."""
    rows = int_rows(entries.order_by("id").values_list("id", "response_id", "item_id", "response__model_id", "extra_raters"), 5)
    return _CampaignResponses(*rows.T)


def _load_models(entries: QuerySet[CampaignResponse]) -> _Models:
    """The language models of the campaign responses, by id (one query)."""
    name_of = dict(LanguageModel.objects.filter(id__in=entries.values("response__model_id")).values_list("id", "name"))
    ids = np.array(sorted(name_of), dtype=np.int64)
    return _Models(ids, [name_of[m] for m in ids.tolist()])


def _load_items(entries: QuerySet[CampaignResponse]) -> _Items:
    """The items of the campaign responses, with a readable stand-in for a missing difficulty or scene (one query)."""
    rows = list(
        Item.objects.filter(id__in=entries.values("item_id")).order_by("id").values_list("id", "question_id", "difficulty", "primary_scene")
    )
    ids, question_ids, difficulty, scene = zip(*rows) if rows else ((),) * 4  # one tuple per column
    return _Items(
        ids=np.array(ids, dtype=np.int64),
        question=list(question_ids),
        difficulty=[d or "unspecified" for d in difficulty],
        scene=[s or "(none)" for s in scene],
    )


def _load_criteria(entries: QuerySet[CampaignResponse], item_ids: np.ndarray) -> _Criteria:
    """The criteria of the campaign responses' items, each marked stale when its meaning changed since (one query)."""
    rows = list(
        Criterion.objects.filter(item_id__in=entries.values("item_id"))
        .order_by("item_id", "position")
        .values_list(
            "id", "item_id", "position", "ability", "weight", "catastrophic", "revision", "lineage__meaning_revision", "lineage_id", "text"
        )
    )
    # One tuple per column: as fast as reading rows by position, and each column has a name.
    ids, items, position, ability, weight, catastrophic, revision, meaning_revision, lineage, text = zip(*rows) if rows else ((),) * 10
    return _Criteria(
        id=np.array(ids, dtype=np.int64),
        item=_index(np.array(items, dtype=np.int64), item_ids),
        position=np.array(position, dtype=np.int64),
        ability=list(ability),
        weight=np.array([np.nan if w is None else w for w in weight], dtype=np.float64),
        catastrophic=np.array(catastrophic, dtype=bool),
        stale=np.array([r < m for r, m in zip(revision, meaning_revision)], dtype=bool),
        revision=np.array(revision, dtype=np.int64),
        lineage=[str(key) for key in lineage],
        text=list(text),
    )


# --- units ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Units:
    """The (response, criterion) units in (response, criterion) order, and how to find one by ids.

    A response's units are its item's criteria that are not left out, in criterion order, one
    after the other: the unit of (response r, criterion c) is r's first unit plus c's place among
    the kept criteria of its item, found by arithmetic rather than a search of every unit.
    """

    cr: np.ndarray  # index into the campaign responses
    crit: np.ndarray  # index into the criteria
    cr_item: np.ndarray  # per campaign response, index into the items
    cr_first: np.ndarray  # per campaign response, its first unit
    crit_item: np.ndarray  # per criterion, index into the items
    crit_place: np.ndarray  # per criterion, its place among its item's kept criteria (−1 when left out)
    cr_id: np.ndarray
    crit_id_sorted: np.ndarray
    crit_by_id: np.ndarray  # criterion indexes in id order

    @classmethod
    def laid_out(
        cls,
        cr_id: np.ndarray,
        cr_item: np.ndarray,
        crit_id: np.ndarray,
        crit_item: np.ndarray,
        kept: np.ndarray,
        u_cr: np.ndarray,
        u_crit: np.ndarray,
    ) -> _Units:
        """The lookup of units laid out as above: u_cr ascending, each response's kept criteria in criterion order."""
        n_items = int(max(crit_item.max(initial=-1), cr_item.max(initial=-1))) + 1
        kept_before = np.cumsum(kept) - kept  # kept criteria before each criterion
        item_start = np.searchsorted(crit_item, np.arange(n_items))  # each item's first criterion
        first_of_item = kept_before[np.minimum(item_start[crit_item], max(len(kept) - 1, 0))] if len(kept) else kept_before
        crit_by_id = np.argsort(crit_id, kind="stable")
        return cls(
            cr=u_cr,
            crit=u_crit,
            cr_item=cr_item,
            cr_first=np.searchsorted(u_cr, np.arange(len(cr_id))),
            crit_item=crit_item,
            crit_place=np.where(kept, kept_before - first_of_item, -1).astype(np.int64),
            cr_id=cr_id,
            crit_id_sorted=crit_id[crit_by_id],
            crit_by_id=crit_by_id,
        )

    def __len__(self) -> int:
        return len(self.cr)

    def of(self, cr_ids: np.ndarray, criterion_ids: np.ndarray) -> np.ndarray:
        """Unit positions of (campaign response id, criterion id) pairs; −1 where the pair is not a unit."""
        return self.at(_index(cr_ids, self.cr_id), criterion_ids)

    def at(self, r: np.ndarray, criterion_ids: np.ndarray) -> np.ndarray:
        """Unit positions of (campaign response position, criterion id) pairs; −1 where r < 0 or the pair is not a unit."""
        c_pos = _index(criterion_ids, self.crit_id_sorted)
        c = np.where(c_pos >= 0, self.crit_by_id[np.maximum(c_pos, 0)], -1)
        r_safe, c_safe = np.maximum(r, 0), np.maximum(c, 0)
        place = self.crit_place[c_safe]
        ok = (r >= 0) & (c >= 0) & (place >= 0) & (self.crit_item[c_safe] == self.cr_item[r_safe])
        return np.where(ok, self.cr_first[r_safe] + place, -1)


def _build_units(responses: _CampaignResponses, cr_item: np.ndarray, criteria: _Criteria, left_out: np.ndarray, *, n_items: int) -> _Units:
    """Every criterion not `left_out` of every campaign response's item, as a unit."""
    kept = ~left_out if len(left_out) else np.zeros(0, bool)
    per_item = np.bincount(criteria.item[kept], minlength=n_items)
    counts = per_item[cr_item] if len(cr_item) else np.zeros(0, np.int64)
    u_cr = np.repeat(np.arange(len(responses.id)), counts).astype(np.int64)
    # Criteria are in (item, position) order: the kept ones, item by item, and each response's in turn.
    kept_ids = np.flatnonzero(kept)
    kept_start = np.concatenate([[0], np.cumsum(per_item)[:-1]]) if n_items else np.zeros(0, np.int64)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    u_crit = kept_ids[np.repeat(kept_start[cr_item], counts) + offsets].astype(np.int64) if u_cr.size else np.zeros(0, np.int64)
    return _Units.laid_out(responses.id, cr_item, criteria.id, np.asarray(criteria.item, np.int64), kept, u_cr, u_crit)


# --- expert judgments -----------------------------------------------------------------------------


class _JudgmentRows(NamedTuple):
    """Judgments as three parallel arrays."""

    assignment: np.ndarray
    criterion: np.ndarray
    hit: np.ndarray


class _Assignments(NamedTuple):
    """The submitted assignments in id order; `time` is submitted_at in POSIX seconds (0 when unset)."""

    id: np.ndarray
    cr: np.ndarray
    expert: np.ndarray
    time: np.ndarray


class _PlacedJudgments(NamedTuple):
    """The judgments that fall on a unit, with what was left out."""

    unit: np.ndarray
    expert: np.ndarray  # index into expert_ids
    hit: np.ndarray
    time: np.ndarray
    expert_ids: list[int]
    expert_names: list[str]
    stale: int  # judgments on stale criteria
    other_excluded: int  # other judgments on no unit (e.g. on catastrophic criteria when those are excluded)


def _load_submitted_assignments(campaign: Campaign, responses: _CampaignResponses) -> _Assignments:
    """The submitted assignments of the campaign's (non-gold) `responses` (one query)."""
    if connections[Assignment.objects.db].vendor == "postgresql":
        # Of the responses loaded already: no join to the campaign's responses again.
        submitted = Assignment.objects.filter(AnyOf("campaign_response_id", responses.id)).submitted()
    else:
        submitted = Assignment.objects.of_campaign(campaign.pk, gold=False).submitted().order_by("id")
    if connections[submitted.db].vendor == "postgresql":
        # Parsing thousands of timestamps in Python costs more than the query; PostgreSQL gives the
        # same POSIX seconds (microseconds exact, correctly rounded to a double, as timestamp() does).
        # Unordered, they come as arrays; sorted by id here.
        epochs = float_rows(
            submitted.order_by()
            .annotate(epoch=Coalesce(EpochSeconds("submitted_at"), Value(0.0)))
            .values_list("id", "campaign_response_id", "expert_id", "epoch"),
            4,
        )
        epochs = epochs[np.argsort(epochs[:, 0], kind="stable")]
        a_id, a_cr, a_expert = epochs[:, :3].astype(np.int64).T
        return _Assignments(a_id, a_cr, a_expert, epochs[:, 3].copy())
    rows = list(submitted.values_list("id", "campaign_response_id", "expert_id", "submitted_at"))
    ids, crs, experts, submitted_at = zip(*rows) if rows else ((),) * 4
    return _Assignments(
        id=np.array(ids, dtype=np.int64),
        cr=np.array(crs, dtype=np.int64),
        expert=np.array(experts, dtype=np.int64),
        time=np.array([t.timestamp() if t else 0.0 for t in submitted_at], dtype=np.float64),
    )


def _load_blind_judgments(campaign: Campaign, assignments: _Assignments) -> _JudgmentRows:
    """The verdicts of the campaign's (non-gold) submitted `assignments`, as submitted (one query)."""
    if connections[Judgment.objects.db].vendor == "postgresql":
        # Of the assignments loaded already, as one array: a scan of the judgments filtered by its
        # hash, not a semi-join that finds the campaign's assignments a second time.
        of_campaign = Judgment.objects.filter(AnyOf("assignment_id", assignments.id))
    else:
        # A semi-join on the campaign's submitted assignments, not every judgment joined to its assignment before filtering.
        of_campaign = Judgment.objects.filter(
            assignment_id__in=Assignment.objects.of_campaign(campaign.pk, gold=False).submitted().values("id")
        )
    rows = int_rows(
        of_campaign.filter(hit__isnull=False).order_by().values_list("assignment_id", "criterion_id", "hit"),
        3,
    )
    return _JudgmentRows(*rows.T)


def _apply_post_discussion_revisions(campaign: Campaign, blind: _JudgmentRows) -> tuple[_JudgmentRows, dict]:
    """Replace verdicts by each assignment's newest accepted post-discussion revision (one query); say how many changed."""
    newest: dict[int, list] = {}
    for row in (
        CorrectionRequest.objects.filter(
            assignment__campaign_response__campaign=campaign,
            assignment__campaign_response__is_gold=False,
            assignment__status=Assignment.Status.SUBMITTED,
            status=CorrectionRequest.Status.ACCEPTED,
            after_discussion=True,
        )
        .order_by("decided_at", "id")
        .values_list("assignment_id", "proposed", named=True)
    ):
        newest[row.assignment_id] = row.proposed  # later decisions overwrite earlier ones
    revised = [
        (assignment_id, entry["criterion"], int(bool(entry["hit"])))
        for assignment_id, proposed in newest.items()
        for entry in proposed
        if entry.get("hit") is not None
    ]
    rev = _JudgmentRows(*np.array(revised, dtype=np.int64).reshape(-1, 3).T)
    merged, changed = _last_verdict_wins(blind, rev)
    return merged, {"assignments": len(newest), "judgments": len(revised), "changed_verdicts": changed}


def _last_verdict_wins(blind: _JudgmentRows, revised: _JudgmentRows) -> tuple[_JudgmentRows, int]:
    """Blind verdicts with each (assignment, criterion) the revision covers replaced; also how many of those changed."""
    # Sort blind rows and revised rows together by (assignment, criterion), revised last: the last of each pair wins.
    is_revised = np.concatenate([np.zeros(len(blind.assignment), bool), np.ones(len(revised.assignment), bool)])
    assignment, criterion, hit = (np.concatenate([b, r]) for b, r in zip(blind, revised))
    order = np.lexsort((is_revised, criterion, assignment))
    assignment, criterion, hit, is_revised = assignment[order], criterion[order], hit[order], is_revised[order]
    same_as_next = (assignment[1:] == assignment[:-1]) & (criterion[1:] == criterion[:-1])
    last = np.ones(len(assignment), bool)
    last[:-1] = ~same_as_next
    replaced = same_as_next & is_revised[1:] & ~is_revised[:-1]
    changed = replaced & (hit[1:] != hit[:-1])
    return _JudgmentRows(assignment[last], criterion[last], hit[last]), int(changed.sum())


def _place_judgments(rows: _JudgmentRows, assignments: _Assignments, units: _Units, criteria: _Criteria) -> _PlacedJudgments:
    """Put each judgment on its unit with its expert and time; count the ones on no unit (then one query for expert names)."""
    a_pos = _index(rows.assignment, assignments.id)
    a_cr = _index(assignments.cr, units.cr_id)  # each assignment's campaign response, found once per assignment
    j_unit = units.at(a_cr[a_pos], rows.criterion) if len(rows.assignment) else np.zeros(0, np.int64)
    in_units = j_unit >= 0
    excluded = int((~in_units).sum())
    stale = int(np.isin(rows.criterion, criteria.id[criteria.stale]).sum()) if len(rows.assignment) else 0
    # In unit order (the database returns them in no particular order): each statistic that pairs
    # the ratings of a unit reads them in place, and every load of the same judgments is laid out alike.
    on_unit = np.flatnonzero(in_units)
    on_unit = on_unit[np.argsort(j_unit[on_unit], kind="stable")]
    kept = a_pos[on_unit]
    expert_ids = np.unique(assignments.expert)
    names = dict(get_user_model().objects.filter(id__in=expert_ids.tolist()).values_list("id", "username"))
    return _PlacedJudgments(
        unit=j_unit[on_unit],
        expert=_index(assignments.expert[kept], expert_ids),
        hit=rows.hit[on_unit].astype(bool),
        time=assignments.time[kept],
        expert_ids=expert_ids.tolist(),
        expert_names=[names.get(e, str(e)) for e in expert_ids.tolist()],
        stale=stale,
        other_excluded=excluded - stale,
    )


# --- judge verdicts and adjudications -------------------------------------------------------------


class _VerdictRows(NamedTuple):
    """Judge verdicts as parallel arrays; `criterion` is −1 where no criterion of the campaign matches."""

    response: np.ndarray
    criterion: np.ndarray
    hit: np.ndarray
    id: np.ndarray


class _JudgeLabels(NamedTuple):
    per_unit: np.ndarray  # −1 none, 0 miss, 1 hit
    runs: list[dict]
    stale: int  # verdicts on criteria whose meaning changed since
    verdict: np.ndarray  # the JudgeVerdict id per unit, −1 none


def _judge_per_unit(
    campaign: Campaign,
    judge_runs: list[JudgeRun] | None,
    entries: QuerySet[CampaignResponse],
    responses: _CampaignResponses,
    criteria: _Criteria,
    units: _Units,
) -> _JudgeLabels:
    """The judge's verdict on each unit, matched to the campaign's criteria by lineage; stale verdicts are left out."""
    per_unit = np.full(len(units), -1, dtype=np.int8)
    verdict = np.full(len(units), -1, dtype=np.int64)
    if not judge_runs:
        return _JudgeLabels(per_unit, [], 0, verdict)
    run_ids = [r.pk for r in judge_runs]
    if connections[JudgeVerdict.objects.db].vendor == "postgresql":
        # The responses loaded already, as one array (and the runs, a placeholder each no more).
        verdicts = JudgeVerdict.objects.filter(AnyOf("run_id", np.array(run_ids)), AnyOf("response_id", responses.response_id))
    else:
        verdicts = JudgeVerdict.objects.filter(run__in=run_ids, response_id__in=entries.values("response_id"))
    verdicts = verdicts.order_by()
    if all(r.version_id == campaign.version_id for r in judge_runs):
        rows, stale = _verdicts_on_the_campaign_version(verdicts, criteria)
    else:
        rows, stale = _verdicts_by_lineage(verdicts, criteria)
    by_response = np.argsort(responses.response_id)
    r_pos = _index(rows.response, responses.response_id[by_response])
    v_r = np.where(r_pos >= 0, by_response[np.maximum(r_pos, 0)], -1)  # the campaign response's position
    v_unit = units.at(v_r, rows.criterion) if len(rows.response) else np.zeros(0, np.int64)
    ok = v_unit >= 0
    per_unit[v_unit[ok]] = rows.hit[ok]
    verdict[v_unit[ok]] = rows.id[ok]
    runs = [{"id": r.pk, "judge": r.judge, "label": r.label, "model": r.model.name, "version": r.version.label} for r in judge_runs]
    return _JudgeLabels(per_unit, runs, stale, verdict)


def _verdicts_on_the_campaign_version(verdicts: QuerySet[JudgeVerdict], criteria: _Criteria) -> tuple[_VerdictRows, int]:
    """Fresh verdicts when every run is on the campaign's version, and the stale count (one query, two with foreign criteria)."""
    # Staleness is known per criterion already: no join to criteria and lineages per verdict.
    rows = _VerdictRows(*int_rows(verdicts.values_list("response_id", "criterion_id", "hit", "id"), 4).T)
    stale = np.isin(rows.criterion, criteria.id[criteria.stale])
    foreign = np.unique(rows.criterion[~np.isin(rows.criterion, criteria.id)])
    if foreign.size:  # verdicts on criteria outside the campaign's items: ask the database
        foreign_stale = Criterion.objects.filter(id__in=foreign.tolist(), revision__lt=F("lineage__meaning_revision")).values_list(
            "id", flat=True
        )
        stale |= np.isin(rows.criterion, list(foreign_stale))
    fresh = ~stale
    return _VerdictRows(rows.response[fresh], rows.criterion[fresh], rows.hit[fresh], rows.id[fresh]), int(stale.sum())


def _verdicts_by_lineage(verdicts: QuerySet[JudgeVerdict], criteria: _Criteria) -> tuple[_VerdictRows, int]:
    """Fresh verdicts of runs on other versions, mapped to the campaign's criteria by lineage, and the stale count (two queries)."""
    meaning_revision = F("criterion__lineage__meaning_revision")
    stale = verdicts.filter(criterion__revision__lt=meaning_revision).count()
    fresh = list(
        verdicts.exclude(criterion__revision__lt=meaning_revision).values_list("response_id", "criterion__lineage_id", "hit", "id")
    )
    responses, lineages, hits, ids = zip(*fresh) if fresh else ((),) * 4
    crit_of_lineage = {lineage: i for i, lineage in enumerate(criteria.lineage)}
    rows = _VerdictRows(
        response=np.array(responses, dtype=np.int64),
        criterion=np.array(
            [criteria.id[crit_of_lineage[str(key)]] if str(key) in crit_of_lineage else -1 for key in lineages], dtype=np.int64
        ),
        hit=np.array(hits, dtype=np.int64),
        id=np.array(ids, dtype=np.int64),
    )
    return rows, stale


def _adjudications_per_unit(campaign: Campaign, units: _Units) -> tuple[np.ndarray, np.ndarray]:
    """Per unit, the adjudicated label (−1 none, 0, 1) and the decision's id; the newest decision wins (one query)."""
    rows = list(
        Adjudication.objects.filter(campaign_response__campaign=campaign)
        .order_by("decided_at", "id")
        .values_list("id", "campaign_response_id", "criterion_id", "hit")
    )
    labels = np.full(len(units), -1, dtype=np.int8)
    decision = np.full(len(units), -1, dtype=np.int64)
    if rows:
        ids, crs, criterion_ids, hits = (np.array(column, dtype=np.int64) for column in zip(*rows))
        on = units.of(crs, criterion_ids)
        ok = on >= 0
        labels[on[ok]] = hits[ok]  # later rows overwrite earlier ones
        decision[on[ok]] = ids[ok]
    return labels, decision


# --- pages -----------------------------------------------------------------------------------------


def campaigns_with_reports(*, number: str | int | None = None, per_page: int | None = None) -> Page:
    """One page of campaigns, newest first, each with its number of agreement reports and the newest one's id.

    The page's campaigns are found first and only they are counted: counted before the page is
    cut, every campaign's reports were (about ten times the time at a hundred blind tests).
    """
    return page_of_ids(
        Campaign.objects.order_by("-created_at", "-pk").values_list("pk", flat=True),
        number=number,
        per_page=per_page or CAMPAIGNS_PER_PAGE,
        rows=lambda wanted: (
            Campaign.objects.filter(pk__in=wanted)
            .select_related("version__dataset")
            .annotate(report_count=Count("agreement_reports", distinct=True), last_report=Max("agreement_reports__id"))
        ),
    )


def latest_report(campaign: Campaign) -> AgreementReport | None:
    return campaign.agreement_reports.order_by("-created_at", "-id").first()


def ambiguous_lineages(campaign: Campaign) -> set[str]:
    """Lineage keys of the campaign's criteria that experts reported unclear or authors flagged, still open."""
    keys = {
        str(k)
        for k in UnclearCriterionReport.objects.filter(
            assignment__campaign_response__campaign=campaign, resolved_at__isnull=True
        ).values_list("criterion__lineage_id", flat=True)
    }
    from rubrics.models import CriterionFlag

    keys |= {
        str(k)
        for k in CriterionFlag.objects.filter(
            resolved_at__isnull=True, lineage__snapshots__item__version_id=campaign.version_id
        ).values_list("lineage_id", flat=True)
    }
    return keys


def golden_labels_for_export(campaign: Campaign) -> QuerySet[GoldenLabel, tuple[Any, ...]]:
    """Golden labels with what identifies them to an admin, in a stable order."""
    return golden_values(GoldenLabel.objects.filter(campaign=campaign))


def golden_values(labels: QuerySet[GoldenLabel]) -> QuerySet[GoldenLabel, tuple[Any, ...]]:
    """The export's columns of these golden labels, in a stable order."""
    return labels.order_by("campaign_response_id", "criterion__position").values_list(
        "campaign_response__response__public_id",
        "campaign_response__item__question_id",
        "campaign_response__response__model__name",
        "criterion__position",
        "criterion__lineage_id",
        "criterion__revision",
        "hit",
        "provenance",
        "expert_hits",
        "expert_ratings",
        "adjudication__decided_by__username",
        "adjudication__decided_at",
        "adjudication__cause",
        "adjudication__note",
    )


def judgments_for_export(campaign: Campaign) -> QuerySet[Judgment, tuple[Any, ...]]:
    """Submitted judgments of a campaign with rater, response and criterion, for an admin export."""
    return judgment_values(
        Judgment.objects.filter(assignment__campaign_response__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED)
    )


def judgment_values(judgments: QuerySet[Judgment]) -> QuerySet[Judgment, tuple[Any, ...]]:
    """The export's columns of these judgments, in a stable order (response, criterion, rater)."""
    return judgments.order_by("assignment__campaign_response_id", "criterion__position", "assignment__expert__username").values_list(
        "assignment__campaign_response__response__public_id",
        "assignment__campaign_response__item__question_id",
        "assignment__campaign_response__response__model__name",
        "assignment__expert__username",
        "criterion__position",
        "criterion__lineage_id",
        "criterion__revision",
        "hit",
        "rationale",
        "assignment__submitted_at",
    )


def subset_units(data: CampaignArrays, keep: np.ndarray) -> CampaignArrays:
    """The same campaign restricted to the units where `keep` is true (judgments follow their units)."""
    from dataclasses import replace

    keep = np.asarray(keep, bool)
    new_index = np.full(data.n_units, -1, dtype=np.int64)
    new_index[keep] = np.arange(int(keep.sum()))
    j_keep = keep[data.j_unit] if data.j_unit.size else np.zeros(0, bool)
    return replace(
        data,
        u_cr=data.u_cr[keep],
        u_crit=data.u_crit[keep],
        u_judge=data.u_judge[keep],
        u_judge_verdict=data.u_judge_verdict[keep] if data.u_judge_verdict.size else data.u_judge_verdict,
        u_adjudicated=data.u_adjudicated[keep],
        u_adjudication_id=data.u_adjudication_id[keep],
        j_unit=new_index[data.j_unit[j_keep]],
        j_expert=data.j_expert[j_keep],
        j_hit=data.j_hit[j_keep],
        j_time=data.j_time[j_keep],
        excluded={**data.excluded, "catastrophic_units": int((~keep).sum())},
    )


def latest_release_gate(version: DatasetVersion, *, with_counts: bool = True) -> ReleaseGate | None:
    """The release decision of a dataset version: the gate of its newest official (non-exploratory) report.

    Found first, then read with its report's counts (`pairs`, `responses`, `items`; not without
    `with_counts`): read while sorting, the counts were taken out of the JSON of every report of the
    version (0.34 s for a hundred blind tests), and even one report's JSON takes milliseconds.
    """
    newest = (
        ReleaseGate.objects.filter(version=version, report__exploratory=False).order_by("-created_at", "-id").values_list("pk", flat=True)
    ).first()
    if newest is None:
        return None
    gates = (
        ReleaseGate.objects.filter(pk=newest)
        .select_related("report", "campaign", "version__dataset")
        .defer("report__result", "report__inputs")  # the whole report can be large; only its counts are shown
    )
    if with_counts:
        gates = gates.annotate(
            pairs=KeyTextTransform("pairs", "report__result"),
            responses=KeyTextTransform("responses", "report__result"),
            items=KeyTextTransform("items", "report__result"),
            # Where the report's interval says what it resampled: beside the figures up to schema 5, in the typed interval since.
            ci_experts=Coalesce(
                KeyTextTransform("experts", KeyTransform("resampled", "report__result")),
                KeyTextTransform(
                    "experts", KeyTransform("resampled", KeyTransform("ci95", KeyTransform("item_agreement", "report__result")))
                ),
            ),
        )
    return gates.first()


# --- adjudication ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueEntry:
    """One unit a senior reviewer may look at, with the reasons it was flagged and whether it needs a decision."""

    campaign_response_id: int
    criterion_id: int
    expert_hits: int
    expert_ratings: int
    judge_hit: bool | None
    agreement: float = field(metadata={"help_text": "Share of agreeing expert pairs on this unit."})
    triggers: tuple[str, ...]
    needs_decision: bool = field(
        default=True,
        metadata={
            "help_text": "No majority (a tie), or a criterion reported unclear or flagged, and nobody decided it yet. "
            "A 2-of-3 majority and a unanimous verdict the judge contradicts need none."
        },
    )
    decided: bool = field(default=False, metadata={"help_text": "A senior reviewer decided this unit."})
    judge_verdict_id: int | None = None  # where the judge's reason is read (adjudicators only)
    discussion_changed: bool = False  # the stances after the discussion have another majority than the blind verdicts


class QueueCounts(NamedTuple):
    """How many units need a decision, of how many compared (what a reviewer may see)."""

    needs_decision: int
    compared: int


def judged_arrays(campaign: Campaign) -> CampaignArrays:
    """The campaign's arrays with the judge's verdicts when one judge is named by its runs (the queue, the risk checks)."""
    try:
        runs = select_judge_runs(campaign)
    except ValidationError:
        runs = []  # several judges and none chosen: what needs the judge waits for a report to pick one; the rest goes on
    return load_campaign_arrays(campaign, judge_runs=runs)


@dataclass(frozen=True)
class QueueOrder:
    """Every compared unit of a campaign in queue order, as arrays (one entry per listed unit, in order)."""

    cr_id: np.ndarray
    criterion_id: np.ndarray
    expert_hits: np.ndarray
    expert_ratings: np.ndarray
    judge: np.ndarray  # -1: no verdict, else 0/1
    agreement: np.ndarray
    tie: np.ndarray
    split: np.ndarray
    contradicts: np.ndarray
    ambiguous: np.ndarray
    discussion_changed: np.ndarray
    needs_decision: np.ndarray
    decided: np.ndarray
    judge_verdict_id: np.ndarray  # -1: none

    def __len__(self) -> int:
        return len(self.cr_id)

    def triggers(self, i: int) -> tuple[str, ...]:
        """Why the i-th unit is listed, as trigger codes in the queue's order of reasons."""
        trigger = Adjudication.Trigger
        out = []
        if self.tie[i]:
            out.append(trigger.TIE.value)
        elif self.split[i]:
            out.append(trigger.SPLIT.value)
        if self.contradicts[i]:
            out.append(trigger.JUDGE_CONTRADICTS.value)
        if self.ambiguous[i]:
            out.append(trigger.AMBIGUOUS.value)
        if self.discussion_changed[i]:
            out.append(trigger.DISCUSSION_CHANGED.value)
        return tuple(out)

    def entry(self, i: int) -> QueueEntry:
        judge = int(self.judge[i])
        verdict_id = int(self.judge_verdict_id[i])
        return QueueEntry(
            campaign_response_id=int(self.cr_id[i]),
            criterion_id=int(self.criterion_id[i]),
            expert_hits=int(self.expert_hits[i]),
            expert_ratings=int(self.expert_ratings[i]),
            judge_hit=None if judge < 0 else bool(judge),
            agreement=float(self.agreement[i]),
            triggers=self.triggers(i),
            needs_decision=bool(self.needs_decision[i]),
            decided=bool(self.decided[i]),
            judge_verdict_id=verdict_id if verdict_id >= 0 else None,
            discussion_changed=bool(self.discussion_changed[i]),
        )


def queue_order(campaign: Campaign, *, reviewer: Any = None, data: CampaignArrays | None = None) -> QueueOrder:
    """Every compared unit (see `heartbench_core.lib.adjudication`) in queue order, as arrays; see `adjudication_units`."""
    from heartbench_core.lib.adjudication import triage_units

    data = data if data is not None else judged_arrays(campaign)
    hits, ratings = data.unit_counts()
    ambiguous_keys = ambiguous_lineages(campaign)
    amb_crit = np.array([key in ambiguous_keys for key in data.crit_lineage], dtype=bool)
    t = triage_units(
        hits,
        ratings,
        k=required_ratings(data),
        adjudicated=data.u_adjudicated,
        judge=data.u_judge,
        ambiguous_criterion=amb_crit[data.u_crit] if amb_crit.size else np.zeros(data.n_units, bool),
        post_discussion_hits=post_discussion_hits(campaign, data, hits),
    )
    shown = t.compared.copy()
    if reviewer is not None:
        own = list(
            Assignment.objects.filter(campaign_response__campaign=campaign, expert=reviewer).values_list("campaign_response_id", flat=True)
        )
        if own:
            shown &= ~np.isin(data.cr_id[data.u_cr], own)
    idx = np.flatnonzero(shown)
    # A discussion that changed the majority raises its unit to the top; then lowest agreement, judge contradictions first among equals.
    order = np.lexsort((data.u_crit[idx], data.u_cr[idx], ~t.contradicts[idx], t.agreement[idx], ~t.discussion_changed[idx]))
    u = idx[order]
    verdicts = data.u_judge_verdict[u] if data.u_judge_verdict.size else np.full(len(u), -1, dtype=np.int64)
    return QueueOrder(
        cr_id=data.cr_id[data.u_cr[u]],
        criterion_id=data.crit_id[data.u_crit[u]],
        expert_hits=np.asarray(hits)[u],
        expert_ratings=np.asarray(ratings)[u],
        judge=np.asarray(data.u_judge)[u],
        agreement=t.agreement[u],
        tie=t.tie[u],
        split=t.split[u],
        contradicts=t.contradicts[u],
        ambiguous=t.ambiguous[u],
        discussion_changed=t.discussion_changed[u],
        needs_decision=t.needs_decision[u],
        decided=t.decided[u],
        judge_verdict_id=verdicts,
    )


def adjudication_units(campaign: Campaign, *, reviewer: Any = None, data: CampaignArrays | None = None) -> list[QueueEntry]:
    """Every compared unit (see `heartbench_core.lib.adjudication`), lowest expert agreement first.

    Judge contradictions come first among equals. Each entry says whether it needs a decision
    (`needs_decision`) and whether one was made (`decided`). For a given reviewer, the responses
    they rated themselves are left out. Computed from every judgment of the campaign: pages read
    the stored queue instead (`validation.services.queue_summary.stored_queue`).
    """
    ordered = queue_order(campaign, reviewer=reviewer, data=data)
    return [ordered.entry(i) for i in range(len(ordered))]


def post_discussion_hits(campaign: Campaign, data: CampaignArrays, hits: np.ndarray) -> np.ndarray | None:
    """Per unit, the hit stances after the discussion: each rater's vote where they voted, their blind verdict where not (one query).

    Only votes of a unit's own raters count (a vote of someone without a blind judgment of the unit
    changes nothing), and hidden gold checks are left out as everywhere in the golden standard.
    None when nobody voted.
    """
    votes = int_rows(
        DiscussionVote.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=False)
        .order_by()
        .values_list("campaign_response_id", "criterion_id", "voter_id", "hit"),
        4,
    )
    if votes.size == 0:
        return None
    unit = data.unit_index(votes[:, 0], votes[:, 1])
    expert_ids = np.asarray(data.expert_ids, dtype=np.int64)
    expert = _index(votes[:, 2], expert_ids)
    n_experts = max(len(expert_ids), 1)
    # Each (unit, rater)'s blind verdict, found by one sorted key.
    blind_keys = data.j_unit.astype(np.int64) * n_experts + data.j_expert
    order = np.argsort(blind_keys, kind="stable")
    found = np.where((unit >= 0) & (expert >= 0), _index(unit * n_experts + expert, blind_keys[order]), -1)
    ok = found >= 0
    post = np.asarray(hits, dtype=np.int64).copy()
    blind = data.j_hit[order][found[ok]].astype(np.int64)
    np.add.at(post, unit[ok], votes[ok, 3] - blind)
    return post


def queue_counts(entries: list[QueueEntry]) -> QueueCounts:
    """ "N need a decision (of M units compared)" over the entries a reviewer may see."""
    return QueueCounts(sum(1 for e in entries if e.needs_decision), len(entries))


def campaigns_with_judgments() -> QuerySet[Campaign]:
    """Campaigns with submitted judgments (those whose units may need a decision, the blind tests with a golden standard), newest first."""
    submitted = Assignment.objects.filter(campaign_response__campaign=OuterRef("pk"), status=Assignment.Status.SUBMITTED)
    return Campaign.objects.filter(Exists(submitted)).select_related("version__dataset").order_by("-created_at", "-id")


# --- the experts' discussion of a unit, for its adjudicator ---------------------------------------------


@dataclass(frozen=True)
class DiscussionLine:
    rater: int | None = field(  # None: someone who did not rate the response
        metadata={"help_text": "The rater's number (1, 2, … in username order, as on the page); never a name."}
    )
    general: bool = field(metadata={"help_text": "About the response as a whole, not this criterion."})
    body: str
    created_at: datetime


@dataclass(frozen=True)
class RaterStance:
    rater: int
    blind_hit: bool | None = field(metadata={"help_text": "Their submitted (blind) verdict."})
    vote: bool | None = field(metadata={"help_text": "Their vote in the discussion (null: no vote)."})


@dataclass
class UnitDiscussion:
    """What the experts said after independence about one unit: comments, each rater's blind verdict and vote, the tally."""

    lines: list[DiscussionLine]
    stances: list[RaterStance]

    @property
    def votes_hit(self) -> int:
        return sum(1 for s in self.stances if s.vote is True)

    @property
    def votes_miss(self) -> int:
        return sum(1 for s in self.stances if s.vote is False)

    @property
    def post_hits(self) -> int:
        """Hit stances after the discussion: each rater's vote, else their blind verdict (the rule of `triage_units`)."""
        return sum(1 for s in self.stances if (s.vote if s.vote is not None else s.blind_hit))

    @property
    def empty(self) -> bool:
        return not self.lines and not any(s.vote is not None for s in self.stances)


def unit_discussion(entry: CampaignResponse, criterion: Criterion, raters: list[tuple[int, bool | None]]) -> UnitDiscussion:
    """The discussion of a unit for its adjudicator; `raters` are (expert id, blind hit) in the page's order, named by their number (two queries)."""
    number = {expert_id: i for i, (expert_id, _hit) in enumerate(raters, start=1)}
    lines = [
        DiscussionLine(number.get(author_id), criterion_id is None, body, created_at)
        for author_id, criterion_id, body, created_at in DiscussionComment.objects.filter(campaign_response=entry)
        .filter(Q(criterion=criterion) | Q(criterion__isnull=True))
        .order_by("created_at", "id")
        .values_list("author_id", "criterion_id", "body", "created_at")
    ]
    votes = dict(DiscussionVote.objects.filter(campaign_response=entry, criterion=criterion).values_list("voter_id", "hit"))
    stances = [RaterStance(number[expert_id], hit, votes.get(expert_id)) for expert_id, hit in raters]
    return UnitDiscussion(lines=lines, stances=stances)


def adjudication_causes(dataset: Dataset, keys: Collection[str] | None, leave_out: Iterable[int] | None) -> dict[str, Counter[str]]:
    """Per criterion lineage of the dataset, how many decided units give each cause (the newest decision of a unit counts; one query).

    `leave_out` (ModelResponse ids): decisions on these responses are not counted (the responses of
    an open campaign the viewer rates in: a decision on one would tell them about its raters).
    """
    decisions = Adjudication.objects.filter(criterion__lineage__dataset=dataset)
    if keys is not None:
        decisions = decisions.filter(criterion__lineage_id__in=list(keys))
    if leave_out is not None:
        decisions = decisions.exclude(campaign_response__response_id__in=leave_out)
    newest: dict[tuple[int, int], tuple[str, str]] = {}
    for key, entry, criterion, cause in decisions.order_by("decided_at", "id").values_list(
        "criterion__lineage_id", "campaign_response_id", "criterion_id", "cause"
    ):
        newest[(entry, criterion)] = (str(key), cause)  # later decisions of a unit replace earlier ones
    out: dict[str, Counter[str]] = {}
    for lineage, decided_cause in newest.values():
        out.setdefault(lineage, Counter())[decided_cause] += 1
    return out
