"""Reads of the validation app: a campaign's judgments, verdicts and labels as NumPy arrays.

Everything the statistics need is loaded with a handful of `values_list` queries into flat
arrays (no model instances), so a HeartBench-sized campaign loads in a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connections
from django.db.models import Count, F, FloatField, Func, Max, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce

from annotation.models import Assignment, Campaign, CampaignResponse, CorrectionRequest, Judgment, UnclearCriterionReport
from heartbench_core.models import Criterion, Item, JudgeRun, JudgeVerdict, LanguageModel
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
    # judgments (only submitted, non-stale, with a hit value)
    j_unit: np.ndarray
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
    # Post-discussion view only: how many accepted revisions replaced blind verdicts (empty: blind verdicts).
    revisions: dict = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return int(self.u_cr.size)

    def unit_index(self, cr_ids: np.ndarray, criterion_ids: np.ndarray) -> np.ndarray:
        """Unit positions of (campaign response id, criterion id) pairs; −1 where the pair is not a unit."""
        r = _index(cr_ids, self.cr_id)
        by_id = np.argsort(self.crit_id, kind="stable")
        c_pos = _index(criterion_ids, self.crit_id[by_id])
        c = np.where(c_pos >= 0, by_id[np.maximum(c_pos, 0)], -1)
        n_crit = max(len(self.crit_id), 1)
        out = np.full(np.shape(r), -1, dtype=np.int64)
        ok = (r >= 0) & (c >= 0)
        # Units are kept in (response, criterion) order, so their keys are sorted.
        out[ok] = _index(r[ok] * n_crit + c[ok], self.u_cr * n_crit + self.u_crit)
        return out

    def unit_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per unit: (expert hit votes, expert ratings)."""
        hits = np.bincount(self.j_unit, weights=self.j_hit, minlength=self.n_units).astype(np.int64)
        ratings = np.bincount(self.j_unit, minlength=self.n_units).astype(np.int64)
        return hits, ratings


def _index(values, keys):
    """Positions of `values` in the sorted unique array `keys` (−1 where absent)."""
    keys = np.asarray(keys)
    values = np.asarray(values)
    if keys.size == 0:
        return np.full(values.shape, -1, dtype=np.int64)
    pos = np.searchsorted(keys, values)
    pos = np.clip(pos, 0, keys.size - 1)
    return np.where(keys[pos] == values, pos, -1)


def int_rows(queryset, columns: int, dtype=np.int64) -> np.ndarray:
    """An integer `values_list` queryset as a (rows × columns) array, fetched in one go.

    Iterating a queryset fetches 100 rows per round trip through the driver, which costs more
    than the query itself for tens of thousands of rows; fetchall does not. Only for columns the
    driver returns as numbers (no converters run).
    """
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # fromiter over the flattened rows is about twice as fast as np.array on a list of tuples.
    return np.fromiter(chain.from_iterable(rows), dtype=dtype, count=len(rows) * columns).reshape(-1, columns)


