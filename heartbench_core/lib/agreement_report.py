"""The whole agreement report from a campaign's arrays: pure computation, no Django.

`compute_report` takes a campaign's data as flat NumPy arrays (`ReportData`; the validation app
loads them from the database as its `CampaignArrays`) and returns the JSON-ready result stored
in an `AgreementReport`. Every figure comes with the number of units it was computed on; an
undefined figure is None and its reason is listed. The statistics are those of
`heartbench_core.lib.agreement`, the golden standard's majority is its `MajorityRule`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

import numpy as np
from scipy import sparse

from heartbench_core.lib import agreement as st
from heartbench_core.lib import scoring
from heartbench_core.lib.taxonomy import ABILITY_BY_LABEL, ABILITY_LABELS, CATASTROPHIC_LABEL, DIMENSIONS, english_name

PROVENANCE_NONE, PROVENANCE_UNANIMOUS, PROVENANCE_MAJORITY, PROVENANCE_ADJUDICATED = 0, 1, 2, 3
PROVENANCE_NAMES = {PROVENANCE_UNANIMOUS: "unanimous", PROVENANCE_MAJORITY: "majority", PROVENANCE_ADJUDICATED: "adjudicated"}

DEFAULTS = {"resamples": 1000, "seed": 0, "threshold": 0.75, "min_pairs_per_dimension": 30}
DRIFT_DROP = 0.10
DRIFT_MIN_PAIRS = 30
LOW_ALPHA = 0.4
LOW_ALPHA_MIN_UNITS = 5
MAX_TIME_POINTS = 30


class ReportData(Protocol):
    """What the report reads of a campaign: flat arrays, `u_*` with one entry per unit (response, criterion)."""

    k: int  # ratings per unit the golden standard waits for (the campaign's overlap)
    cr_id: np.ndarray
    cr_model: np.ndarray
    cr_item: np.ndarray
    model_names: list[str]
    item_question: list[str]
    item_difficulty: list[str]
    item_scene: list[str]
    crit_id: np.ndarray
    crit_ability: list[str]
    crit_weight: np.ndarray
    crit_catastrophic: np.ndarray
    crit_lineage: list[str]
    crit_position: np.ndarray
    crit_item: np.ndarray
    u_cr: np.ndarray
    u_crit: np.ndarray
    j_unit: np.ndarray
    j_expert: np.ndarray
    j_hit: np.ndarray
    j_time: np.ndarray
    expert_ids: list[int]
    expert_names: list[str]
    u_judge: np.ndarray
    u_adjudicated: np.ndarray
    excluded: dict

    @property
    def n_units(self) -> int: ...

    def unit_counts(self) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class GatePolicy:
    """The rules a release gate is decided by: a plain copy of a dataset's `ReleasePolicy`."""

    threshold: float = 0.75
    min_pairs_per_dimension: int = 30
    min_pairs_per_ability: int = 10
    must_clear: str = "point"  # "point": the agreement rate; "lower_bound": the lower end of its 95% CI

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def golden_standard(
    hits: np.ndarray, ratings: np.ndarray, k: int, adjudicated: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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

    def __init__(self, codes: np.ndarray, names: list[str], labels: list[str] | None = None):
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


def compute_report(
    data: ReportData, *, resamples: int = 1000, seed: int = 0, threshold: float = 0.75, min_pairs_per_dimension: int = 30,
    gate_policy: GatePolicy | None = None,
) -> dict[str, Any]:
    """Every statistic of the agreement report for one campaign (and judge)."""
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
    undefined: dict[str, str | None] = {}
    counts: dict[str, int] = {}

    def put(name: str, stat: st.Stat) -> float | None:
        counts[name] = stat.n
        if stat.value is None:
            undefined[name] = stat.reason
        return stat.value

    out: dict[str, Any] = {"pairs": int(both.sum()), "responses": int(np.unique(clusters).size), "items": n_items}
    out["item_agreement_rate"] = put("item_agreement_rate", st.item_agreement_rate(jv, gv))
    # One set of draws over the items serves the headline, every breakdown and the baseline.
    draws = st.cluster_draws(n_items, resamples, seed)
    headline = st.clustered_mean_ci(jv == gv, items, resamples=resamples, seed=seed, weights=draws)
    out["item_agreement_ci95"] = headline.pair()
    out["resampled"] = headline.resampled()
    counts["item_agreement_ci95"] = n_items
    if out["item_agreement_ci95"] is None:
        undefined["item_agreement_ci95"] = st.NO_PAIRS if not both.any() else headline.group_reason()
    out["cohen_kappa"] = put("cohen_kappa", st.cohen_kappa(jv, gv))
    out["gwet_ac1"] = put("gwet_ac1", st.gwet_ac1(jv, gv))
    out["confusion"] = st.confusion(jv, gv)
    out["judge_hit_rate"] = put("judge_hit_rate", st.hit_rate(jv) if jv.size else st.Stat.undefined(0, st.NO_PAIRS))
    out["human_hit_rate"] = put("human_hit_rate", st.hit_rate(gv) if gv.size else st.Stat.undefined(0, st.NO_PAIRS))
    mcnemar = st.mcnemar_exact(jv, gv)
    out["mcnemar_p"] = put("mcnemar_p", mcnemar)
    out["mcnemar"] = mcnemar.as_dict()

    out["krippendorff_alpha"] = put("krippendorff_alpha", st.krippendorff_alpha_nominal(hits, ratings))
    out["fleiss_kappa"] = put("fleiss_kappa", st.fleiss_kappa(hits, ratings, data.k))
    out["pairwise_percent_agreement"] = put("pairwise_percent_agreement", st.pairwise_percent_agreement(hits, ratings))
    judged = judge >= 0
    out["judge_expert_baseline"] = st.judge_expert_baseline(
        hits[judged], ratings[judged], judge[judged] == 1, item_of_unit[judged], resamples=resamples, seed=seed, weights=draws
    )

    out["gold_provenance"] = {name: int((provenance == code).sum()) for code, name in PROVENANCE_NAMES.items()}
    complete = ratings >= max(data.k, 1)
    out["units"] = {
        "total": data.n_units,
        "rated": int((ratings > 0).sum()),
        "complete": int(complete.sum()),
        "with_golden_label": int((label >= 0).sum()),
        "ties": int(tie.sum()),
        "incomplete": int(((ratings > 0) & ~complete & (provenance == PROVENANCE_NONE)).sum()),
        "with_judge_verdict": int(judged.sum()),
        "judgments": int(data.j_unit.size),
        "experts": len(data.expert_ids),
    }
    out["excluded"] = dict(data.excluded)

    # Breakdowns.
    crit_dim = [dimension_label(a) for a in data.crit_ability]
    groups = {
        "by_ability": _Groups.from_values(
            list(data.crit_ability), data.u_crit, order=[*ABILITY_LABELS, CATASTROPHIC_LABEL], label=english_name
        ),
        "by_dimension": _Groups.from_values(crit_dim, data.u_crit, order=[*DIMENSIONS, "Catastrophic"]),
        "by_model": _Groups(data.cr_model[data.u_cr], list(data.model_names)),
        "by_difficulty": _Groups.from_values(list(data.item_difficulty), item_of_unit, order=["hard", "normal"]),
        "by_primary_scene": _Groups.from_values(list(data.item_scene), item_of_unit),
    }
    for name, g in groups.items():
        out[name] = _breakdown(g, both, jv, gv, hits, ratings, data.u_cr, items, resamples=resamples, seed=seed, draws=draws)
    crit_groups = _Groups(data.u_crit, [str(i) for i in range(len(data.crit_id))])
    rows = _breakdown(crit_groups, both, jv, gv, hits, ratings, data.u_cr, items, resamples=0, seed=seed)
    for row in rows:
        c = int(row["key"])
        row["key"] = data.crit_lineage[c]
        row["label"] = f"{data.item_question[data.crit_item[c]]} #{int(data.crit_position[c]) + 1}"
        row["question_id"] = data.item_question[data.crit_item[c]]
        row["position"] = int(data.crit_position[c])
        row["ability"] = data.crit_ability[c]
        row.pop("item_agreement_ci95", None)
        row.pop("resampled", None)
    out["by_criterion"] = rows

    out["by_expert"], out["expert_pairs"] = _by_expert(data, label)
    out["over_time"] = _over_time(data, judge)
    out["score_impact"] = _score_impact(data, label, judge)
    policy = gate_policy or GatePolicy(threshold=threshold, min_pairs_per_dimension=min_pairs_per_dimension)
    out["gate"] = _gate(out, policy=policy, ci_reason=undefined.get("item_agreement_ci95"))
    out["alerts"] = _alerts(out)
    out["n"] = counts
    out["undefined"] = undefined
    return out


def dimension_label(label: str) -> str:
    """The dimension a criterion's label belongs to: "Catastrophic" for 其他, "Other" outside the taxonomy."""
    if label == CATASTROPHIC_LABEL:
        return "Catastrophic"
    ability = ABILITY_BY_LABEL.get(label)
    return ability.dimension if ability else "Other"


def _breakdown(
    groups: _Groups, both, jv, gv, hits, ratings, u_cr, items, *, resamples: int, seed: int, draws=None
) -> list[dict]:
    """One row per group; its interval resamples items (`items`: the item of each compared unit) with the report's draws."""
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
        _rounded(x) for x in (figures["rate"], figures["kappa"], figures["ac1"], figures["judge_hit_rate"], figures["human_hit_rate"], alpha)
    )
    low_l, high_l = low.tolist(), high.tolist()
    pairs_l, responses_l, units_l, ratings_l = pairs.tolist(), responses.tolist(), alpha_units.tolist(), alpha_ratings.tolist()
    items_l = items_per_group.tolist()
    rows = []
    for i, (key, shown) in enumerate(zip(groups.names, groups.labels)):
        has = pairs_l[i] > 0
        row = {
            "key": key,
            "label": shown,
            "pairs": pairs_l[i],
            "responses": responses_l[i],
            "items": items_l[i],
            "item_agreement_rate": rate[i] if has else None,
            "item_agreement_ci95": st.ci_pair(low_l[i], high_l[i]) if items_l[i] >= 2 else None,
            "cohen_kappa": kappa[i] if has else None,
            "gwet_ac1": ac1[i] if has else None,
            "judge_hit_rate": jhr[i] if has else None,
            "human_hit_rate": hhr[i] if has else None,
            "krippendorff_alpha": alpha_l[i],
            "alpha_units": units_l[i],
            "ratings": ratings_l[i],
        }
        why: dict[str, str | None] = {}
        if not has:
            for f in ("item_agreement_rate", "cohen_kappa", "gwet_ac1", "judge_hit_rate", "human_hit_rate"):
                why[f] = st.NO_PAIRS
        elif row["cohen_kappa"] is None:
            why["cohen_kappa"] = "judge and golden standard gave every pair the same value: kappa is 0/0"
        if row["item_agreement_ci95"] is None and resamples > 0:
            why["item_agreement_ci95"] = ci.group_reason(i) if ci is not None and has else st.NO_PAIRS
        if row["krippendorff_alpha"] is None:
            why["krippendorff_alpha"] = (
                "no unit rated by two or more experts" if not units_l[i] else "every rating has the same value: alpha is 0/0"
            )
        if ci is not None:
            row["resampled"] = ci.resampled(i)
        if why:
            row["undefined"] = why
        rows.append(row)
    return rows


