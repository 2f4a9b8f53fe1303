# ruff: noqa
"""The oracle's copy of the agreement statistics as they were before the report was made flat at 100×.

As it read then: Agreement statistics as pure NumPy/SciPy: arrays in, figures out. No Django here.

The one implementation of every agreement figure the platform shows: the agreement report
(`heartbench_core.lib.agreement_report`) and the rubric-quality signals (`heartbench_core.lib.rubric_quality`)
both call these functions, with the same majority rule (`MajorityRule`, default `BLIND_TEST`).

Every function returns a `Stat`: the value, the number of units it was computed on, and a
reason when the statistic is undefined on its data (then the value is None, never 0).

Terms used throughout:
- a *unit* is one (response, criterion) pair;
- `hits[u]` / `ratings[u]` count the experts who marked unit u hit / who rated it at all;
- a *cluster* is the unit of resampling of a confidence interval: in the report, the item
  (question) a unit belongs to. Every sampled item is answered by every model, so all the
  (response, criterion) pairs of one item share the item's and its criteria's effects on
  whether judge and experts agree; resampling responses treats them as independent and gives
  intervals that are too narrow (see `clustered_mean_ci` and docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import krippendorff
import numpy as np
from scipy import stats as sps

NO_PAIRS = "no (response, criterion) pair has both a judge verdict and a golden label"


@dataclass(frozen=True)
class Stat:
    """A figure, the number of units it was computed on, and why it is undefined ("" when it is defined)."""

    value: float | None
    n: int
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def undefined(cls, n: int, reason: str, **extra: Any) -> Stat:
        """An undefined figure over n units, with the reason."""
        return cls(None, int(n), reason, extra)

    def as_dict(self) -> dict[str, Any]:
        """value, n, reason (None when defined) and the extra figures, JSON-ready."""
        return {"value": self.value, "n": self.n, "reason": self.reason or None, **self.extra}


def _f(x: Any) -> float:
    return float(round(float(x), 12))


# --- judge vs golden standard (two raters, binary) ------------------------------------------


def confusion(judge: np.ndarray, gold: np.ndarray) -> dict[str, int]:
    """2×2 counts with the golden standard as truth: tp = judge hit & gold hit, fp = judge hit & gold miss."""
    judge, gold = np.asarray(judge, bool), np.asarray(gold, bool)
    return {
        "tp": int(np.count_nonzero(judge & gold)),
        "fp": int(np.count_nonzero(judge & ~gold)),
        "fn": int(np.count_nonzero(~judge & gold)),
        "tn": int(np.count_nonzero(~judge & ~gold)),
    }


def item_agreement_rate(judge: np.ndarray, gold: np.ndarray) -> Stat:
    """Share of units where the judge's verdict equals the golden label (the benchmark's headline)."""
    judge, gold = np.asarray(judge, bool), np.asarray(gold, bool)
    n = judge.size
    if n == 0:
        return Stat.undefined(0, NO_PAIRS)
    return Stat(_f(np.count_nonzero(judge == gold) / n), n)


def hit_rate(values: np.ndarray) -> Stat:
    """Share of hits."""
    values = np.asarray(values, bool)
    if values.size == 0:
        return Stat.undefined(0, "no verdicts")
    return Stat(_f(values.mean()), values.size)


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> Stat:
    """Cohen's kappa of two binary raters; undefined when chance agreement is 1 (both constant and equal)."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    n = a.size
    if n == 0:
        return Stat.undefined(0, NO_PAIRS)
    po = np.count_nonzero(a == b) / n
    pa, pb = a.mean(), b.mean()
    pe = pa * pb + (1 - pa) * (1 - pb)
    if pe >= 1.0:
        return Stat.undefined(n, "both raters gave every unit the same value: chance agreement is 1, kappa is 0/0")
    return Stat(_f((po - pe) / (1 - pe)), n)


