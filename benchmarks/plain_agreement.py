"""The agreement report's statistics in plain NumPy: the floor the platform's report is measured against.

Run:  .venv/bin/python benchmarks/plain_agreement.py [--scales 1,10,100] [--runs 3] [--resamples 1000]

`plain_statistics(data)` computes, from the same flat arrays the report reads, every statistic
of the report as a NumPy user would in a notebook: golden labels by strict majority (adjudication
overriding), judge–gold agreement, Cohen's kappa, Gwet's AC1, hit rates, the confusion counts and
the exact McNemar test; Krippendorff's alpha, Fleiss' kappa and pairwise agreement among the
experts; the judge–expert baseline; the five breakdowns (ability, dimension, model, difficulty,
scene) with their rates, kappas, AC1, hit rates, alpha and 95% intervals (from 1,000 resamples of
the items and the experts, or below 50 items the Wilson interval on the design-effect sample with
the variance between experts added); every criterion's
figures and how often its experts split; every expert's agreement with the golden standard, on their
latest quarter and with each other expert; agreement over time at up to 30 days; and both
leaderboards (judge and golden standard) with Kendall's tau. Vectorised, but without the
platform's typed figures, reasons, counts or stored JSON. The bootstrap draws the same
resamples as the report (same generator, same seed), so the intervals can be compared.

Run alone, it times both on generated campaigns (`tests/lib/synthetic_campaign.py`), checks that
the report's figures are the plain ones, and prints the ratio; `benchmarks/agreement.py` does
the same on PostgreSQL installations.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ABILITY_DIMENSION = {
    "言语表达": "Personality",
    "好奇心": "Personality",
    "温暖": "Personality",
    "第一人称使用": "Personality",
    "自主性": "Personality",
    "幽默": "Personality",
    "自我认知": "Personality",
    "情绪应对": "Emotion",
    "情绪理解": "Emotion",
    "情绪感知": "Emotion",
    "情绪反应": "Emotion",
    "主动性": "Social",
    "关系构建": "Social",
    "动机": "Motivation",
    "道德": "Morality",
}
ABILITIES = list(ABILITY_DIMENSION)


def codes(values):
    """Integer codes of a list of strings, and the distinct strings."""
    names, code = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
    return code.reshape(-1), list(names)


def two_rater(tp, fp, fn, tn):
    n = tp + fp + fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        po, pj, pg = (tp + tn) / n, (tp + fp) / n, (tp + fn) / n
        pe = pj * pg + (1 - pj) * (1 - pg)
        pi = (pj + pg) / 2
        return {
            "rate": po,
            "kappa": (po - pe) / (1 - pe),
            "ac1": (po - 2 * pi * (1 - pi)) / (1 - 2 * pi * (1 - pi)),
            "judge": pj,
            "gold": pg,
        }


def alpha(h, m, group, n_groups):
    ok = m >= 2
    g = group[ok]
    o01 = np.bincount(g, weights=h[ok] * (m[ok] - h[ok]) / (m[ok] - 1), minlength=n_groups)
    n1 = np.bincount(g, weights=h[ok], minlength=n_groups)
    n_all = np.bincount(g, weights=m[ok], minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1 - (n_all - 1) * o01 / ((n_all - n1) * n1)


def rater_shift(v, z, expert, item, g, n_groups, n_experts, centred=False):
    """The experts' part of every resample per group, and the rater variance (heartbench_core/lib/crossed.py, in plain NumPy).

    z: per vote, the change of its group's figure when the vote is left out; v: expert draws (resamples × experts).
    centred: z is already measured against its group's mean vote.
    """
    if not centred:
        per = np.bincount(g, minlength=n_groups)
        z = z - (np.bincount(g, weights=z, minlength=n_groups) / np.maximum(per, 1))[g]
    big_z = np.bincount(expert * n_groups + g, weights=z, minlength=n_experts * n_groups).reshape(n_experts, n_groups)
    n_items = int(item.max()) + 1
    s = np.bincount((expert * n_items + item) * n_groups + g, weights=z, minlength=n_experts * n_items * n_groups)
    total = (big_z**2).sum(0)
    within = (s.reshape(-1, n_groups) ** 2).sum(0)
    e = (np.bincount(expert * n_groups + g, minlength=n_experts * n_groups).reshape(n_experts, n_groups) > 0).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.clip(total**2 / (big_z**4).sum(0), 1, np.maximum(e, 2) - 1)
        factor = e / (e - 1) * (sps.t.ppf(0.975, df) / sps.norm.ppf(0.975)) ** 2
        variance = np.where(e >= 2, np.maximum(total - within, 0) * factor, 0.0)
        delta = np.nan_to_num(-big_z * np.sqrt(variance / total))
    return (v - 1) @ delta, variance


def left_out_votes(d, both, jv, gv, h, m):
    """Per vote on a compared, not adjudicated unit: (its unit's position among the compared, expert, change of agreement, of count)."""
    position = np.full(both.size, -1)
    position[both] = np.arange(int(both.sum()))
    pos = position[d.j_unit]
    keep = pos >= 0
    keep[keep] = d.u_adjudicated[both][pos[keep]] < 0
    pos, expert, hit = pos[keep], d.j_expert[keep], d.j_hit[keep]
    u = np.flatnonzero(both)[pos]
    hh, mm = h[u] - hit, m[u] - 1
    credit = np.where(2 * hh > mm, 1.0, np.where(2 * hh == mm, 0.5, 0.0))
    new = np.where(mm > 0, np.where(jv[pos], credit, 1 - credit), 0.0)
    return pos, expert, new - (jv == gv)[pos], np.where(mm > 0, 0.0, -1.0)


def wilson_design_effect_ci(num, den, rater_variance=None):
    """95% Wilson intervals (t on items − 1 df) on each column's design-effect sample: the report's interval below 50 items."""
    items = (den > 0).sum(0)
    n = den.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = num.sum(0) / n
        variance = items / (items - 1) * (((num - p * den) / n) ** 2).sum(0)
        n_eff = np.minimum(p * (1 - p) / variance, n)
        n_eff = np.where(variance > 0, n_eff, n * n / (den**2).sum(0))  # nothing varies: each item counts once
        if rater_variance is not None:
            pq = p * (1 - p)
            n_eff = np.where(pq > 0, pq / (pq / n_eff + rater_variance), n_eff)
        c = sps.t.ppf(0.975, np.maximum(items - 1, 1))
        c2n = c * c / n_eff
        centre, half = (p + c2n / 2) / (1 + c2n), c * np.sqrt(p * (1 - p) / n_eff + c2n / (4 * n_eff)) / (1 + c2n)
    return np.stack([np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)])