def _by_expert(data, label) -> tuple[list[dict], list[dict]]:
    n_experts = len(data.expert_ids)
    if n_experts == 0:
        return [], []
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
            others.append({"expert": other, "units": int(shared[e, o]), "agreement": _num(same[e, o] / shared[e, o])})
            if o > e:
                pairs.append({"a": name, "b": other, "units": int(shared[e, o]), "agreement": _num(same[e, o] / shared[e, o])})
        shared_total = shared[e].sum() - shared[e, e]
        same_total = same[e].sum() - same[e, e]
        rows.append(
            {
                "expert": name,
                "judgments": int(n_judg[e]),
                "gold_pairs": int(n_cmp[e]),
                "gold_agreement": _num(rates[e]),
                "recent_gold_pairs": int(recent_n[e]),
                "recent_gold_agreement": _num(recent_rate[e]),
                "expert_pairs": int(shared_total),
                "expert_agreement": _num(same_total / shared_total) if shared_total else None,
                "with_experts": others,
            }
        )
    return rows, pairs


def _over_time(data, judge) -> list[dict]:
    """Agreement as judgments arrived: at the end of each day with submissions (at most 30 points)."""
    if data.j_time.size == 0:
        return []
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
        alpha = st.binary_alpha_by_group(hits, ratings, np.zeros(data.n_units, np.intp), 1)[0][0]
        points.append(
            {
                "date": datetime.fromtimestamp(day * 86400.0, tz=timezone.utc).date().isoformat(),
                "judgments": int(seen.sum()),
                "pairs": rate.n,
                "item_agreement_rate": rate.value,
                "krippendorff_alpha": _num(alpha),
            }
        )
    return points