def gwet_ac1(a: np.ndarray, b: np.ndarray) -> Stat:
    """Gwet's AC1 of two binary raters: chance agreement 2π(1−π), π the mean hit share of both."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    n = a.size
    if n == 0:
        return Stat.undefined(0, NO_PAIRS)
    po = np.count_nonzero(a == b) / n
    pi = (a.mean() + b.mean()) / 2
    pe = 2 * pi * (1 - pi)  # at most 0.5, so AC1 is always defined on data
    return Stat(_f((po - pe) / (1 - pe)), n)


def mcnemar_exact(judge: np.ndarray, gold: np.ndarray) -> Stat:
    """Two-sided exact McNemar test: are judge-only hits (fp) as frequent as human-only hits (fn)?"""
    c = confusion(judge, gold)
    discordant = c["fp"] + c["fn"]
    n = int(np.asarray(judge).size)
    if n == 0:
        return Stat.undefined(0, "no compared pairs: " + NO_PAIRS, discordant=0)
    if discordant == 0:
        return Stat.undefined(n, f"no discordant pairs: judge and golden standard agree on all {n} compared pairs", discordant=0)
    p = sps.binomtest(c["fp"], discordant, 0.5, alternative="two-sided").pvalue
    return Stat(_f(p), n, extra={"discordant": discordant, "judge_only_hits": c["fp"], "human_only_hits": c["fn"]})


# --- confidence intervals by bootstrap over clusters (the report's cluster is the item) -----------

PERCENTILE = "percentile"


def _plural(unit: str) -> str:
    return unit if unit.endswith("s") else unit + "s"


def resample_weights(n_clusters: int, resamples: int, seed: int, chunk_cells: int = 4_000_000) -> Iterator[np.ndarray]:
    """Yield (resamples_in_chunk × n_clusters) count matrices: how often each cluster is drawn.

    Drawing n_clusters indices with replacement per resample (as scipy.stats.bootstrap does) and
    counting them lets every ratio of sums be one matrix product, for all groups at once.
    """
    rng = np.random.default_rng(seed)
    per_chunk = max(1, chunk_cells // max(n_clusters, 1))
    done = 0
    while done < resamples:
        b = min(per_chunk, resamples - done)
        idx = rng.integers(0, n_clusters, size=(b, n_clusters))
        idx += (np.arange(b) * n_clusters)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n_clusters).reshape(b, n_clusters).astype(np.float64)
        done += b


def bootstrap_ratio_ci(
    numerator: np.ndarray,
    denominator: np.ndarray,
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    weights: list[np.ndarray] | None = None,
    unit: str = "item",
) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Percentile CI of sum(numerator)/sum(denominator) resampling clusters (rows) with replacement.

    numerator, denominator: per-cluster sums, shape (clusters,) or (clusters, groups). Returns
    (low, high, reason) with NaN where a group's interval is undefined; a resample in which a
    group has no units is dropped for that group. `weights` reuses draws of `resample_weights`
    for the same clusters, so several statistics of one report share their resamples.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    squeeze = num.ndim == 1
    if squeeze:
        num, den = num[:, None], den[:, None]
    clusters, groups = num.shape
    nan = np.full(groups, np.nan)
    if clusters < 2:
        low, high = nan, nan.copy()
        reason = f"fewer than 2 {_plural(unit)}: no interval by resampling {_plural(unit)}"
    elif resamples < 1:
        low, high = nan, nan.copy()
        reason = "no bootstrap resamples requested"
    else:
        both = np.concatenate([num, den], axis=1)
        resamples = sum(len(w) for w in weights) if weights is not None else resamples
        ratios = np.empty((resamples, groups))
        row = 0
        for w in weights if weights is not None else resample_weights(clusters, resamples, seed):
            sums = w @ both
            with np.errstate(invalid="ignore", divide="ignore"):
                ratios[row : row + len(w)] = np.where(sums[:, groups:] > 0, sums[:, :groups] / sums[:, groups:], np.nan)
            row += len(w)
        alpha = (1 - level) / 2
        valid = ~np.isnan(ratios).all(axis=0)
        low, high = nan.copy(), nan.copy()
        # nanquantile loops over groups in Python; only groups with dropped resamples need it.
        gaps = valid & np.isnan(ratios).any(axis=0)
        full = valid & ~gaps
        if full.any():
            q = np.quantile(ratios[:, full], [alpha, 1 - alpha], axis=0)
            low[full], high[full] = q[0], q[1]
        if gaps.any():
            q = np.nanquantile(ratios[:, gaps], [alpha, 1 - alpha], axis=0)
            low[gaps], high[gaps] = q[0], q[1]
        reason = None
    if squeeze:
        return low[:1], high[:1], reason
    return low, high, reason


def ci_pair(low: float, high: float) -> list[float] | None:
    """A JSON-friendly [low, high], or None when undefined."""
    if np.isnan(low) or np.isnan(high):
        return None
    return [_f(low), _f(high)]


def resampling(
    unit: str, units: int, resamples: int, level: float = 0.95, method: str = PERCENTILE, effective_n: float | None = None
) -> dict[str, Any]:
    """What an interval resampled, for the report: unit, how many of them, resamples, level, method."""
    block: dict[str, Any] = {"unit": unit, "units": int(units), "resamples": int(resamples), "level": level, "method": method}
    if effective_n is not None:
        block["effective_n"] = round(float(effective_n), 3)  # pairs: three decimals say it, and hide rounding noise
    return block


# Changed on purpose (issue 29, items 10 and 11): below 50 items the percentile bootstrap fell short
# of 95% (0.916 at 20 items), and a group whose items all had the same rate got a point, [1.0, 1.0].
# The oracle computes the new intervals group by group with statsmodels, not with the report's code.
MIN_ITEMS_FOR_BOOTSTRAP = 50


def _wilson_t(count: float, nobs: float, items: int) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint

    alpha = 2 * sps.norm.sf(sps.t.ppf(0.975, items - 1))
    low, high = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    return max(float(low), 0.0), min(float(high), 1.0)


def _cluster_fit(values: np.ndarray, cluster: np.ndarray):
    import statsmodels.api as sm

    return sm.OLS(values, np.ones((values.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)


def _icc(values: np.ndarray, cluster: np.ndarray) -> float:
    """ρ from Kish's design effect of the mean of every unit, 1 when the data cannot tell."""
    p, n = float(values.mean()), values.size
    sizes = np.array([np.sum(cluster == c) for c in np.unique(cluster)], float)
    m = float((sizes**2).sum() / n)
    if np.unique(cluster).size < 2 or p in (0.0, 1.0) or m <= 1:
        return 1.0
    variance = float(_cluster_fit(values, cluster).bse[0]) ** 2
    return min(max((variance / (p * (1 - p) / n) - 1) / (m - 1), 0.0), 1.0)


