"""The agreement report's computation as it was before the report was made flat at 100×: the oracle the new one must equal.

A frozen copy of `compute_report` and its helpers (from `heartbench_core.lib.agreement_report`, with
the statistics of `heartbench_core.lib.agreement` copied beside it in `statistics.py`); the typed
result it builds is the live module's, so both serialise through the same `to_dict`. Not a test
module: tests compare the live implementation with it, figure for figure.
"""
# ruff: noqa

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import sparse

from heartbench_core.lib import scoring
from heartbench_core.lib.agreement_report import (
    CATASTROPHIC_LABEL,
    DEFAULTS,
    DRIFT_DROP,
    DRIFT_MIN_PAIRS,
    MAX_TIME_POINTS,
    NO_CRITERION_INTERVAL,
    NO_RESAMPLES,
    NOT_RECORDED,
    PROVENANCE_ADJUDICATED,
    PROVENANCE_MAJORITY,
    PROVENANCE_NAMES,
    PROVENANCE_NONE,
    PROVENANCE_UNANIMOUS,
    Alert,
    Confusion,
    CriterionRow,
    ExpertOverlap,
    ExpertPair,
    ExpertRow,
    Figure,
    Gate,
    GatePolicy,
    GoldProvenance,
    GroupRow,
    Interval,
    ItemAgreement,
    JudgeExpertBaseline,
    McNemar,
    ModelScore,
    Parameters,
    ReportData,
    ReportResult,
    Resampling,
    ScoreImpact,
    TimePoint,
    UnitCounts,
)
from heartbench_core.lib.taxonomy import ABILITY_BY_LABEL, ABILITY_LABELS, DIMENSIONS, english_name

from . import statistics as st