def float_rows(queryset, columns: int) -> np.ndarray:
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
    runs = JudgeRun.objects.filter(version__dataset_id=campaign.version.dataset_id, model_id__in=model_ids)
    if judge:
        runs = runs.filter(judge=judge)
    if run:
        runs = runs.filter(label=run)
    runs = list(runs.select_related("model", "version").order_by("model__name", "-version__number", "label"))
    if not judge:
        judges = sorted({r.judge for r in runs})
        if len(judges) > 1:
            raise ValidationError({"judge": f"several judges have verdicts for this campaign; pick one: {', '.join(judges)}"})
    elif not runs:
        wanted = f" run {run!r}" if run else ""
        raise ValidationError({"judge": f"judge {judge!r}{wanted} has no verdicts for the models of campaign {campaign.name!r}"})
    chosen: dict[int, list[JudgeRun]] = {}
    for r in runs:
        chosen.setdefault(r.model_id, []).append(r)
    result = []
    for model_runs in chosen.values():
        same_version = [r for r in model_runs if r.version_id == campaign.version_id] or model_runs
        newest = [r for r in same_version if r.version_id == same_version[0].version_id]
        if len(newest) > 1:
            labels = ", ".join(sorted(r.label for r in newest))
            raise ValidationError({"run": f"judge {newest[0].judge!r} has several runs for model {newest[0].model.name!r} ({labels}); pick one with --run"})
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
    crs = int_rows(entries.order_by("id").values_list("id", "response_id", "item_id", "response__model_id"), 4)
    cr_id, cr_response, cr_item_id, cr_model_id = crs.T
    model_rows = dict(LanguageModel.objects.filter(id__in=entries.values("response__model_id")).values_list("id", "name"))
    model_ids = np.array(sorted(model_rows), dtype=np.int64)
    model_names = [model_rows[m] for m in model_ids.tolist()]

    item_rows = list(
        Item.objects.filter(id__in=entries.values("item_id")).order_by("id").values_list("id", "question_id", "difficulty", "primary_scene")
    )
    item_ids = np.array([r[0] for r in item_rows], dtype=np.int64)

    crit_rows = list(
        Criterion.objects.filter(item_id__in=entries.values("item_id"))
        .order_by("item_id", "position")
        .values_list(
            "id", "item_id", "position", "ability", "weight", "catastrophic", "revision",
            "lineage__meaning_revision", "lineage_id", "text",
        )
    )
    crit_id = np.array([r[0] for r in crit_rows], dtype=np.int64)
    crit_item = _index(np.array([r[1] for r in crit_rows], dtype=np.int64), item_ids)
    crit_stale = np.array([r[6] < r[7] for r in crit_rows], dtype=bool)
    crit_catastrophic = np.array([r[5] for r in crit_rows], dtype=bool)
    excluded_crit = crit_stale | (crit_catastrophic if exclude_catastrophic else False)

    # Units: every non-excluded criterion of every campaign response's item, in (response, criterion) order.
    cr_item = _index(cr_item_id, item_ids)
    per_item = np.bincount(crit_item, minlength=len(item_ids))
    starts = np.concatenate([[0], np.cumsum(per_item)[:-1]]) if len(item_ids) else np.zeros(0, np.int64)
    counts = per_item[cr_item] if len(cr_item) else np.zeros(0, np.int64)
    u_cr = np.repeat(np.arange(len(cr_id)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    u_crit = np.repeat(starts[cr_item], counts) + offsets if len(cr_item) else np.zeros(0, np.int64)
    keep = ~excluded_crit[u_crit] if u_crit.size else np.zeros(0, bool)
    u_cr, u_crit = u_cr[keep].astype(np.int64), u_crit[keep].astype(np.int64)
    # Criterion positions are sorted by id within an item, so crit index order equals id order per response.
    n_crit = max(len(crit_id), 1)
    unit_keys = u_cr * n_crit + u_crit
    order = np.argsort(unit_keys, kind="stable")
    u_cr, u_crit, unit_keys = u_cr[order], u_crit[order], unit_keys[order]
    crit_sorted = np.argsort(crit_id)

    def unit_of(cr_ids: np.ndarray, criterion_ids: np.ndarray) -> np.ndarray:
        r = _index(cr_ids, cr_id)
        c_pos = _index(criterion_ids, crit_id[crit_sorted])
        c = np.where(c_pos >= 0, crit_sorted[np.maximum(c_pos, 0)], -1)
        ok = (r >= 0) & (c >= 0)
        out = np.full(r.shape, -1, dtype=np.int64)
        out[ok] = _index(r[ok] * n_crit + c[ok], unit_keys)
        return out

    submitted = Assignment.objects.filter(
        campaign_response__campaign=campaign, campaign_response__is_gold=False, status=Assignment.Status.SUBMITTED
    ).order_by("id")
    if connections[submitted.db].vendor == "postgresql":
        # Parsing thousands of timestamps in Python costs more than the query; PostgreSQL gives the
        # same POSIX seconds (microseconds exact, correctly rounded to a double, as timestamp() does).
        arows = float_rows(
            submitted.annotate(epoch=Coalesce(EpochSeconds("submitted_at"), Value(0.0))).values_list(
                "id", "campaign_response_id", "expert_id", "epoch"
            ),
            4,
        )
        a_id, a_cr, a_expert = arows[:, :3].astype(np.int64).T
        a_time = arows[:, 3].copy()
    else:
        assignments = list(submitted.values_list("id", "campaign_response_id", "expert_id", "submitted_at"))
        a_id = np.array([a[0] for a in assignments], dtype=np.int64)
        a_cr = np.array([a[1] for a in assignments], dtype=np.int64)
        a_expert = np.array([a[2] for a in assignments], dtype=np.int64)
        a_time = np.array([a[3].timestamp() if a[3] else 0.0 for a in assignments], dtype=np.float64)

    jrows = int_rows(
        Judgment.objects.filter(
            assignment__campaign_response__campaign=campaign,
            assignment__campaign_response__is_gold=False,
            assignment__status=Assignment.Status.SUBMITTED,
            hit__isnull=False,
        ).order_by().values_list("assignment_id", "criterion_id", "hit"),
        3,
    )
    revisions: dict = {}
    if post_discussion:
        newest: dict[int, list] = {}
        for assignment_id, proposed in (
            CorrectionRequest.objects.filter(
                assignment__campaign_response__campaign=campaign,
                assignment__campaign_response__is_gold=False,
                assignment__status=Assignment.Status.SUBMITTED,
                status=CorrectionRequest.Status.ACCEPTED,
                after_discussion=True,
            )
            .order_by("decided_at", "id")
            .values_list("assignment_id", "proposed")
        ):
            newest[assignment_id] = proposed  # later decisions overwrite earlier ones
        rev = np.array(
            [(a, row["criterion"], int(bool(row["hit"]))) for a, rows in newest.items() for row in rows if row.get("hit") is not None],
            dtype=np.int64,
        ).reshape(-1, 3)
        # Sort blind rows and revised rows together by (assignment, criterion), revised last: the last of each pair wins.
        both = np.concatenate([jrows.reshape(-1, 3), rev])
        revised = np.concatenate([np.zeros(len(jrows), bool), np.ones(len(rev), bool)])
        order = np.lexsort((revised, both[:, 1], both[:, 0]))
        both, revised = both[order], revised[order]
        same_as_next = (both[1:, 0] == both[:-1, 0]) & (both[1:, 1] == both[:-1, 1])
        last = np.ones(len(both), bool)
        last[:-1] = ~same_as_next
        replaced = np.zeros(len(both), bool)
        replaced[1:] = same_as_next & revised[1:] & ~revised[:-1]
        changed = np.zeros(len(both), bool)
        changed[1:] = replaced[1:] & (both[1:, 2] != both[:-1, 2])
        jrows = both[last]
        revisions = {"assignments": len(newest), "judgments": int(len(rev)), "changed_verdicts": int(changed.sum())}
    a_pos = _index(jrows[:, 0], a_id)
    j_unit = unit_of(a_cr[a_pos], jrows[:, 1]) if len(jrows) else np.zeros(0, np.int64)
    in_units = j_unit >= 0
    excluded_judgments = int((~in_units).sum())
    stale_ids = crit_id[crit_stale]
    stale_judgments = int(np.isin(jrows[:, 1], stale_ids).sum()) if len(jrows) else 0
    j_unit, a_pos_kept, j_hit = j_unit[in_units], a_pos[in_units], jrows[in_units, 2].astype(bool)
    expert_ids = np.unique(a_expert)
    names = dict(get_user_model().objects.filter(id__in=expert_ids.tolist()).values_list("id", "username"))
    j_expert = _index(a_expert[a_pos_kept], expert_ids)
    j_time = a_time[a_pos_kept]

    # Judge verdicts, matched to the campaign's criteria by lineage; stale verdicts are excluded.
    u_judge = np.full(len(unit_keys), -1, dtype=np.int8)
    runs_info = []
    stale_verdicts = 0
    if judge_runs:
        lineage_to_crit = {str(r[8]): i for i, r in enumerate(crit_rows)}
        vq = JudgeVerdict.objects.filter(run__in=[r.pk for r in judge_runs], response_id__in=entries.values("response_id")).order_by()
        same_version = all(r.version_id == campaign.version_id for r in judge_runs)
        if same_version:
            # Staleness is known per criterion already: no join to criteria and lineages per verdict.
            vrows = int_rows(vq.values_list("response_id", "criterion_id", "hit"), 3)
            v_crit = vrows[:, 1]
            v_stale = np.isin(v_crit, crit_id[crit_stale])
            foreign = np.unique(v_crit[~np.isin(v_crit, crit_id)])
            if foreign.size:  # verdicts on criteria outside the campaign's items: ask the database
                foreign_stale = Criterion.objects.filter(
                    id__in=foreign.tolist(), revision__lt=F("lineage__meaning_revision")
                ).values_list("id", flat=True)
                v_stale |= np.isin(v_crit, list(foreign_stale))
            stale_verdicts = int(v_stale.sum())
            vrows, v_crit = vrows[~v_stale], v_crit[~v_stale]
        else:
            stale_verdicts = vq.filter(criterion__revision__lt=F("criterion__lineage__meaning_revision")).count()
            raw = list(
                vq.exclude(criterion__revision__lt=F("criterion__lineage__meaning_revision")).values_list(
                    "response_id", "criterion__lineage_id", "hit"
                )
            )
            vrows = np.array([(r[0], 0, r[2]) for r in raw], dtype=np.int64).reshape(-1, 3)
            v_crit = np.array(
                [crit_id[lineage_to_crit[str(r[1])]] if str(r[1]) in lineage_to_crit else -1 for r in raw], dtype=np.int64
            )
        resp_order = np.argsort(cr_response)
        r_pos = _index(vrows[:, 0], cr_response[resp_order])
        v_cr = np.where(r_pos >= 0, cr_id[resp_order][np.maximum(r_pos, 0)], -1)
        v_unit = unit_of(v_cr, v_crit) if len(vrows) else np.zeros(0, np.int64)
        ok = v_unit >= 0
        u_judge[v_unit[ok]] = vrows[ok, 2]
        runs_info = [
            {"id": r.pk, "judge": r.judge, "label": r.label, "model": r.model.name, "version": r.version.label}
            for r in judge_runs
        ]

    # Adjudications: the newest decision per unit wins.
    adj = list(
        Adjudication.objects.filter(campaign_response__campaign=campaign)
        .order_by("decided_at", "id")
        .values_list("id", "campaign_response_id", "criterion_id", "hit")
    )
    u_adjudicated = np.full(len(unit_keys), -1, dtype=np.int8)
    u_adjudication_id = np.full(len(unit_keys), -1, dtype=np.int64)
    if adj:
        arr = np.array(adj, dtype=np.int64)
        units = unit_of(arr[:, 1], arr[:, 2])
        ok = units >= 0
        u_adjudicated[units[ok]] = arr[ok, 3]  # later rows overwrite earlier ones
        u_adjudication_id[units[ok]] = arr[ok, 0]

    return CampaignArrays(
        campaign_id=campaign.pk,
        k=int(campaign.overlap),
        cr_id=cr_id,
        cr_model=_index(cr_model_id, model_ids),
        cr_item=cr_item,
        model_names=model_names,
        item_question=[r[1] for r in item_rows],
        item_difficulty=[r[2] or "unspecified" for r in item_rows],
        item_scene=[r[3] or "(none)" for r in item_rows],
        crit_id=crit_id,
        crit_ability=[r[3] for r in crit_rows],
        crit_weight=np.array([np.nan if r[4] is None else r[4] for r in crit_rows], dtype=np.float64),
        crit_catastrophic=crit_catastrophic,
        crit_stale=crit_stale,
        crit_revision=np.array([r[6] for r in crit_rows], dtype=np.int64),
        crit_lineage=[str(r[8]) for r in crit_rows],
        crit_position=np.array([r[2] for r in crit_rows], dtype=np.int64),
        crit_item=crit_item,
        crit_text=[r[9] for r in crit_rows],
        u_cr=u_cr,
        u_crit=u_crit,
        j_unit=j_unit,
        j_expert=j_expert,
        j_hit=j_hit,
        j_time=j_time,
        expert_ids=expert_ids.tolist(),
        expert_names=[names.get(e, str(e)) for e in expert_ids.tolist()],
        u_judge=u_judge,
        u_adjudicated=u_adjudicated,
        u_adjudication_id=u_adjudication_id,
        judge_runs=runs_info,
        revisions=revisions,
        excluded={
            "stale_judgments": stale_judgments,
            "other_excluded_judgments": excluded_judgments - stale_judgments,
            "stale_verdicts": stale_verdicts,
            "stale_criteria": int(crit_stale.sum()),
            "catastrophic_criteria": int(crit_catastrophic.sum()) if exclude_catastrophic else 0,
        },
    )


# --- pages -----------------------------------------------------------------------------------------


def campaigns_with_reports():
    """Blind-test campaigns with their newest report id and golden-label count."""
    return (
        Campaign.objects.select_related("version__dataset")
        .annotate(report_count=Count("agreement_reports", distinct=True), last_report=Max("agreement_reports__id"))
        .order_by("-created_at")
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
    try:
        from rubrics.models import CriterionFlag
    except ImportError:  # pragma: no cover - the rubrics app is always installed
        return keys
    keys |= {
        str(k)
        for k in CriterionFlag.objects.filter(
            resolved_at__isnull=True, lineage__snapshots__item__version_id=campaign.version_id
        ).values_list("lineage_id", flat=True)
    }
    return keys


def golden_labels_for_export(campaign: Campaign):
    """Golden labels with what identifies them to an admin, in a stable order."""
    return (
        GoldenLabel.objects.filter(campaign=campaign)
        .order_by("campaign_response_id", "criterion__position")
        .values_list(
            "campaign_response__response__public_id", "campaign_response__item__question_id",
            "campaign_response__response__model__name", "criterion__position", "criterion__lineage_id",
            "criterion__revision", "hit", "provenance", "expert_hits", "expert_ratings",
            "adjudication__decided_by__username", "adjudication__decided_at", "adjudication__cause", "adjudication__note",
        )
    )


def judgments_for_export(campaign: Campaign):
    """Submitted judgments of a campaign with rater, response and criterion, for an admin export."""
    return (
        Judgment.objects.filter(assignment__campaign_response__campaign=campaign, assignment__status=Assignment.Status.SUBMITTED)
        .order_by("assignment__campaign_response_id", "criterion__position", "assignment__expert__username")
        .values_list(
            "assignment__campaign_response__response__public_id", "assignment__campaign_response__item__question_id",
            "assignment__campaign_response__response__model__name", "assignment__expert__username",
            "criterion__position", "criterion__lineage_id", "criterion__revision", "hit", "rationale",
            "assignment__submitted_at",
        )
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
        u_adjudicated=data.u_adjudicated[keep],
        u_adjudication_id=data.u_adjudication_id[keep],
        j_unit=new_index[data.j_unit[j_keep]],
        j_expert=data.j_expert[j_keep],
        j_hit=data.j_hit[j_keep],
        j_time=data.j_time[j_keep],
        excluded={**data.excluded, "catastrophic_units": int((~keep).sum())},
    )


def latest_release_gate(version) -> ReleaseGate | None:
    """The release decision of a dataset version: the gate of its newest official (non-exploratory) report."""
    return (
        ReleaseGate.objects.filter(version=version, report__exploratory=False)
        .select_related("report", "campaign", "version__dataset")
        .defer("report__result", "report__inputs")  # the whole report can be large; only its counts are shown
        .annotate(
            pairs=KeyTextTransform("pairs", "report__result"),
            responses=KeyTextTransform("responses", "report__result"),
            items=KeyTextTransform("items", "report__result"),
        )
        .order_by("-created_at", "-id")
        .first()
    )