@dataclass(frozen=True)
class ClusteredIntervals:
    """Intervals of a per-group mean, each by its own method."""

    low: np.ndarray  # per group; NaN where undefined
    high: np.ndarray
    clusters: np.ndarray  # per group: clusters holding at least one of its units
    n_clusters: int  # clusters resampled (those holding any unit)
    unit: str
    resamples: int
    level: float
    reason: str | None  # why no group has an interval, when none has
    method: list
    effective: list
    flat: list

    def pair(self, g: int = 0) -> list[float] | None:
        """Group g's interval as [low, high], or None."""
        return ci_pair(self.low[g], self.high[g])

    def group_reason(self, g: int = 0) -> str | None:
        """Why group g has no interval (None when it has one)."""
        if self.pair(g) is not None:
            return None
        if self.reason:
            return self.reason
        if self.flat[g]:
            return f"every {self.unit} has the same mean difference: no spread between {_plural(self.unit)} to estimate an interval from"
        return f"fewer than 2 {_plural(self.unit)} with pairs: no interval by resampling {_plural(self.unit)}"

    def resampled(self, g: int | None = None) -> dict[str, Any]:
        """The `resampling` block of the whole set (g None) or of one group (its own cluster count)."""
        units = self.n_clusters if g is None else int(self.clusters[g])
        method = self.method[g or 0]
        return resampling(self.unit, units, self.resamples if method == PERCENTILE else 0, self.level, method, self.effective[g or 0])