def _score_impact(data, label, judge) -> dict[str, Any]:
    """Leaderboards under the judge and under the golden standard on the same fully labelled responses."""
    both = (label >= 0) & (judge >= 0)
    n_clusters = len(data.cr_id)
    units_per = np.bincount(data.u_cr, minlength=n_clusters)
    both_per = np.bincount(data.u_cr[both], minlength=n_clusters)
    eligible = (units_per > 0) & (both_per == units_per)
    use = eligible[data.u_cr]
    if not use.any():
        return {
            "responses": 0,
            "models": [],
            "kendall_tau": None,
            "reason": "no response has both a judge verdict and a golden label on every criterion",
        }
    labels = list(ABILITY_LABELS) + sorted({a for a in data.crit_ability if a not in ABILITY_BY_LABEL and a != CATASTROPHIC_LABEL})
    a_index = {a: i for i, a in enumerate(labels)}
    crit_ab = np.array([a_index.get(a, 0) for a in data.crit_ability], dtype=np.intp)
    ability_dimension = np.array(
        [DIMENSIONS.index(ABILITY_BY_LABEL[a].dimension) if a in ABILITY_BY_LABEL else -1 for a in labels], dtype=np.intp
    )
    uc = data.u_crit[use]
    common = dict(
        question=data.u_cr[use],
        ability=crit_ab[uc],
        weight=data.crit_weight[uc],
        catastrophic=data.crit_catastrophic[uc],
        n_questions=n_clusters,
        n_abilities=len(labels),
    )
    by_judge = scoring.score_questions(hit=judge[use] == 1, **common)
    by_gold = scoring.score_questions(hit=label[use] == 1, **common)
    models = []
    for m, name in enumerate(data.model_names):
        selected = eligible & (data.cr_model == m)
        if not selected.any():
            continue
        agg_j = scoring.aggregate(by_judge, selected=selected, ability_dimension=ability_dimension, n_dimensions=len(DIMENSIONS))
        agg_g = scoring.aggregate(by_gold, selected=selected, ability_dimension=ability_dimension, n_dimensions=len(DIMENSIONS))
        models.append({"model": name, "responses": int(selected.sum()), "judge_score": _num(agg_j.overall), "gold_score": _num(agg_g.overall)})
    j = np.array([np.nan if r["judge_score"] is None else r["judge_score"] for r in models])
    g = np.array([np.nan if r["gold_score"] is None else r["gold_score"] for r in models])
    rj, rg = st.ranks(j), st.ranks(g)
    for row, a, b in zip(models, rj, rg):
        row["judge_rank"], row["gold_rank"] = int(a), int(b)
        row["rank_change"] = int(a - b)  # positive: the golden standard ranks the model higher than the judge
        row["score_difference"] = _num(row["judge_score"] - row["gold_score"]) if None not in (row["judge_score"], row["gold_score"]) else None
    models.sort(key=lambda r: r["gold_rank"])
    tau = st.kendall_tau(j, g)
    result = {"responses": int(eligible.sum()), "models": models, "kendall_tau": tau.value, "kendall_tau_n": tau.n}
    if tau.value is None:
        result["reason"] = tau.reason
    else:
        result["kendall_tau_p"] = tau.extra.get("p_value")
    return result