def group_figures(g, n_groups, jv, gv, h, m, g_units, w, item, n_items, votes=None):
    out = two_rater(*(np.bincount(g, weights=x, minlength=n_groups) for x in (jv & gv, jv & ~gv, ~jv & gv, ~jv & ~gv)))
    out["alpha"] = alpha(h, m, g_units, n_groups)
    if w is not None:
        cell = item * n_groups + g
        num = np.bincount(cell, weights=jv == gv, minlength=n_items * n_groups).reshape(n_items, n_groups)
        den = np.bincount(cell, minlength=n_items * n_groups).reshape(n_items, n_groups)
        few = (den > 0).sum(0) < 50
        ci = np.full((2, n_groups), np.nan)
        shift, rater = 0.0, np.zeros(n_groups)
        if votes is not None:  # the experts resampled with the items
            v, pos, expert, d_num, d_den, n_experts = votes
            gv_ = g[pos]
            t = num.sum(0) / np.maximum(den.sum(0), 1)
            z = (d_num - t[gv_] * d_den) / den.sum(0)[gv_]
            shift, rater = rater_shift(v, z, expert, item[pos], gv_, n_groups, n_experts)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = (w @ num[:, ~few]) / (w @ den[:, ~few]) + (shift[:, ~few] if votes is not None else 0.0)
        ci[:, ~few] = np.clip(np.nanquantile(ratios, [0.025, 0.975], axis=0), 0, 1)
        ci[:, few] = wilson_design_effect_ci(num[:, few], den[:, few], rater[few] if votes is not None else None)
        out["ci"] = ci
    return out


def criterion_splits(h, m, crit, n_crit, k):
    """Per criterion: responses the experts split on, and the one-sided binomial p against the other criteria's split rate."""
    counted = m >= max(k, 2)
    split = counted & (h > 0) & (h < m)
    units = np.bincount(crit[counted], minlength=n_crit)
    splits = np.bincount(crit[split], minlength=n_crit)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = (splits.sum() - splits) / (units.sum() - units)
    return splits, units, sps.binom.sf(splits - 1, units, rate)