def cluster_draws(n_clusters: int, resamples: int, seed: int) -> list[np.ndarray] | None:
    """The report's one set of draws over n_clusters clusters (None when there is nothing to resample)."""
    if n_clusters < 2 or resamples < 1:
        return None
    return list(resample_weights(n_clusters, resamples, seed))


def clustered_mean_ci(
    values: np.ndarray,
    cluster: np.ndarray,
    group: np.ndarray | None = None,
    n_groups: int = 1,
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    weights: list[np.ndarray] | None = None,
    unit: str = "item",
    proportion: bool = True,
) -> ClusteredIntervals:
    """The report's intervals group by group: percentile bootstrap from 50 items, else Wilson (rates) or t (differences)."""
    values = np.asarray(values, np.float64)
    cluster = np.asarray(cluster, np.int64)
    group = np.zeros(cluster.size, np.int64) if group is None else np.asarray(group, np.int64)
    _, index = np.unique(cluster, return_inverse=True)
    index = index.reshape(-1)
    n_clusters = int(index.max()) + 1 if index.size else 0
    flat = index * n_groups + group
    size = n_clusters * n_groups
    num = np.bincount(flat, weights=values, minlength=size).reshape(n_clusters, n_groups)
    den = np.bincount(flat, minlength=size).reshape(n_clusters, n_groups).astype(np.float64)
    per_group = (den > 0).sum(axis=0).astype(np.int64)
    small = "wilson_design_effect" if proportion else "t"
    methods = [PERCENTILE if c >= MIN_ITEMS_FOR_BOOTSTRAP else small for c in per_group]
    effective: list = [None] * n_groups
    flats = [False] * n_groups
    if n_clusters == 0:
        low = high = np.full(n_groups, np.nan)
        reason: str | None = "no units to resample"
    else:
        low, high, reason = bootstrap_ratio_ci(num, den, resamples=resamples, seed=seed, level=level, weights=weights, unit=unit)
        low, high = low.copy(), high.copy()
        if reason is None:
            rho = None
            for g in range(n_groups):
                mine = group == g
                if per_group[g] < 2:
                    continue
                v, c = values[mine], index[mine]
                rates = [v[c == i].mean() for i in np.unique(c)]
                if max(rates) - min(rates) <= 1e-12:
                    flats[g] = True
                    low[g] = high[g] = np.nan
                    if proportion:
                        rho = _icc(values, index) if rho is None else rho
                        sizes = np.array([np.sum(c == i) for i in np.unique(c)], float)
                        n_eff = v.size / (1 + ((sizes**2).sum() / v.size - 1) * rho)
                        methods[g], effective[g] = "wilson_design_effect", n_eff
                        low[g], high[g] = _wilson_t(v.mean() * n_eff, n_eff, int(per_group[g]))
                elif methods[g] == "wilson_design_effect":
                    p = v.mean()
                    n_eff = min(p * (1 - p) / float(_cluster_fit(v, c).bse[0]) ** 2, v.size)
                    effective[g] = n_eff
                    low[g], high[g] = _wilson_t(p * n_eff, n_eff, int(per_group[g]))
                elif methods[g] == "t":
                    lo, hi = _cluster_fit(v, c).conf_int(alpha=1 - level)[0]
                    low[g], high[g] = max(lo, -1.0), min(hi, 1.0)
        few = per_group < 2
        low[few], high[few] = np.nan, np.nan
    resamples = sum(len(w) for w in weights) if weights is not None else max(int(resamples), 0)
    return ClusteredIntervals(low, high, per_group, n_clusters, unit, resamples, level, reason, methods, effective, flats)


# --- among the human experts -------------------------------------------------------------------