def _gate(out, *, policy: GatePolicy, ci_reason: str | None = None) -> dict[str, Any]:
    """The release decision under a policy: the agreement (or its CI's lower bound) clears the threshold
    and every dimension and every ability has enough compared pairs. The lower bound is always reported."""
    reasons = []
    threshold = policy.threshold
    rate = out["item_agreement_rate"]
    ci = out["item_agreement_ci95"]
    ci_low = ci[0] if ci else None
    if rate is None:
        reasons.append("the agreement rate is undefined: " + st.NO_PAIRS)
    elif policy.must_clear == "lower_bound":
        if ci_low is None:
            why = ci_reason or "no confidence interval was computed"
            reasons.append(f"the lower bound of the 95% CI is undefined ({why}), and the policy requires it to clear the threshold")
        elif ci_low < threshold:
            reasons.append(
                f"the lower bound {ci_low:.3f} of the 95% CI (agreement rate {rate:.3f}) is below the threshold {threshold:.2f}"
            )
    elif rate < threshold:
        reasons.append(f"agreement rate {rate:.3f} is below the threshold {threshold:.2f}")
    by_dim = {r["key"]: r["pairs"] for r in out["by_dimension"]}
    for dim in DIMENSIONS:
        if by_dim.get(dim, 0) < policy.min_pairs_per_dimension:
            reasons.append(f"dimension {dim} has {by_dim.get(dim, 0)} compared pairs, fewer than {policy.min_pairs_per_dimension}")
    by_ability = {r["key"]: r["pairs"] for r in out["by_ability"]}
    for ability in ABILITY_LABELS:
        if by_ability.get(ability, 0) < policy.min_pairs_per_ability:
            reasons.append(
                f"ability {english_name(ability)} ({ability}) has {by_ability.get(ability, 0)} compared pairs, "
                f"fewer than {policy.min_pairs_per_ability}"
            )
    return {
        "threshold": threshold,
        "min_pairs_per_dimension": policy.min_pairs_per_dimension,
        "min_pairs_per_ability": policy.min_pairs_per_ability,
        "must_clear": policy.must_clear,
        "agreement_rate": rate,
        "ci_low": ci_low,
        "ci95": ci,
        "passed": not reasons,
        "reasons": reasons,
        "policy": policy.as_dict(),
    }