def plain_statistics(d, resamples=1000, seed=0, population=None):
    """Every statistic of the agreement report, from the report's arrays (and the calibrated scores, given the judge's population)."""
    n = d.u_cr.size
    h = np.bincount(d.j_unit, weights=d.j_hit, minlength=n)
    m = np.bincount(d.j_unit, minlength=n).astype(np.float64)
    complete = m >= d.k
    label = np.where(complete & (2 * h > m), 1, np.where(complete & (2 * (m - h) > m), 0, -1))
    label = np.where(d.u_adjudicated >= 0, d.u_adjudicated, label)
    both = (label >= 0) & (d.u_judge >= 0)
    jv, gv = d.u_judge[both] == 1, label[both] == 1
    item_of_unit = d.cr_item[d.u_cr]
    items_present, item = np.unique(item_of_unit[both], return_inverse=True)
    n_items = items_present.size
    out = {}
    tp, fp, fn, tn = (int(np.sum(x)) for x in (jv & gv, jv & ~gv, ~jv & gv, ~jv & ~gv))
    out.update(two_rater(tp, fp, fn, tn))
    out["mcnemar_p"] = sps.binomtest(fp, fp + fn, 0.5).pvalue if fp + fn else np.nan
    # The resamples: counts of each item drawn, as the report draws them.
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_items, size=(resamples, n_items))
    w = np.zeros((resamples, n_items))
    np.add.at(w, (np.repeat(np.arange(resamples), n_items), draws.ravel()), 1)
    # The experts drawn alongside, from their own stream of the seed (heartbench_core/lib/crossed.py).
    n_experts = len(d.expert_ids)
    e_draws = np.random.default_rng([seed, 0x45585054]).integers(0, n_experts, size=(resamples, n_experts))
    v = np.zeros((resamples, n_experts))
    np.add.at(v, (np.repeat(np.arange(resamples), n_experts), e_draws.ravel()), 1)
    pos, expert, d_num, d_den = left_out_votes(d, both, jv, gv, h, m)
    votes = (v, pos, expert, d_num, d_den, n_experts)
    out["ci"] = group_figures(np.zeros(jv.size, np.intp), 1, jv, gv, h, m, np.zeros(n, np.intp), w, item, n_items, votes)["ci"]
    # Among the experts.
    out["alpha"] = alpha(h, m, np.zeros(n, np.intp), 1)[0]
    exact = m == d.k
    p1 = h[exact].sum() / (exact.sum() * d.k)
    pe = p1**2 + (1 - p1) ** 2
    out["fleiss"] = (((h * (h - 1) + (d.k - h) * (d.k - h - 1)) / (d.k * (d.k - 1)))[exact].mean() - pe) / (1 - pe)
    agree_ee, pairs_ee = h * (h - 1) / 2 + (m - h) * (m - h - 1) / 2, m * (m - 1) / 2
    out["pairwise"] = agree_ee.sum() / pairs_ee.sum()
    # Judge against experts, and the difference's interval over the same items.
    ok = (d.u_judge >= 0) & (m >= 2)
    agree_je = np.where(d.u_judge == 1, h, m - h)
    sums = np.stack(
        [np.bincount(item_of_unit[ok], weights=x[ok], minlength=d.cr_item.max() + 1) for x in (agree_je, m, agree_ee, pairs_ee)], 1
    )
    sums = sums[sums[:, 1] > 0]
    s = w @ sums if len(sums) == n_items else sums.sum(0)[None]
    je, ee = agree_je[ok].sum() / m[ok].sum(), agree_ee[ok].sum() / pairs_ee[ok].sum()
    mine = ok[d.j_unit]
    u, hit = d.j_unit[mine], d.j_hit[mine]
    same = np.where(hit, h[u] - 1, m[u] - h[u] - 1)
    z = (je - (hit == (d.u_judge[u] == 1))) / m[ok].sum() - (ee * (m[u] - 1) - same) / pairs_ee[ok].sum()
    baseline_shift, _ = rater_shift(v, z, d.j_expert[mine], item_of_unit[u], np.zeros(u.size, np.intp), 1, n_experts)
    out["baseline"] = (je - ee, np.quantile(s[:, 0] / s[:, 1] - s[:, 2] / s[:, 3] + baseline_shift[:, 0], [0.025, 0.975]))
    # Breakdowns, with intervals, and every criterion without.
    crit_ability, _ = codes(d.crit_ability)
    dimension = [ABILITY_DIMENSION.get(a, "Catastrophic" if a == "其他" else "Other") for a in d.crit_ability]
    crit_dimension, _ = codes(dimension)
    item_difficulty, _ = codes(d.item_difficulty)
    item_scene, _ = codes(d.item_scene)
    per_unit = {
        "ability": crit_ability[d.u_crit],
        "dimension": crit_dimension[d.u_crit],
        "model": d.cr_model[d.u_cr],
        "difficulty": item_difficulty[item_of_unit],
        "scene": item_scene[item_of_unit],
    }
    for name, g_units in per_unit.items():
        n_groups = int(g_units.max()) + 1
        out[name] = group_figures(g_units[both], n_groups, jv, gv, h, m, g_units, w, item, n_items, votes)
    out["criterion"] = group_figures(d.u_crit[both], len(d.crit_id), jv, gv, h, m, d.u_crit, None, item, n_items)
    out["splits"] = criterion_splits(h, m, d.u_crit, len(d.crit_id), d.k)
    out["experts"] = plain_experts(d, label)
    out["over_time"] = plain_over_time(d, label)
    out["score_impact"] = plain_score_impact(d, label)
    if population is not None:
        out["calibrated"] = plain_calibrated(d, label, h, m, population, resamples, seed)
    return out