def krippendorff_alpha_nominal(hits: np.ndarray, ratings: np.ndarray) -> Stat:
    """Krippendorff's alpha (nominal) from per-unit hit and rating counts, via the krippendorff package.

    Units with fewer than 2 ratings are unpairable and carry no information; they are not
    counted in n. Missing ratings are allowed (any number of raters per unit).
    """
    hits, ratings = np.asarray(hits, np.int64), np.asarray(ratings, np.int64)
    pairable = ratings >= 2
    n = int(pairable.sum())
    if n == 0:
        return Stat.undefined(0, "no unit was rated by two or more experts", ratings=int(ratings.sum()))
    h, m = hits[pairable], ratings[pairable]
    total_hits = int(h.sum())
    if total_hits == 0 or total_hits == int(m.sum()):
        return Stat.undefined(
            n, "every rating has the same value: expected disagreement is 0, so alpha is undefined (0/0)", ratings=int(m.sum())
        )
    counts = np.stack([m - h, h], axis=1)
    value = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    return Stat(_f(value), n, extra={"ratings": int(m.sum())})


def binary_alpha_by_group(
    hits: np.ndarray, ratings: np.ndarray, group: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nominal alpha for binary ratings within each group at once (equals the package's value).

    Returns (alpha with NaN where undefined, pairable units, ratings) per group. With the
    coincidence matrix of Krippendorff (2011): alpha = 1 − (n − 1)·o₀₁ / (n₀·n₁), where
    o₀₁ = Σ_u h_u(m_u − h_u)/(m_u − 1) over units with m_u ≥ 2.
    """
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.float64)
    group = np.asarray(group, np.intp)
    ok = ratings >= 2
    h, m, g = hits[ok], ratings[ok], group[ok]
    o01 = np.bincount(g, weights=h * (m - h) / (m - 1), minlength=n_groups)
    n1 = np.bincount(g, weights=h, minlength=n_groups)
    n_all = np.bincount(g, weights=m, minlength=n_groups)
    units = np.bincount(g, minlength=n_groups)
    n0 = n_all - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.where((n0 > 0) & (n1 > 0), 1 - (n_all - 1) * o01 / (n0 * n1), np.nan)
    return alpha, units, n_all.astype(np.int64)


def fleiss_kappa(hits: np.ndarray, ratings: np.ndarray, k: int) -> Stat:
    """Fleiss' kappa over the units rated by exactly k experts (other units are left out and counted)."""
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.int64)
    if k < 2:
        return Stat.undefined(0, f"k = {k}: Fleiss' kappa needs at least 2 ratings per unit")
    exact = ratings == k
    n = int(exact.sum())
    left_out = int(((ratings >= 1) & ~exact).sum())
    if n == 0:
        return Stat.undefined(0, f"no unit has exactly {k} ratings", left_out=left_out)
    h = hits[exact]
    p1 = h.sum() / (n * k)
    pe = p1**2 + (1 - p1) ** 2
    if pe >= 1.0:
        return Stat.undefined(n, "every rating has the same value: chance agreement is 1, kappa is 0/0", left_out=left_out)
    per_unit = (h * (h - 1) + (k - h) * (k - h - 1)) / (k * (k - 1))
    return Stat(_f((per_unit.mean() - pe) / (1 - pe)), n, extra={"k": k, "left_out": left_out})


def agreeing_pairs(hits: np.ndarray, ratings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: (agreeing unordered rater pairs, all unordered rater pairs)."""
    h, m = np.asarray(hits, np.float64), np.asarray(ratings, np.float64)
    agree = h * (h - 1) / 2 + (m - h) * (m - h - 1) / 2
    pairs = m * (m - 1) / 2
    return agree, pairs


def pairwise_percent_agreement(hits: np.ndarray, ratings: np.ndarray) -> Stat:
    """Share of agreeing expert pairs, pooled over every pair of experts who rated the same unit."""
    agree, pairs = agreeing_pairs(hits, ratings)
    total = pairs.sum()
    units = int((np.asarray(ratings) >= 2).sum())
    if total == 0:
        return Stat.undefined(0, "no unit was rated by two or more experts", pairs=0)
    return Stat(_f(agree.sum() / total), units, extra={"pairs": int(total)})


def judge_expert_baseline(
    hits: np.ndarray,
    ratings: np.ndarray,
    judge: np.ndarray,
    cluster: np.ndarray,
    *,
    resamples: int = 1000,
    seed: int = 0,
    weights: list[np.ndarray] | None = None,
    unit: str = "item",
) -> dict[str, Any]:
    """Does the judge agree with the experts as often as an expert agrees with the other experts?

    Over units with a judge verdict and at least two expert ratings:
    - expert–expert: share of agreeing (expert, other expert) pairs on the same unit;
    - judge–expert: share of agreeing (judge, expert) pairs on the same unit;
    - difference = judge–expert − expert–expert, with a bootstrap CI resampling whole clusters
      (`cluster` per unit; the report passes the item, as for its other intervals).
    A difference whose interval covers 0 means the judge is indistinguishable from an expert.
    `weights` (draws of `resample_weights` with the same seed) are reused when they cover as
    many clusters as the baseline has; they are then exactly the draws it would make itself.
    """
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.float64)
    judge = np.asarray(judge, bool)
    cluster = np.asarray(cluster, np.intp)
    ok = ratings >= 2
    units = int(ok.sum())
    if units == 0:
        missing = "no unit has a judge verdict and two or more expert ratings"
        return {
            "units": 0,
            "judge_expert": Stat.undefined(0, missing).as_dict(),
            "expert_expert": Stat.undefined(0, missing).as_dict(),
            "difference": None,
            "difference_ci95": None,
            "resampled": resampling(unit, 0, 0),
            "reason": missing,
        }
    h, m, j, c = hits[ok], ratings[ok], judge[ok], cluster[ok]
    agree_ee, pairs_ee = agreeing_pairs(h, m)
    agree_je = np.where(j, h, m - h)
    je = agree_je.sum() / m.sum()
    ee = agree_ee.sum() / pairs_ee.sum()
    n_clusters = int(c.max()) + 1
    sums = np.zeros((n_clusters, 4))
    for col, values in enumerate((agree_je, m, agree_ee, pairs_ee)):
        sums[:, col] = np.bincount(c, weights=values, minlength=n_clusters)
    present = sums[:, 1] > 0
    sums = sums[present]
    diff_ci = None
    reason: str | None = None
    drawn = 0
    method = PERCENTILE if len(sums) >= MIN_ITEMS_FOR_BOOTSTRAP else "t"
    if len(sums) >= 2 and resamples > 0 and method == "t":
        # The difference as a mean of unit scores (its linearisation), clustered by item, through statsmodels.
        score = (agree_je - je * m) / m.mean() - (agree_ee - ee * pairs_ee) / pairs_ee.mean() + (je - ee)
        per_item = np.array([np.sum(score[c == i] - (je - ee)) for i in np.unique(c)])
        if np.abs(per_item).max() <= 1e-9:
            reason = f"every {unit} has the same mean difference: no spread between {_plural(unit)} to estimate an interval from"
        else:
            lo, hi = _cluster_fit(score, c).conf_int(alpha=0.05)[0]
            diff_ci = [_f(max(lo, -1.0)), _f(min(hi, 1.0))]
    elif len(sums) >= 2 and resamples > 0:
        diffs = np.empty(resamples)
        row = 0
        reuse = weights is not None and sum(len(w) for w in weights) == resamples and all(w.shape[1] == len(sums) for w in weights)
        for w in weights if reuse and weights is not None else resample_weights(len(sums), resamples, seed):
            s = w @ sums
            diffs[row : row + len(w)] = s[:, 0] / s[:, 1] - s[:, 2] / s[:, 3]
            row += len(w)
        lo, hi = np.quantile(diffs, [0.025, 0.975])
        diff_ci = [_f(lo), _f(hi)]
        drawn = resamples
    elif resamples < 1:
        reason = "no bootstrap resamples requested"
    else:
        reason = f"fewer than 2 {_plural(unit)}: no interval by resampling {_plural(unit)}"
    out = {
        "units": units,
        "judge_expert": Stat(_f(je), units, extra={"pairs": int(m.sum())}).as_dict(),
        "expert_expert": Stat(_f(ee), units, extra={"pairs": int(pairs_ee.sum())}).as_dict(),
        "difference": _f(je - ee),
        "difference_ci95": diff_ci,
        "resampled": resampling(unit, len(sums), drawn, method=method),
    }
    if reason:
        out["reason"] = reason
    return out


# --- majority labels (the golden standard's, and the rubric page's judge–human agreement) ------------

NO_LABEL, MISS, HIT = -1, 0, 1
UNANIMOUS, MAJORITY = "unanimous", "majority"


@dataclass(frozen=True)
class MajorityRule:
    """When the experts' ratings of a unit give it a label: `min_ratings` ratings, more than half agreeing.

    The blind test's rule (`BLIND_TEST`) waits until a unit has its k = 3 ratings and takes the
    value at least 2 of the 3 gave: strictly more than half of the ratings. A tie (possible with
    an even number of ratings) has no majority; neither has a unit still waiting for ratings.
    Both are left out of every comparison with the judge, and counted.
    """

    min_ratings: int = 3

    def complete(self, ratings: np.ndarray) -> np.ndarray:
        """Per unit: it has the ratings the rule waits for."""
        ratings = np.asarray(ratings, np.int64)
        return (ratings >= max(self.min_ratings, 1)) & (ratings > 0)

    def describe(self) -> str:
        """The rule in words, for reasons and pages."""
        return f"at least {self.min_ratings} expert ratings, more than half of them agreeing"


BLIND_TEST = MajorityRule(min_ratings=3)


def majority_labels(hits: np.ndarray, ratings: np.ndarray, rule: MajorityRule = BLIND_TEST) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strict-majority labels under `rule`: (label −1/0/1, unanimous bool, tie bool) per unit.

    A unit gets a label once it is complete under the rule (at least `rule.min_ratings` ratings)
    and a strict majority (more than half) agree; a tie among complete ratings has no label and
    goes to adjudication; an incomplete unit has neither.
    """
    h, m = np.asarray(hits, np.int64), np.asarray(ratings, np.int64)
    complete = rule.complete(m)
    hit = complete & (2 * h > m)
    miss = complete & (2 * (m - h) > m)
    label = np.full(h.shape, NO_LABEL, dtype=np.int8)
    label[hit] = HIT
    label[miss] = MISS
    unanimous = complete & ((h == m) | (h == 0))
    tie = complete & (2 * h == m)
    return label, unanimous, tie


def judge_majority_agreement(judge: np.ndarray, hits: np.ndarray, ratings: np.ndarray, rule: MajorityRule = BLIND_TEST) -> Stat:
    """Share of units where the judge's verdict equals the experts' majority label under `rule`.

    judge, hits, ratings: one entry per unit with a judge verdict. Units without a majority are
    left out and counted in `extra`: `ties`, `incomplete` (rated, still short of the rule's
    ratings), and their sum `without_majority`.
    """
    judge = np.asarray(judge, bool)
    ratings = np.asarray(ratings, np.int64)
    label, _, tie = majority_labels(hits, ratings, rule)
    labelled = label >= 0
    incomplete = int(((ratings > 0) & ~rule.complete(ratings)).sum())
    ties = int(tie.sum())
    extra = {"ties": ties, "incomplete": incomplete, "without_majority": ties + incomplete}
    if not labelled.any():
        return Stat.undefined(0, f"no unit has both a judge verdict and a majority label ({rule.describe()})", **extra)
    rate = item_agreement_rate(judge[labelled], label[labelled] == HIT)
    return Stat(rate.value, rate.n, rate.reason, extra)


# --- rankings ----------------------------------------------------------------------------------


def kendall_tau(x: np.ndarray, y: np.ndarray) -> Stat:
    """Kendall's tau-b between two score vectors of the same models."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    n = int(x.size)
    if n < 2:
        return Stat.undefined(n, "fewer than 2 models have both scores")
    if np.all(x == x[0]) or np.all(y == y[0]):
        return Stat.undefined(n, "one ranking gives every model the same score: tau is 0/0")
    result = sps.kendalltau(x, y)
    return Stat(_f(result.statistic), n, extra={"p_value": _f(result.pvalue)})


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based competition ranks, highest score first (ties share the better rank)."""
    scores = np.asarray(scores, np.float64)
    filled = np.where(np.isnan(scores), -np.inf, scores)
    return (sps.rankdata(-filled, method="min")).astype(int)