def _alerts(out) -> list[dict]:
    alerts = []
    experts = [r for r in out["by_expert"] if r["gold_agreement"] is not None and r["gold_pairs"] >= DRIFT_MIN_PAIRS]
    if experts:
        median = float(np.median([r["gold_agreement"] for r in experts]))
        for r in experts:
            if r["gold_agreement"] < median - DRIFT_DROP:
                alerts.append({
                    "kind": "expert_outlier", "subject": r["expert"],
                    "message": f"{r['expert']} agrees with the golden standard {r['gold_agreement']:.0%} of {r['gold_pairs']} times, "
                    f"against a median of {median:.0%} among experts",
                })
            recent = r["recent_gold_agreement"]
            if recent is not None and r["recent_gold_pairs"] >= DRIFT_MIN_PAIRS and recent < r["gold_agreement"] - DRIFT_DROP:
                alerts.append({
                    "kind": "expert_drift", "subject": r["expert"],
                    "message": f"{r['expert']} is drifting: {recent:.0%} agreement with the golden standard on the latest "
                    f"{r['recent_gold_pairs']} judgments, against {r['gold_agreement']:.0%} overall",
                })
    low = [r for r in out["by_criterion"] if r["krippendorff_alpha"] is not None and r["alpha_units"] >= LOW_ALPHA_MIN_UNITS and r["krippendorff_alpha"] < LOW_ALPHA]
    low.sort(key=lambda r: r["krippendorff_alpha"])
    for r in low[:20]:
        alerts.append({
            "kind": "low_alpha_criterion", "subject": r["key"],
            "message": f"criterion {r['label']} ({english_name(r['ability'])}): alpha {r['krippendorff_alpha']:.2f} over {r['alpha_units']} responses",
        })
    if len(low) > 20:
        alerts.append({"kind": "low_alpha_criterion", "subject": "", "message": f"… and {len(low) - 20} more criteria with alpha below {LOW_ALPHA}"})
    overall = out["item_agreement_rate"]
    if overall is not None:
        for r in out["by_model"]:
            ci = r["item_agreement_ci95"]
            if ci is not None and ci[1] < overall:
                alerts.append({
                    "kind": "judge_model_disagreement", "subject": r["key"],
                    "message": f"the judge agrees with the experts on {r['key']} only {r['item_agreement_rate']:.0%} of "
                    f"{r['pairs']} pairs on {r['items']} items (95% CI up to {ci[1]:.0%}, resampling the items), "
                    f"below {overall:.0%} overall",
                })
    return alerts