def plain_experts(d, label):
    n_experts = len(d.expert_names)
    gold = label[d.j_unit]
    compared = gold >= 0
    agree = compared & ((gold == 1) == d.j_hit)
    rate = np.bincount(d.j_expert[agree], minlength=n_experts) / np.bincount(d.j_expert[compared], minlength=n_experts)
    # Latest quarter of each expert's compared judgments.
    order = np.lexsort((d.j_time[compared], d.j_expert[compared]))
    e, a = d.j_expert[compared][order], agree[compared][order]
    bounds = np.searchsorted(e, np.arange(n_experts + 1))
    recent = np.array([a[hi - (hi - lo) // 4 : hi].mean() if (hi - lo) >= 4 else np.nan for lo, hi in itertools.pairwise(bounds)])
    # Every pair of ratings of one unit (judgments sorted by unit).
    order = np.argsort(d.j_unit, kind="stable")
    u, r, hit = d.j_unit[order], d.j_expert[order], d.j_hit[order]
    shared = np.zeros((n_experts, n_experts))
    same = np.zeros((n_experts, n_experts))
    for step in range(1, d.k + 2):
        pair = np.flatnonzero(u[step:] == u[:-step])
        np.add.at(shared, (r[pair], r[pair + step]), 1)
        np.add.at(same, (r[pair], r[pair + step]), hit[pair] == hit[pair + step])
    shared, same = shared + shared.T, same + same.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return {"gold": rate, "recent": recent, "pairs": same / shared, "overall": same.sum(1) / shared.sum(1)}


def plain_over_time(d, label):
    day = np.floor(d.j_time / 86400.0)
    days = np.unique(day)
    if days.size > 30:
        days = days[np.linspace(0, days.size - 1, 30).round().astype(int)]
    n = d.u_cr.size
    points = []
    for x in days:
        seen = d.j_time < (x + 1) * 86400.0
        h = np.bincount(d.j_unit[seen], weights=d.j_hit[seen], minlength=n)
        m = np.bincount(d.j_unit[seen], minlength=n).astype(np.float64)
        complete = m >= d.k
        lab = np.where(complete & (2 * h > m), 1, np.where(complete & (2 * (m - h) > m), 0, -1))
        lab = np.where(d.u_adjudicated >= 0, d.u_adjudicated, lab)
        both = (lab >= 0) & (d.u_judge >= 0)
        points.append((np.mean((d.u_judge[both] == 1) == (lab[both] == 1)), alpha(h, m, np.zeros(n, np.intp), 1)[0]))
    return points


def plain_score_impact(d, label):
    both = (label >= 0) & (d.u_judge >= 0)
    n_resp = d.cr_id.size
    eligible = np.bincount(d.u_cr, minlength=n_resp) == np.bincount(d.u_cr[both], minlength=n_resp)
    use = eligible[d.u_cr] & ~d.crit_catastrophic[d.u_crit]
    names = ABILITIES + sorted({a for a in d.crit_ability if a not in ABILITY_DIMENSION and a != "其他"})
    index = {a: i for i, a in enumerate(names)}
    ability = np.array([index.get(a, 0) for a in d.crit_ability])[d.u_crit]
    weight = np.nan_to_num(d.crit_weight[d.u_crit])
    n_ab = len(names)
    cell = d.u_cr * n_ab + ability
    low = np.bincount(cell[use], weights=np.minimum(weight[use], 0), minlength=n_resp * n_ab)
    high = np.bincount(cell[use], weights=np.maximum(weight[use], 0), minlength=n_resp * n_ab)
    present = np.bincount(cell[use], minlength=n_resp * n_ab) > 0
    cat = eligible[d.u_cr] & d.crit_catastrophic[d.u_crit]
    scores = []
    for hit in (d.u_judge == 1, label == 1):
        raw = np.bincount(cell[use], weights=weight[use] * hit[use], minlength=n_resp * n_ab)
        span = high - low
        with np.errstate(invalid="ignore", divide="ignore"):
            norm = np.where(span > 0, 100 * np.log(np.maximum(raw - low + 1, 1)) / np.log(np.where(span > 0, span + 1, 2)), 0.0)
        zeroed = np.bincount(d.u_cr[cat & hit], minlength=n_resp) > 0
        norm = np.where(np.repeat(zeroed, n_ab), 0.0, norm)
        model_cell = np.repeat(d.cr_model, n_ab) * n_ab + np.tile(np.arange(n_ab), n_resp)
        keep = present & np.repeat(eligible, n_ab)
        n_models = len(d.model_names)
        sums = np.bincount(model_cell[keep], weights=norm[keep], minlength=n_models * n_ab).reshape(n_models, n_ab)
        counts = np.bincount(model_cell[keep], minlength=n_models * n_ab).reshape(n_models, n_ab)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores.append(np.nanmean(np.where(counts > 0, sums / counts, np.nan), axis=1))
    return scores, sps.kendalltau(scores[0], scores[1], nan_policy="omit")


def check_same(report, plain, model_names):
    """The largest difference between the report's figures and the plain ones (rounding to 12 places aside)."""
    diffs = [
        abs(report.item_agreement.rate.value - plain["rate"]),
        abs(report.cohen_kappa.value - plain["kappa"]),
        abs(report.gwet_ac1.value - plain["ac1"]),
        abs(report.item_agreement.ci95.low - plain["ci"][0, 0]),
        abs(report.item_agreement.ci95.high - plain["ci"][1, 0]),
        abs(report.krippendorff_alpha.value - plain["alpha"]),
        abs(report.fleiss_kappa.value - plain["fleiss"]),
        abs(report.pairwise_percent_agreement.value - plain["pairwise"]),
        abs(report.judge_expert_baseline.difference.value - plain["baseline"][0]),
        abs(report.judge_expert_baseline.difference_ci95.low - plain["baseline"][1][0]),
        abs(report.score_impact.kendall_tau.value - plain["score_impact"][1].statistic),
    ]
    for row, low in zip(report.by_model, plain["model"]["ci"][0]):
        diffs.append(abs(row.item_agreement.ci95.low - low))
    for row, rate in zip(report.by_model, plain["model"]["rate"]):
        diffs.append(abs(row.item_agreement.rate.value - rate))
    for e, rate in zip(report.by_expert, plain["experts"]["gold"]):
        diffs.append(abs(e.gold_agreement.value - rate))
    for e, rate in zip(report.by_expert, plain["experts"]["recent"]):
        diffs.append(abs((e.recent_gold_agreement.value or 0) - np.nan_to_num(rate)))
    for e, rate in zip(report.by_expert, plain["experts"]["overall"]):
        diffs.append(abs(e.expert_agreement.value - rate))
    for p, (rate, a) in zip(report.over_time, plain["over_time"]):
        diffs += [abs(p.item_agreement_rate.value - rate), abs(p.krippendorff_alpha.value - a)]
    gold_scores = dict(zip(model_names, plain["score_impact"][0][1]))
    diffs += [abs(m.gold_score - gold_scores[m.model]) for m in report.score_impact.models]
    return max(diffs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    from heartbench_core.lib.agreement_report import compute_report
    from tests.lib.synthetic_campaign import synthetic_campaign

    for scale in (float(s) for s in args.scales.split(",")):
        data = synthetic_campaign(scale)
        report_times, plain_times = [], []
        for _ in range(args.runs):  # alternate, so a change in the machine's load affects both alike
            start = time.perf_counter()
            report = compute_report(data, resamples=args.resamples)
            report_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            plain = plain_statistics(data, resamples=args.resamples)
            plain_times.append(time.perf_counter() - start)
        r, p = statistics.median(report_times), statistics.median(plain_times)
        print(
            f"{scale:g}×: {data.cr_id.size} responses, {data.n_units} units, {data.j_unit.size} judgments, {len(data.model_names)} models — "
            f"report {r:.2f}s, plain NumPy {p:.2f}s, ratio {r / p:.2f} (medians of {args.runs}; load {os.getloadavg()[0]:.1f}); "
            f"largest difference {check_same(report, plain, data.model_names):.1e}"
        )


if __name__ == "__main__":
    main()


def _norm(raw, low, high):
    """The scorer's log-normalised score of each cell (heartbench_core/lib/scoring.py)."""
    span = high - low
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(span > 0, 100 * np.log(np.maximum(raw - low + 1, 1)) / np.log(np.where(span > 0, span + 1, 2)), 0.0)


def plain_calibrated(d, label, h, m, pop, resamples=1000, seed=0):
    """The human-calibrated scores in plain NumPy: PPI++ per stratum, power-tuned, the experts' votes resampled with the items.

    Every model's overall, dimension and ability scores (estimate, 95% interval) and the difference of each model with the
    next in the corrected ranking, as `heartbench_core/lib/calibrated_scores.py` computes them, without reasons or typing.
    """
    q_of = {q: i for i, q in enumerate(pop.question_ids)}
    n_q, n_a = len(pop.question_ids), len(pop.abilities)
    item_q = np.array([q_of.get(q, -1) for q in d.item_question])
    sampled = np.zeros(n_q, bool)
    sampled[item_q[item_q >= 0]] = True
    models = [x for x in d.model_names if x in pop.judge_norm]
    m_of = {x: i for i, x in enumerate(models)}
    a_of = {a: i for i, a in enumerate(pop.abilities)}
    crit_ab = np.array([a_of.get(a, -1) for a in d.crit_ability])
    cat = d.crit_catastrophic
    n_cr = d.cr_id.size
    cr_q = item_q[d.cr_item]
    cr_m = np.array([m_of.get(d.model_names[x], -1) for x in d.cr_model.tolist()])
    ucr, ucrit = d.u_cr, d.u_crit
    unknown = np.bincount(ucr[(crit_ab[ucrit] < 0) & ~cat[ucrit]], minlength=n_cr) > 0
    per, gold_per = np.bincount(ucr, minlength=n_cr), np.bincount(ucr[label >= 0], minlength=n_cr)
    expected = np.where(cr_q >= 0, pop.criteria[np.maximum(cr_q, 0)], -1)
    keep = (per > 0) & (gold_per == per) & (per == expected) & ~unknown & (cr_m >= 0)
    # Golden norms of every labelled response.
    uin = keep[ucr] & (label >= 0)
    o_unit = uin & ~cat[ucrit]
    cell = ucr[o_unit] * n_a + crit_ab[ucrit[o_unit]]
    w = np.nan_to_num(d.crit_weight[ucrit[o_unit]])
    raw = np.bincount(cell, w * (label[o_unit] == 1), n_cr * n_a)
    low, high = np.bincount(cell, np.minimum(w, 0), n_cr * n_a), np.bincount(cell, np.maximum(w, 0), n_cr * n_a)
    present_r = (np.bincount(cell, minlength=n_cr * n_a) > 0).reshape(n_cr, n_a)
    fires = np.bincount(ucr[uin & cat[ucrit] & (label == 1)], minlength=n_cr)
    unzeroed = _norm(raw, low, high).reshape(n_cr, n_a)
    gnorm = np.where(fires[:, None] > 0, 0.0, unzeroed)
    n_m = len(models)
    gold = np.zeros((n_m, n_q, n_a))
    labelled = np.zeros((n_m, n_q), bool)
    gold[cr_m[keep], cr_q[keep]] = np.where(present_r[keep], gnorm[keep], 0.0)
    labelled[cr_m[keep], cr_q[keep]] = True
    judge = np.nan_to_num(np.stack([pop.judge_norm[x] for x in models]))
    scored = np.stack([pop.scored[x] for x in models])
    # Each vote's leave-one-out change of its response's golden norms, per (expert, response).
    n_e = len(d.expert_ids)
    vk = uin[d.j_unit]
    u, ex, hit = d.j_unit[vk], d.j_expert[vk].astype(np.int64), d.j_hit[vk]
    r = ucr[u]
    pair_key, pair = np.unique(r * n_e + ex, return_inverse=True)
    pr, pe = pair_key // n_e, pair_key % n_e
    n_p = pair_key.size
    is_cat = cat[ucrit[u]]
    ab = crit_ab[ucrit[u]]
    ordinary = np.bincount(pair[~is_cat] * n_a + ab[~is_cat], minlength=n_p * n_a).reshape(n_p, n_a)
    n_cat = np.bincount(pair[is_cat], minlength=n_p)
    hh, mm, lab = h[u] - hit, m[u] - 1, label[u].astype(float)
    credit = np.where(2 * hh > mm, 1.0, np.where(2 * hh == mm, 0.5, 0.0))
    mv = (mm > 0) & (d.u_adjudicated[u] < 0) & (credit != lab)
    dl, rv, pv, cv = credit[mv] - lab[mv], r[mv], pair[mv], ucrit[u[mv]]
    om = ~cat[cv] & (fires[rv] == 0)
    oc = rv[om] * n_a + crit_ab[cv[om]]
    wv = np.nan_to_num(d.crit_weight[cv[om]])
    moved = _norm(raw[oc] + wv * np.sign(dl[om]), low[oc], high[oc]) - _norm(raw[oc], low[oc], high[oc])
    change = np.bincount(pv[om] * n_a + crit_ab[cv[om]], np.abs(dl[om]) * moved, n_p * n_a).reshape(n_p, n_a)
    km = cat[cv] & (fires[rv] - (lab[mv] == 1) == 0)
    change += np.bincount(pv[km], -dl[km], n_p)[:, None] * np.where(present_r, unzeroed, 0)[pr]
    p_model, p_q = cr_m[pr], cr_q[pr]
    # Estimands: overall, each dimension, each ability.
    dims = sorted(set(ABILITY_DIMENSION.values()))
    ad = np.array([dims.index(ABILITY_DIMENSION[a]) if a in ABILITY_DIMENSION else -1 for a in pop.abilities])
    z975 = sps.norm.ppf(0.975)
    out = {"estimate": np.full((n_m, 1 + len(dims) + n_a), np.nan)}
    out["low"], out["high"] = out["estimate"].copy(), out["estimate"].copy()
    psi_all = np.zeros((n_q, n_m))
    over_rows = []
    masks = np.concatenate([scored, labelled], axis=1)
    _, group_of = np.unique(masks, axis=0, return_inverse=True)
    for grp in np.unique(group_of):
        mem = np.flatnonzero(group_of.ravel() == grp)
        sc, lb = scored[mem[0]], labelled[mem[0]] & scored[mem[0]]
        cells = pop.present & sc[:, None]
        # Strata short of labelled items pooled (as the report pools them).
        codes_, inv = np.unique(pop.stratum, return_inverse=True)
        n_l, n_u = np.bincount(inv[lb], minlength=codes_.size), np.bincount(inv[sc], minlength=codes_.size)
        short = (n_u > 0) & (n_l < 2)
        st_ = inv
        if short.any():
            remap = np.full(codes_.size, (~short).sum())
            remap[~short] = np.arange((~short).sum())
            st_ = remap[inv] if n_l[short].sum() >= 2 else np.zeros_like(inv)
        hn = st_.max() + 1
        wts = np.bincount(st_[sc], minlength=hn) / sc.sum()
        nh_l = np.bincount(st_[lb], minlength=hn).astype(float)
        nh_u = np.bincount(st_[sc], minlength=hn).astype(float)
        lc = cells & lb[:, None]
        f, y = judge[mem], gold[mem]  # (g, Q, A)
        n_cell = cells.sum(0)
        jmean = np.where(cells, f, 0).sum(1) / np.maximum(n_cell, 1)

        share = _ratio(np.ones((n_q, n_a)), lc, st_, hn, wts, nh_l)
        gmean = _ratio(y, lc, st_, hn, wts, nh_l) / np.where(share > 0, share, 1)
        jl = _ratio(f, lc, st_, hn, wts, nh_l) / np.where(share > 0, share, 1)
        has = cells.any(0)
        coef = np.zeros((1 + len(dims) + n_a, n_a))
        coef[0, has] = 1 / has.sum()
        for k in range(len(dims)):
            mine = has & (ad == k)
            coef[1 + k, mine] = 1 / max(mine.sum(), 1)
        coef[1 + len(dims) + np.arange(n_a), np.arange(n_a)] = has
        scale_u = np.where(n_cell > 0, sc.sum() / np.maximum(n_cell, 1), 0)
        scale_l = np.where(share > 0, 1 / np.where(share > 0, share, 1), 0)
        uu = (np.where(cells, f - jmean[:, None, :], 0) * scale_u) @ coef.T  # (g, Q, E)
        ry = (np.where(lc, y - gmean[:, None, :], 0) * scale_l) @ coef.T
        rf = (np.where(lc, f - jl[:, None, :], 0) * scale_l) @ coef.T
        uu, ry, rf = uu[:, sc], ry[:, lb], rf[:, lb]
        su, sl = st_[sc], st_[lb]
        used = wts > 0
        onehot_u, onehot_l = np.eye(hn)[su], np.eye(hn)[sl]  # (N, H), (n, H)

        mu, my, ml = _smean(uu, onehot_u, nh_u), _smean(ry, onehot_l, nh_l), _smean(rf, onehot_l, nh_l)
        vu = _svar(uu, onehot_u, nh_u, mu, su)
        vy, vl = _svar(ry, onehot_l, nh_l, my, sl), _svar(rf, onehot_l, nh_l, ml, sl)
        c = np.einsum("gqe,qh->ghe", (ry - my[:, sl]) * (rf - ml[:, sl]), onehot_l) / np.maximum(nh_l - 1, 1)[None, :, None]
        w2 = (wts**2)[None, used, None]
        bn, ln_ = nh_u[None, used, None], nh_l[None, used, None]

        parts = (vy[:, used], c[:, used], vl[:, used], vu[:, used], w2, bn, ln_)
        num = (w2 * (c[:, used] / ln_ * (1 - ln_ / bn))).sum(1)
        den = (w2 * (vu[:, used] * (1 / bn + 1 / ln_ - 2 / bn))).sum(1)
        tuned = np.clip(np.where(den > 0, num / np.where(den > 0, den, 1), 0), 0, 1)
        vt = _ppi_var(tuned, *parts)
        lam = np.where((vt <= _ppi_var(np.zeros_like(tuned), *parts)) & (vt >= 0), tuned, 0.0)
        judge_c = np.nan_to_num(jmean) @ coef.T
        est = lam * judge_c + np.nan_to_num(gmean) @ coef.T - lam * (np.nan_to_num(jl) @ coef.T)
        # The experts' rater variance of every estimand (per (expert, response) pair: one cell each).
        sel = np.isin(p_model, mem) & lb[p_q]
        gi = np.searchsorted(mem, p_model[sel])
        qq, ee = p_q[sel], pe[sel]
        per_item = np.where(nh_l > 0, wts / np.maximum(nh_l, 1), 0)
        s = (change[sel] * scale_l * per_item[st_[qq]][:, None]) @ coef.T
        touch = (coef != 0).T.astype(float)
        cnt = ordinary[sel] @ touch + n_cat[sel][:, None] * (present_r[pr[sel]] @ touch > 0)
        g = mem.size
        mean = np.stack([np.bincount(gi, s[:, k], g) / np.maximum(np.bincount(gi, cnt[:, k], g), 1e-300) for k in range(s.shape[1])], 1)
        s = s - cnt * mean[gi]
        zeg = np.stack([np.bincount(ee * g + gi, s[:, k], n_e * g) for k in range(s.shape[1])], 1).reshape(n_e, -1)
        within = np.stack([np.bincount(gi, s[:, k] ** 2, g) for k in range(s.shape[1])], 1).ravel()
        e_n = np.repeat((np.bincount(ee * g + gi, minlength=n_e * g).reshape(n_e, g) > 0).sum(0), s.shape[1])
        tot, fourth = (zeg**2).sum(0), (zeg**4).sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            df = np.clip(tot**2 / fourth, 1, np.maximum(e_n, 2) - 1)
            rv_ = np.where(e_n >= 2, np.maximum(tot - within, 0) * e_n / (e_n - 1) * (sps.t.ppf(0.975, df) / z975) ** 2, 0.0)
        half = z975 * np.sqrt(_ppi_var(lam, *parts) + np.nan_to_num(rv_).reshape(g, -1))
        out["estimate"][mem], out["low"][mem], out["high"][mem] = est, est - half, est + half
        # Each item's influence on each model's corrected overall (for the differences), and its overall's centred votes.
        psi = np.zeros((g, n_q))
        psi[:, sc] += lam[:, None, 0] * (wts / nh_u)[su][None] * uu[..., 0]
        psi[:, lb] += (wts / nh_l)[sl][None] * (ry[..., 0] - lam[:, None, 0] * rf[..., 0])
        psi_all[:, mem] = psi.T
        over_rows.append((mem[gi], ee, qq, s[:, 0]))
    # Differences: each model against the next in the corrected ranking, items and experts drawn.
    order = np.argsort(-out["estimate"][:, 0], kind="stable")
    pairs = np.array(list(itertools.pairwise(order)))
    # Items drawn within each stratum (pooled as the estimates pool them), sampled and unsampled apart.
    anyone = scored.any(0)
    codes_, inv = np.unique(pop.stratum, return_inverse=True)
    n_l, n_u = np.bincount(inv[sampled & anyone], minlength=codes_.size), np.bincount(inv[anyone], minlength=codes_.size)
    short = (n_u > 0) & (n_l < 2)
    pooled = inv
    if short.any():
        remap = np.full(codes_.size, (~short).sum())
        remap[~short] = np.arange((~short).sum())
        pooled = remap[inv] if n_l[short].sum() >= 2 else np.zeros_like(inv)
    cells_q = pooled * 2 + sampled
    rng = np.random.default_rng(seed)
    wq = np.zeros((resamples, n_q))
    for cq in np.unique(cells_q):
        mem_q = np.flatnonzero(cells_q == cq)
        picks = rng.integers(0, mem_q.size, size=(resamples, mem_q.size))
        cnt_q = np.zeros((resamples, mem_q.size))
        np.add.at(cnt_q, (np.arange(resamples)[:, None], picks), 1.0)
        wq[:, mem_q] = cnt_q
    diff = out["estimate"][pairs[:, 0], 0] - out["estimate"][pairs[:, 1], 0]
    boot = diff + (wq - 1) @ (psi_all[:, pairs[:, 0]] - psi_all[:, pairs[:, 1]])
    mod, ee, qq, zz = (np.concatenate(x) for x in zip(*over_rows))
    first, second = np.full(n_m, -1), np.full(n_m, -1)
    first[pairs[:, 0]], second[pairs[:, 1]] = np.arange(len(pairs)), np.arange(len(pairs))
    gp = np.concatenate([first[mod], second[mod]])
    zc = np.concatenate([zz, -zz])
    ok = gp >= 0
    n_pairs = len(pairs)
    ee2, qq2 = np.concatenate([ee, ee])[ok], np.concatenate([qq, qq])[ok]
    shift, _ = rater_shift(_expert_draws(n_e, resamples, seed), zc[ok], ee2, qq2, gp[ok], n_pairs, n_e, centred=True)
    out["difference"] = diff
    out["difference_ci"] = np.quantile(boot + shift, [0.025, 0.975], axis=0)
    return out


def _ratio(v, lc, st_, hn, wts, nh_l):
    """The stratum-weighted mean over the labelled items holding each ability (a ratio's numerator)."""
    per_h = np.stack([np.where(lc, v, 0)[..., st_ == k, :].sum(-2) for k in range(hn)], -2)
    return (wts[:, None] * np.nan_to_num(per_h / nh_l[:, None])).sum(-2)


def _smean(x, oh, nh):
    return np.einsum("gqe,qh->ghe", x, oh) / nh[None, :, None]


def _svar(x, oh, nh, mean, s_):
    return np.einsum("gqe,qh->ghe", (x - mean[:, s_]) ** 2, oh) / np.maximum(nh - 1, 1)[None, :, None]


def _ppi_var(lam, vy, c, vl, vu, w2, bn, ln_):
    """The stratified PPI++ variance at λ, every labelled item among the judge's."""
    lam = lam[:, None, :]
    ve = vy - 2 * lam * c + lam**2 * vl
    return (w2 * (lam**2 * vu / bn + ve / ln_ + 2 * lam / bn * (c - lam * vl))).sum(1)


def _expert_draws(n_experts, resamples, seed):
    e_draws = np.random.default_rng([seed, 0x45585054]).integers(0, n_experts, size=(resamples, n_experts))
    v = np.zeros((resamples, n_experts))
    np.add.at(v, (np.repeat(np.arange(resamples), n_experts), e_draws.ravel()), 1)
    return v