def golden_standard(hits: np.ndarray, ratings: np.ndarray, k: int, adjudicated: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(label −1/0/1, provenance code, tie) per unit: the strict majority of k ratings, overridden by adjudication."""
    label, unanimous, tie = st.majority_labels(hits, ratings, st.MajorityRule(min_ratings=k))
    provenance = np.where(label >= 0, np.where(unanimous, PROVENANCE_UNANIMOUS, PROVENANCE_MAJORITY), PROVENANCE_NONE)
    adjudicated = np.asarray(adjudicated)
    decided = adjudicated >= 0
    label = np.where(decided, adjudicated, label).astype(np.int8)
    provenance = np.where(decided, PROVENANCE_ADJUDICATED, provenance).astype(np.int8)
    return label, provenance, tie & ~decided


def two_rater_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> dict[str, np.ndarray]:
    """Vectorised agreement rate, Cohen's kappa, Gwet's AC1 and hit rates from 2×2 counts (NaN where undefined)."""
    tp, fp, fn, tn = (np.asarray(x, np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        po = (tp + tn) / n
        pj = (tp + fp) / n
        pg = (tp + fn) / n
        pe_k = pj * pg + (1 - pj) * (1 - pg)
        kappa = np.where(pe_k < 1, (po - pe_k) / (1 - pe_k), np.nan)
        pi = (pj + pg) / 2
        pe_a = 2 * pi * (1 - pi)
        ac1 = (po - pe_a) / (1 - pe_a)
    return {"rate": po, "kappa": kappa, "ac1": ac1, "judge_hit_rate": pj, "human_hit_rate": pg}


def _rounded(values: np.ndarray) -> list:
    """Round to 12 places and turn NaN into None, for a whole column at once."""
    values = np.round(np.asarray(values, dtype=np.float64), 12)
    return [None if v != v else v for v in values.tolist()]


def _num(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else float(round(float(x), 12))


class _Groups:
    """Integer codes for a per-unit grouping, with the names of the groups."""

    def __init__(self, codes: np.ndarray, names: list[str], labels: list[str] | None = None) -> None:
        self.codes = np.asarray(codes, np.intp)
        self.names = names
        self.labels = labels or names

    @classmethod
    def from_values(
        cls, values: list[str], index: np.ndarray, order: list[str] | None = None, label: Callable[[str], str] | None = None
    ) -> _Groups:
        """Groups of units by `values[index[u]]` (values per criterion or per item, index per unit)."""
        index = np.asarray(index, np.intp)
        used = sorted({values[i] for i in np.unique(index).tolist()}) if index.size else []
        uniq = [u for u in dict.fromkeys(order or []) if u in set(used)] + [u for u in used if u not in set(order or [])]
        lookup = {u: i for i, u in enumerate(uniq)}
        per_value = np.array([lookup.get(v, -1) for v in values], dtype=np.intp)
        return cls(per_value[index] if index.size else np.zeros(0, np.intp), uniq, [label(u) if label else u for u in uniq])


@dataclass(frozen=True)
class _Compared:
    """The judge–gold pairs of a campaign: what the report and the alignment page compute every figure from."""

    hits: np.ndarray
    ratings: np.ndarray
    label: np.ndarray
    provenance: np.ndarray
    tie: np.ndarray
    judge: np.ndarray
    both: np.ndarray  # units with a judge verdict and a golden label
    jv: np.ndarray
    gv: np.ndarray
    clusters: np.ndarray
    item_of_unit: np.ndarray
    items: np.ndarray  # the item of each compared unit
    n_items: int
    draws: list[np.ndarray] | None
    rate: Figure
    ci95: Interval


def _compared(data: ReportData, *, resamples: int, seed: int) -> _Compared:
    """Golden labels, judge verdicts, their pairs, and the headline agreement with its interval over items."""
    hits, ratings = data.unit_counts()
    label, provenance, tie = golden_standard(hits, ratings, data.k, data.u_adjudicated)
    judge = data.u_judge
    both = (label >= 0) & (judge >= 0)
    jv, gv = judge[both] == 1, label[both] == 1
    clusters = data.u_cr[both]
    # The statistical unit of every interval is the item (question): each sampled item is
    # answered by every model, so its responses share the item's and its criteria's effects on
    # agreement and are not independent (docs/validation.md, "What is resampled").
    item_of_unit = data.cr_item[data.u_cr]
    items = item_of_unit[both]
    n_items = int(np.unique(items).size)
    rate = Figure.of(st.item_agreement_rate(jv, gv))
    # One set of draws over the items serves the headline, every breakdown and the baseline.
    draws = st.cluster_draws(n_items, resamples, seed)
    headline = st.clustered_mean_ci(jv == gv, items, resamples=resamples, seed=seed, weights=draws)
    pair = headline.pair()
    ci95 = Interval.from_pair(
        pair,
        resampled=_resampling(headline.resampled()),
        reason=None if pair else (st.NO_PAIRS if not both.any() else headline.group_reason()),
    )
    return _Compared(hits, ratings, label, provenance, tie, judge, both, jv, gv, clusters, item_of_unit, items, n_items, draws, rate, ci95)


def _ability_groups(data: ReportData) -> _Groups:
    return _Groups.from_values(list(data.crit_ability), data.u_crit, order=[*ABILITY_LABELS, CATASTROPHIC_LABEL], label=english_name)


@dataclass(frozen=True)
class JudgeAlignment:
    """One judge's agreement with a campaign's golden standard: the figures the alignment page compares across judge versions.

    Computed exactly as the agreement report computes them (same pairs, same item resampling).
    """

    pairs: int  # judge–gold pairs compared
    responses: int
    items: int
    units_with_judge: int
    units_with_gold: int
    item_agreement: ItemAgreement
    cohen_kappa: Figure
    gwet_ac1: Figure
    judge_hit_rate: Figure
    human_hit_rate: Figure
    by_ability: tuple[GroupRow, ...]


def judge_alignment(data: ReportData, *, resamples: int = DEFAULTS.resamples, seed: int = DEFAULTS.seed) -> JudgeAlignment:
    """The headline and per-ability judge–gold agreement of one judge on one campaign (intervals resample items)."""
    c = _compared(data, resamples=resamples, seed=seed)
    by_ability = _breakdown(
        _ability_groups(data), c.both, c.jv, c.gv, c.hits, c.ratings, data.u_cr, c.items, resamples=resamples, seed=seed, draws=c.draws
    )
    no_pairs = st.Stat.undefined(0, st.NO_PAIRS)
    return JudgeAlignment(
        pairs=int(c.both.sum()),
        responses=int(np.unique(c.clusters).size),
        items=c.n_items,
        units_with_judge=int((c.judge >= 0).sum()),
        units_with_gold=int((c.label >= 0).sum()),
        item_agreement=ItemAgreement(c.rate, c.ci95),
        cohen_kappa=Figure.of(st.cohen_kappa(c.jv, c.gv)),
        gwet_ac1=Figure.of(st.gwet_ac1(c.jv, c.gv)),
        judge_hit_rate=Figure.of(st.hit_rate(c.jv) if c.jv.size else no_pairs),
        human_hit_rate=Figure.of(st.hit_rate(c.gv) if c.gv.size else no_pairs),
        by_ability=by_ability,
    )


NO_COMMON_PAIRS = "no unit has a golden label and a verdict of both judges"


@dataclass(frozen=True)
class AgreementChange:
    """How much one judge's agreement with the golden standard moved from another's, on the units both judged."""

    difference: Figure  # agreement of `current` minus that of `previous`, on the common pairs (n)
    ci95: Interval  # resamples items
    previous_rate: Figure
    current_rate: Figure


def agreement_change(
    previous: ReportData, current: ReportData, *, resamples: int = DEFAULTS.resamples, seed: int = DEFAULTS.seed
) -> AgreementChange:
    """Paired change in judge–gold agreement between two judges on one campaign (same units), resampling items."""
    if previous.n_units != current.n_units or not np.array_equal(previous.u_crit, current.u_crit):
        raise ValueError("both judges must be compared on the same campaign's units")
    hits, ratings = previous.unit_counts()
    label, _provenance, _tie = golden_standard(hits, ratings, previous.k, previous.u_adjudicated)
    common = (label >= 0) & (previous.u_judge >= 0) & (current.u_judge >= 0)
    gold = label[common] == 1
    before = (previous.u_judge[common] == 1) == gold
    after = (current.u_judge[common] == 1) == gold
    items = previous.cr_item[previous.u_cr][common]
    n = int(common.sum())
    if not n:
        undefined = Figure(None, 0, NO_COMMON_PAIRS)
        return AgreementChange(undefined, Interval(None, None, Resampling("item", 0, resamples), NO_COMMON_PAIRS), undefined, undefined)
    ci = st.clustered_mean_ci(after.astype(np.float64) - before, items, resamples=resamples, seed=seed, proportion=False)
    pair = ci.pair()
    return AgreementChange(
        difference=Figure(_num(float(after.mean() - before.mean())), n),
        ci95=Interval.from_pair(pair, resampled=_resampling(ci.resampled()), reason=None if pair else ci.group_reason()),
        previous_rate=Figure.of(st.item_agreement_rate(previous.u_judge[common] == 1, gold)),
        current_rate=Figure.of(st.item_agreement_rate(current.u_judge[common] == 1, gold)),
    )


def compute_report(
    data: ReportData,
    *,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
    threshold: float = DEFAULTS.threshold,
    min_pairs_per_dimension: int = DEFAULTS.min_pairs_per_dimension,
    gate_policy: GatePolicy | None = None,
) -> ReportResult:
    """Every statistic of the agreement report for one campaign (and judge)."""
    c = _compared(data, resamples=resamples, seed=seed)
    hits, ratings, label, provenance, tie, judge = c.hits, c.ratings, c.label, c.provenance, c.tie, c.judge
    both, jv, gv, clusters, item_of_unit, items, n_items, draws = (
        c.both,
        c.jv,
        c.gv,
        c.clusters,
        c.item_of_unit,
        c.items,
        c.n_items,
        c.draws,
    )
    rate, ci95 = c.rate, c.ci95
    confusion = st.confusion(jv, gv)
    mcnemar = st.mcnemar_exact(jv, gv)
    judged = judge >= 0
    complete = ratings >= max(data.k, 1)

    # Breakdowns.
    crit_dim = [dimension_label(a) for a in data.crit_ability]
    groups = {
        "by_ability": _ability_groups(data),
        "by_dimension": _Groups.from_values(crit_dim, data.u_crit, order=[*DIMENSIONS, "Catastrophic"]),
        "by_model": _Groups(data.cr_model[data.u_cr], list(data.model_names)),
        "by_difficulty": _Groups.from_values(list(data.item_difficulty), item_of_unit, order=["hard", "normal"]),
        "by_primary_scene": _Groups.from_values(list(data.item_scene), item_of_unit),
    }
    rows = {
        name: _breakdown(g, both, jv, gv, hits, ratings, data.u_cr, items, resamples=resamples, seed=seed, draws=draws)
        for name, g in groups.items()
    }
    crit_groups = _Groups(data.u_crit, [str(i) for i in range(len(data.crit_id))])
    by_criterion = _breakdown(crit_groups, both, jv, gv, hits, ratings, data.u_cr, items, resamples=0, seed=seed, criteria=data)
    by_expert, expert_pairs = _by_expert(data, label)
    policy = gate_policy or GatePolicy(threshold=threshold, min_pairs_per_dimension=min_pairs_per_dimension)
    item_agreement = ItemAgreement(rate, ci95)
    gate = _gate(item_agreement, by_dimension=rows["by_dimension"], by_ability=rows["by_ability"], policy=policy)
    return ReportResult(
        pairs=int(both.sum()),
        responses=int(np.unique(clusters).size),
        items=n_items,
        item_agreement=item_agreement,
        cohen_kappa=Figure.of(st.cohen_kappa(jv, gv)),
        gwet_ac1=Figure.of(st.gwet_ac1(jv, gv)),
        judge_hit_rate=Figure.of(st.hit_rate(jv) if jv.size else st.Stat.undefined(0, st.NO_PAIRS)),
        human_hit_rate=Figure.of(st.hit_rate(gv) if gv.size else st.Stat.undefined(0, st.NO_PAIRS)),
        confusion=Confusion(**confusion),
        mcnemar=McNemar(Figure.of(mcnemar), int(mcnemar.extra.get("discordant", 0)), confusion["fp"], confusion["fn"]),
        krippendorff_alpha=Figure.of(st.krippendorff_alpha_nominal(hits, ratings)),
        fleiss_kappa=Figure.of(st.fleiss_kappa(hits, ratings, data.k)),
        pairwise_percent_agreement=Figure.of(st.pairwise_percent_agreement(hits, ratings)),
        judge_expert_baseline=_baseline(
            st.judge_expert_baseline(
                hits[judged], ratings[judged], judge[judged] == 1, item_of_unit[judged], resamples=resamples, seed=seed, weights=draws
            )
        ),
        gold_provenance=GoldProvenance(**{name: int((provenance == code).sum()) for code, name in PROVENANCE_NAMES.items()}),
        units=UnitCounts(
            total=data.n_units,
            rated=int((ratings > 0).sum()),
            complete=int(complete.sum()),
            with_golden_label=int((label >= 0).sum()),
            ties=int(tie.sum()),
            incomplete=int(((ratings > 0) & ~complete & (provenance == PROVENANCE_NONE)).sum()),
            with_judge_verdict=int(judged.sum()),
            judgments=int(data.j_unit.size),
            experts=len(data.expert_ids),
        ),
        excluded={str(k): int(v) for k, v in data.excluded.items()},
        by_ability=rows["by_ability"],
        by_dimension=rows["by_dimension"],
        by_model=rows["by_model"],
        by_difficulty=rows["by_difficulty"],
        by_primary_scene=rows["by_primary_scene"],
        by_criterion=by_criterion,  # type: ignore[arg-type]  # criteria= makes every row a CriterionRow
        by_expert=by_expert,
        expert_pairs=expert_pairs,
        over_time=_over_time(data, judge),
        score_impact=_score_impact(data, label, judge),
        gate=gate,
        alerts=_alerts(item_agreement, by_expert=by_expert, by_criterion=by_criterion, by_model=rows["by_model"], data=data),
        parameters=Parameters(
            resamples=resamples,
            seed=seed,
            threshold=policy.threshold,
            min_pairs_per_dimension=policy.min_pairs_per_dimension,
            min_pairs_per_ability=policy.min_pairs_per_ability,
            must_clear=policy.must_clear,
        ),
    )


def dimension_label(label: str) -> str:
    """The dimension a criterion's label belongs to: "Catastrophic" for 其他, "Other" outside the taxonomy."""
    if label == CATASTROPHIC_LABEL:
        return "Catastrophic"
    ability = ABILITY_BY_LABEL.get(label)
    return ability.dimension if ability else "Other"


def _resampling(block: dict[str, Any]) -> Resampling:
    return Resampling(
        block["unit"], int(block["units"]), int(block["resamples"]), block["level"], block["method"], block.get("effective_n")
    )


def _baseline(out: dict[str, Any]) -> JudgeExpertBaseline:
    """The typed judge-vs-expert baseline of `agreement.judge_expert_baseline`."""
    reason = out.get("reason")
    je, ee = out["judge_expert"], out["expert_expert"]
    diff_ci = out["difference_ci95"]
    return JudgeExpertBaseline(
        units=int(out["units"]),
        judge_expert=Figure.stored(je["value"], je["n"], je.get("reason")),
        judge_expert_pairs=int(je.get("pairs", 0)),
        expert_expert=Figure.stored(ee["value"], ee["n"], ee.get("reason")),
        expert_expert_pairs=int(ee.get("pairs", 0)),
        difference=Figure.stored(out["difference"], int(out["units"]), reason),
        difference_ci95=Interval.from_pair(diff_ci, resampled=_resampling(out["resampled"]), reason=None if diff_ci else reason),
    )


# Why a figure of a breakdown row is undefined.
NO_KAPPA = "judge and golden standard gave every pair the same value: kappa is 0/0"
NO_ALPHA_UNITS = "no unit rated by two or more experts"
NO_ALPHA_VARIATION = "every rating has the same value: alpha is 0/0"


def _alpha_reason(units: int | None) -> str:
    if units is None:
        return NOT_RECORDED
    return NO_ALPHA_UNITS if not units else NO_ALPHA_VARIATION


def _breakdown(
    groups: _Groups,
    both: np.ndarray,
    jv: np.ndarray,
    gv: np.ndarray,
    hits: np.ndarray,
    ratings: np.ndarray,
    u_cr: np.ndarray,
    items: np.ndarray,
    *,
    resamples: int,
    seed: int,
    draws: list[np.ndarray] | None = None,
    criteria: ReportData | None = None,
) -> tuple[GroupRow, ...]:
    """One row per group; its interval resamples items (`items`: the item of each compared unit) with the report's draws.

    With `criteria` (the report's data), the groups are its criteria and the rows `CriterionRow`s, without intervals.
    """
    g_all = groups.codes
    n_groups = len(groups.names)
    g = g_all[both]
    tp = np.bincount(g, weights=jv & gv, minlength=n_groups)
    fp = np.bincount(g, weights=jv & ~gv, minlength=n_groups)
    fn = np.bincount(g, weights=~jv & gv, minlength=n_groups)
    tn = np.bincount(g, weights=~jv & ~gv, minlength=n_groups)
    pairs = (tp + fp + fn + tn).astype(np.int64)
    figures = two_rater_from_counts(tp, fp, fn, tn)
    clusters = u_cr[both]
    cell = np.unique(clusters.astype(np.int64) * n_groups + g)
    responses = np.bincount(cell % n_groups, minlength=n_groups)
    item_cell = np.unique(np.asarray(items, np.int64) * n_groups + g)
    items_per_group = np.bincount(item_cell % n_groups, minlength=n_groups)
    alpha, alpha_units, alpha_ratings = st.binary_alpha_by_group(hits, ratings, g_all, n_groups)
    ci = None
    if resamples > 0 and pairs.sum() > 0:
        ci = st.clustered_mean_ci(jv == gv, items, g, n_groups, resamples=resamples, seed=seed, weights=draws)
        low, high = ci.low, ci.high
    else:
        low = high = np.full(n_groups, np.nan)
    rate, kappa, ac1, jhr, hhr, alpha_l = (
        _rounded(x)
        for x in (figures["rate"], figures["kappa"], figures["ac1"], figures["judge_hit_rate"], figures["human_hit_rate"], alpha)
    )
    low_l, high_l = low.tolist(), high.tolist()
    pairs_l, responses_l, units_l, ratings_l = pairs.tolist(), responses.tolist(), alpha_units.tolist(), alpha_ratings.tolist()
    items_l = items_per_group.tolist()
    rows: list[GroupRow] = []
    no_pairs = Figure(None, 0, st.NO_PAIRS)  # frozen: one instance serves every group without pairs
    for i, (key, shown) in enumerate(zip(groups.names, groups.labels)):
        n = pairs_l[i]
        if n > 0:  # on pairs the rates are defined; kappa is undefined when judge and gold are one constant
            kappa_f = Figure(kappa[i], n, None if kappa[i] is not None else NO_KAPPA)
            rate_f, ac1_f, jhr_f, hhr_f = Figure(rate[i], n), Figure(ac1[i], n), Figure(jhr[i], n), Figure(hhr[i], n)
        else:
            rate_f = kappa_f = ac1_f = jhr_f = hhr_f = no_pairs
        alpha_fig = Figure(alpha_l[i], units_l[i], None if alpha_l[i] is not None else _alpha_reason(units_l[i]))
        if criteria is not None:
            c = int(key)
            question = criteria.item_question[criteria.crit_item[c]]
            position = int(criteria.crit_position[c])
            interval = _criterion_interval(items_l[i])
            rows.append(
                CriterionRow(
                    criteria.crit_lineage[c],
                    f"{question} #{position + 1}",
                    n,
                    responses_l[i],
                    items_l[i],
                    ItemAgreement(rate_f, interval),
                    kappa_f,
                    ac1_f,
                    jhr_f,
                    hhr_f,
                    alpha_fig,
                    ratings_l[i],
                    question_id=question,
                    position=position,
                    ability=criteria.crit_ability[c],
                )
            )
            continue
        pair = st.ci_pair(low_l[i], high_l[i]) if items_l[i] >= 2 else None
        if ci is not None:
            resampled = _resampling(ci.resampled(i))
            why = None if pair else (ci.group_reason(i) if n > 0 else st.NO_PAIRS)
        else:
            resampled = Resampling("item", items_l[i], 0)
            why = NO_RESAMPLES if resamples <= 0 else st.NO_PAIRS
        interval = Interval.from_pair(pair, resampled=resampled, reason=why)
        rows.append(
            GroupRow(
                key,
                shown,
                n,
                responses_l[i],
                items_l[i],
                ItemAgreement(rate_f, interval),
                kappa_f,
                ac1_f,
                jhr_f,
                hhr_f,
                alpha_fig,
                ratings_l[i],
            )
        )
    return tuple(rows)


@lru_cache(maxsize=256)
def _criterion_interval(items: int | None) -> Interval:
    """The interval a criterion row has: none (frozen, so rows with as many items share one)."""
    return Interval(None, None, Resampling("item", items or 0, 0), NO_CRITERION_INTERVAL)


NO_GOLD_PAIRS = "none of the expert's judgments is on a unit with a golden label"
NO_RECENT_QUARTER = "fewer than 4 of the expert's judgments compared with the golden standard: no latest quarter"
NO_SHARED_UNITS = "the expert shares no rated unit with another expert"


def _expert_figure(value: float | None, n: int, why: str) -> Figure:
    """An expert's agreement over n compared judgments or units; undefined only when there are none."""
    return Figure(value, n, None if value is not None else (why if n == 0 else NOT_RECORDED))


def _by_expert(data: ReportData, label: np.ndarray) -> tuple[tuple[ExpertRow, ...], tuple[ExpertPair, ...]]:
    n_experts = len(data.expert_ids)
    if n_experts == 0:
        return (), ()
    gold = label[data.j_unit]
    compared = gold >= 0
    agree = compared & ((gold == 1) == data.j_hit)
    n_cmp = np.bincount(data.j_expert[compared], minlength=n_experts)
    n_agree = np.bincount(data.j_expert[agree], minlength=n_experts)
    n_judg = np.bincount(data.j_expert, minlength=n_experts)
    shape = (data.n_units, n_experts)
    ones = np.ones(data.j_unit.size)
    rated = sparse.csr_matrix((ones, (data.j_unit, data.j_expert)), shape=shape)
    hit = sparse.csr_matrix((data.j_hit.astype(np.float64), (data.j_unit, data.j_expert)), shape=shape)
    miss = rated - hit
    shared = (rated.T @ rated).toarray()
    same = (hit.T @ hit + miss.T @ miss).toarray()
    rates = np.where(n_cmp > 0, n_agree / np.maximum(n_cmp, 1), np.nan)
    # Drift: agreement with the golden standard on an expert's latest quarter of compared judgments.
    recent_rate = np.full(n_experts, np.nan)
    recent_n = np.zeros(n_experts, dtype=np.int64)
    order = np.lexsort((data.j_time[compared], data.j_expert[compared]))
    e_sorted = data.j_expert[compared][order]
    a_sorted = agree[compared][order]
    bounds = np.searchsorted(e_sorted, np.arange(n_experts + 1))
    for e in range(n_experts):
        lo, hi = bounds[e], bounds[e + 1]
        size = (hi - lo) // 4
        if size >= 1:
            recent_n[e] = size
            recent_rate[e] = a_sorted[hi - size : hi].mean()
    rows, pairs = [], []
    for e, name in enumerate(data.expert_names):
        others = []
        for o, other in enumerate(data.expert_names):
            if o == e or shared[e, o] == 0:
                continue
            agreement = _expert_figure(_num(same[e, o] / shared[e, o]), int(shared[e, o]), NO_SHARED_UNITS)
            others.append(ExpertOverlap(other, agreement))
            if o > e:
                pairs.append(ExpertPair(name, other, agreement))
        shared_total = int(shared[e].sum() - shared[e, e])
        same_total = same[e].sum() - same[e, e]
        rows.append(
            ExpertRow(
                expert=name,
                judgments=int(n_judg[e]),
                gold_agreement=_expert_figure(_num(rates[e]), int(n_cmp[e]), NO_GOLD_PAIRS),
                recent_gold_agreement=_expert_figure(_num(recent_rate[e]), int(recent_n[e]), NO_RECENT_QUARTER),
                expert_agreement=_expert_figure(_num(same_total / shared_total) if shared_total else None, shared_total, NO_SHARED_UNITS),
                with_experts=tuple(others),
            )
        )
    return tuple(rows), tuple(pairs)


def _over_time(data: ReportData, judge: np.ndarray) -> tuple[TimePoint, ...]:
    """Agreement as judgments arrived: at the end of each day with submissions (at most 30 points)."""
    if data.j_time.size == 0:
        return ()
    days = np.unique(np.floor(data.j_time / 86400.0))
    if days.size > MAX_TIME_POINTS:
        days = days[np.linspace(0, days.size - 1, MAX_TIME_POINTS).round().astype(int)]
    points = []
    for day in days:
        cutoff = (day + 1) * 86400.0
        seen = data.j_time < cutoff
        hits = np.bincount(data.j_unit[seen], weights=data.j_hit[seen], minlength=data.n_units)
        ratings = np.bincount(data.j_unit[seen], minlength=data.n_units)
        label, _, _ = golden_standard(hits, ratings, data.k, data.u_adjudicated)
        both = (label >= 0) & (judge >= 0)
        rate = st.item_agreement_rate(judge[both] == 1, label[both] == 1)
        alpha, units, _ = st.binary_alpha_by_group(hits, ratings, np.zeros(data.n_units, np.intp), 1)
        value, n_alpha = _num(alpha[0]), int(units[0])
        points.append(
            TimePoint(
                date=datetime.fromtimestamp(day * 86400.0, tz=UTC).date().isoformat(),
                judgments=int(seen.sum()),
                item_agreement_rate=Figure.of(rate),
                krippendorff_alpha=Figure(value, n_alpha, None if value is not None else _alpha_reason(n_alpha)),
            )
        )
    return tuple(points)


NO_FULLY_LABELLED = "no response has both a judge verdict and a golden label on every criterion"


def _score_impact(data: ReportData, label: np.ndarray, judge: np.ndarray) -> ScoreImpact:
    """Leaderboards under the judge and under the golden standard on the same fully labelled responses."""
    both = (label >= 0) & (judge >= 0)
    n_clusters = len(data.cr_id)
    units_per = np.bincount(data.u_cr, minlength=n_clusters)
    both_per = np.bincount(data.u_cr[both], minlength=n_clusters)
    eligible = (units_per > 0) & (both_per == units_per)
    use = eligible[data.u_cr]
    if not use.any():
        none = Figure(None, 0, NO_FULLY_LABELLED)
        return ScoreImpact(responses=0, models=(), kendall_tau=none, kendall_tau_p=none)
    labels = list(ABILITY_LABELS) + sorted({a for a in data.crit_ability if a not in ABILITY_BY_LABEL and a != CATASTROPHIC_LABEL})
    a_index = {a: i for i, a in enumerate(labels)}
    crit_ab = np.array([a_index.get(a, 0) for a in data.crit_ability], dtype=np.intp)
    ability_dimension = np.array(
        [DIMENSIONS.index(ABILITY_BY_LABEL[a].dimension) if a in ABILITY_BY_LABEL else -1 for a in labels], dtype=np.intp
    )
    uc = data.u_crit[use]
    common = {
        "question": data.u_cr[use],
        "ability": crit_ab[uc],
        "weight": data.crit_weight[uc],
        "catastrophic": data.crit_catastrophic[uc],
        "n_questions": n_clusters,
        "n_abilities": len(labels),
    }
    by_judge = scoring.score_questions(hit=judge[use] == 1, **common)
    by_gold = scoring.score_questions(hit=label[use] == 1, **common)
    scored = []
    for m, name in enumerate(data.model_names):
        selected = eligible & (data.cr_model == m)
        if not selected.any():
            continue
        agg_j = scoring.aggregate(by_judge, selected=selected, ability_dimension=ability_dimension, n_dimensions=len(DIMENSIONS))
        agg_g = scoring.aggregate(by_gold, selected=selected, ability_dimension=ability_dimension, n_dimensions=len(DIMENSIONS))
        scored.append((name, int(selected.sum()), _num(agg_j.overall), _num(agg_g.overall)))
    j = np.array([np.nan if s[2] is None else s[2] for s in scored])
    g = np.array([np.nan if s[3] is None else s[3] for s in scored])
    rj, rg = st.ranks(j), st.ranks(g)
    models = [
        ModelScore(
            model=name,
            responses=responses,
            judge_score=js,
            gold_score=gs,
            judge_rank=int(a),
            gold_rank=int(b),
            rank_change=int(a - b),
            score_difference=_num(js - gs) if js is not None and gs is not None else None,
        )
        for (name, responses, js, gs), a, b in zip(scored, rj, rg)
    ]
    models.sort(key=lambda r: r.gold_rank)
    tau = st.kendall_tau(j, g)
    p_value = tau.extra.get("p_value")
    return ScoreImpact(
        responses=int(eligible.sum()),
        models=tuple(models),
        kendall_tau=Figure.of(tau),
        kendall_tau_p=Figure(p_value, tau.n) if tau.value is not None else Figure.of(tau),
    )


def _gate(
    item_agreement: ItemAgreement, *, by_dimension: tuple[GroupRow, ...], by_ability: tuple[GroupRow, ...], policy: GatePolicy
) -> Gate:
    """The release decision under a policy: the agreement (or its CI's lower bound) clears the threshold
    and every dimension and every ability has enough compared pairs. The lower bound is always reported."""
    reasons = []
    threshold = policy.threshold
    rate = item_agreement.rate.value
    ci = item_agreement.ci95
    ci_low = ci.low
    if rate is None:
        reasons.append("the agreement rate is undefined: " + st.NO_PAIRS)
    elif policy.must_clear == "lower_bound":
        if ci_low is None:
            why = ci.reason or "no confidence interval was computed"
            reasons.append(f"the lower bound of the 95% CI is undefined ({why}), and the policy requires it to clear the threshold")
        elif ci_low < threshold:
            reasons.append(f"the lower bound {ci_low:.3f} of the 95% CI (agreement rate {rate:.3f}) is below the threshold {threshold:.2f}")
    elif rate < threshold:
        reasons.append(f"agreement rate {rate:.3f} is below the threshold {threshold:.2f}")
    by_dim = {r.key: r.pairs for r in by_dimension}
    for dim in DIMENSIONS:
        if by_dim.get(dim, 0) < policy.min_pairs_per_dimension:
            reasons.append(f"dimension {dim} has {by_dim.get(dim, 0)} compared pairs, fewer than {policy.min_pairs_per_dimension}")
    pairs_by_ability = {r.key: r.pairs for r in by_ability}
    for ability in ABILITY_LABELS:
        if pairs_by_ability.get(ability, 0) < policy.min_pairs_per_ability:
            reasons.append(
                f"ability {english_name(ability)} ({ability}) has {pairs_by_ability.get(ability, 0)} compared pairs, "
                f"fewer than {policy.min_pairs_per_ability}"
            )
    return Gate(policy=policy, agreement_rate=item_agreement.rate, ci95=ci, passed=not reasons, reasons=tuple(reasons))


def _split_criteria(data: ReportData) -> list[tuple[float, int, int, int, float, int]]:
    """(p, criterion, split, units, others' rate, others' units) of each criterion flagged, unit by unit, with scipy's binomtest.

    Changed on purpose (issue 29, item 12): the alpha alert needed 5 responses per criterion, so it
    never fired with fewer than 5 models; the split signal works from 2.
    """
    from scipy.stats import binomtest

    hits, ratings = data.unit_counts()
    counted = ratings >= max(data.k, 2)
    per_crit: dict[int, list[int]] = {}
    for u in range(data.n_units):
        if counted[u]:
            per_crit.setdefault(int(data.u_crit[u]), []).append(int(0 < hits[u] < ratings[u]))
    all_units = sum(len(v) for v in per_crit.values())
    all_split = sum(sum(v) for v in per_crit.values())
    out = []
    for c, marks in per_crit.items():
        others = all_units - len(marks)
        split = sum(marks)
        if others == 0 or split < 2:
            continue
        rate = (all_split - split) / others
        p = binomtest(split, len(marks), rate, alternative="greater").pvalue if 0 < rate < 1 else (0.0 if rate == 0 else 1.0)
        if p <= 0.05:
            out.append((p, c, split, len(marks), rate, others))
    out.sort(key=lambda t: (t[0], -t[2], t[1]))
    return out


def _alerts(
    item_agreement: ItemAgreement,
    *,
    by_expert: tuple[ExpertRow, ...],
    by_criterion: tuple[GroupRow, ...],
    by_model: tuple[GroupRow, ...],
    data: ReportData,
) -> tuple[Alert, ...]:
    alerts = []
    experts = [r for r in by_expert if r.gold_agreement.value is not None and (r.gold_agreement.n or 0) >= DRIFT_MIN_PAIRS]
    if experts:
        median = float(np.median([r.gold_agreement.value for r in experts]))
        for r in experts:
            gold, gold_pairs = r.gold_agreement.value or 0.0, r.gold_agreement.n
            if gold < median - DRIFT_DROP:
                alerts.append(
                    Alert(
                        "expert_outlier",
                        r.expert,
                        f"{r.expert} agrees with the golden standard {gold:.0%} of {gold_pairs} times, against a median of {median:.0%} among experts",
                    )
                )
            recent, recent_pairs = r.recent_gold_agreement.value, r.recent_gold_agreement.n or 0
            if recent is not None and recent_pairs >= DRIFT_MIN_PAIRS and recent < gold - DRIFT_DROP:
                alerts.append(
                    Alert(
                        "expert_drift",
                        r.expert,
                        f"{r.expert} is drifting: {recent:.0%} agreement with the golden standard on the latest "
                        f"{recent_pairs} judgments, against {gold:.0%} overall",
                    )
                )
    flagged = _split_criteria(data)
    for p, c, split, units, rate, others in flagged[:20]:
        row = by_criterion[c]
        ability = row.ability if isinstance(row, CriterionRow) else row.key
        alerts.append(
            Alert(
                "split_criterion",
                row.key,
                f"criterion {row.label} ({english_name(ability)}): the experts split on {split} of {units} responses, "
                f"against {rate:.0%} of the other criteria's {others} (p = {p:.3f})",
            )
        )
    if len(flagged) > 20:
        alerts.append(
            Alert("split_criterion", "", f"… and {len(flagged) - 20} more criteria the experts split on more often than on the others")
        )
    overall = item_agreement.rate.value
    if overall is not None:
        for m in by_model:
            ci = m.item_agreement.ci95
            if ci.high is not None and ci.high < overall and m.item_agreement.rate.value is not None:
                alerts.append(
                    Alert(
                        "judge_model_disagreement",
                        m.key,
                        f"the judge agrees with the experts on {m.key} only {m.item_agreement.rate.value:.0%} of "
                        f"{m.pairs} pairs on {m.items} items (95% CI over the items up to {ci.high:.0%}), "
                        f"below {overall:.0%} overall",
                    )
                )
    return tuple(alerts)


# --- the stored JSON ----------------------------------------------------------------------------
