"""Agreement statistics as pure NumPy/SciPy: arrays in, figures out. No Django here.

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

from heartbench_core.lib.lazy_scipy import stats as sps
from heartbench_core.lib.reasons import Reason

NO_PAIRS = Reason("no_pairs")


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
    return agreement_rate_of_counts(int(np.count_nonzero(judge == gold)), judge.size)


def agreement_rate_of_counts(agreeing: int, pairs: int) -> Stat:
    """`item_agreement_rate` of `pairs` compared pairs of which `agreeing` agree."""
    if pairs == 0:
        return Stat.undefined(0, NO_PAIRS)
    return Stat(_f(int(agreeing) / int(pairs)), int(pairs))


def hit_rate(values: np.ndarray) -> Stat:
    """Share of hits."""
    values = np.asarray(values, bool)
    if values.size == 0:
        return Stat.undefined(0, Reason("no_verdicts"))
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
        return Stat.undefined(n, Reason("kappa_constant_raters"))
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
        return Stat.undefined(0, Reason("no_compared_pairs"), discordant=0)
    if discordant == 0:
        return Stat.undefined(n, Reason("no_discordant_pairs", n=n), discordant=0)
    p = sps.binomtest(c["fp"], discordant, 0.5, alternative="two-sided").pvalue
    return Stat(_f(p), n, extra={"discordant": discordant, "judge_only_hits": c["fp"], "human_only_hits": c["fn"]})


def _dense_span(values: np.ndarray) -> tuple[int, int] | None:
    """(smallest value, span) of integers spread over a range not much wider than their count, else None.

    Such values (an item or a group per unit, cell codes item × group) are told apart by marking
    them in an array as long as their range: two linear passes where a sort of millions costs
    a tenth of a second or more.
    """
    if values.size < 2 or values.dtype.kind not in "iu":
        return None
    low, high = int(values.min()), int(values.max())
    span = high - low + 1
    return (low, span) if span <= 2 * values.size + 65_536 else None


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values in ascending order: `np.unique(values)`, without hashing.

    NumPy's `unique` hashes integers, which costs seconds on the million-element unit arrays of
    a report at 100× HeartBench. Integers within a narrow range are marked in an array; values
    in order already are only compared with their neighbours; the rest are sorted (stable).
    For integers and NaN-free floats the result is the same array.
    """
    s = np.asarray(values).reshape(-1)
    if s.size < 2:
        return np.sort(s)
    dense = _dense_span(s)
    if dense is not None:
        low, span = dense
        present = np.zeros(span, bool)
        present[s - low] = True
        return (np.flatnonzero(present) + low).astype(s.dtype, copy=False)
    if not (s[1:] >= s[:-1]).all():  # already in order (the judgments come sorted by unit): no sort, no copy
        s = np.sort(s, kind="stable")
    keep = np.empty(s.size, bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def sorted_unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, return_inverse=True)` for a 1-d array of integers: (distinct values, index of each value among them)."""
    values = np.asarray(values).reshape(-1)
    dense = _dense_span(values)
    if dense is not None:  # a narrow range: each value's index is the count of distinct values below it
        low, span = dense
        offset = values - low
        present = np.zeros(span, bool)
        present[offset] = True
        rank = np.cumsum(present, dtype=np.intp) - 1
        return (np.flatnonzero(present) + low).astype(values.dtype, copy=False), rank[offset]
    in_order = values.size < 2 or bool((values[1:] >= values[:-1]).all())
    order = None if in_order else np.argsort(values, kind="stable")
    s = values if order is None else values[order]
    new = np.empty(s.size, bool)
    if s.size:
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
    if order is None:  # already in order: each value's index is the count of distinct values up to it
        return s[new], np.cumsum(new) - 1
    inverse = np.empty(s.size, np.intp)
    inverse[order] = np.cumsum(new) - 1
    return s[new], inverse


# --- confidence intervals by bootstrap over clusters (the report's cluster is the item) -----------

PERCENTILE = "percentile"
CLUSTER_T = "t"
WILSON_DESIGN_EFFECT = "wilson_design_effect"
MIN_CLUSTERS_FOR_BOOTSTRAP = 50  # below, the percentile bootstrap falls short of its level (docs/validation.md, "Few items")


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
        reason = Reason("too_few_units", units=_plural(unit))
    elif resamples < 1:
        low, high = nan, nan.copy()
        reason = Reason("no_bootstrap_resamples")
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
    unit: str,
    units: int,
    resamples: int,
    level: float = 0.95,
    method: str = PERCENTILE,
    effective_n: float | None = None,
    experts: int | None = None,
) -> dict[str, Any]:
    """What an interval resampled, for the report: unit, how many of them, resamples, level, method (and a Wilson's sample).

    `experts`: the experts resampled with the items (`heartbench_core.lib.crossed`); absent when only items were.
    """
    block: dict[str, Any] = {"unit": unit, "units": int(units), "resamples": int(resamples), "level": level, "method": method}
    if effective_n is not None:
        block["effective_n"] = round(float(effective_n), 3)  # pairs: three decimals say it, and hide rounding noise
    if experts is not None:
        block["experts"] = int(experts)
    return block


def interval_method(clusters: int, *, proportion: bool = True) -> str:
    """The interval a mean over `clusters` clusters gets when its clusters differ.

    From 50 clusters on, the percentile bootstrap; below, where it falls short of its level, the
    Wilson interval on the design-effect sample size for a proportion and the cluster-robust t
    interval for other means (docs/validation.md, "Few items").
    """
    if clusters >= MIN_CLUSTERS_FOR_BOOTSTRAP:
        return PERCENTILE
    return WILSON_DESIGN_EFFECT if proportion else CLUSTER_T


def cluster_t_interval(
    estimate: np.ndarray, influence: np.ndarray, clusters: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, standard error) of an estimate per group from its clusters' influence (clusters × groups, summing to 0).

    The cluster-robust (sandwich) variance with the small-sample factor G/(G − 1) and the t
    quantile on G − 1 degrees of freedom, G the group's clusters: the usual interval when the
    clusters are too few for the bootstrap to reach its level (Cameron and Miller 2015).
    """
    g = np.asarray(clusters, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(g / (g - 1) * (np.asarray(influence, np.float64) ** 2).sum(axis=0))
        t = sps.t.ppf(0.5 + level / 2, np.maximum(g - 1, 1))
    return estimate - t * se, estimate + t * se, se


def wilson_interval(p: np.ndarray, n: np.ndarray, level: float = 0.95, df: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion p observed on n (possibly effective, non-integer) trials.

    With `df`, the normal quantile is replaced by Student's t on df degrees of freedom: Korn and
    Graubard's correction for a design effect estimated from few clusters (df = clusters − 1).
    """
    p, n = np.asarray(p, np.float64), np.asarray(n, np.float64)
    c = sps.norm.ppf(0.5 + level / 2) if df is None else sps.t.ppf(0.5 + level / 2, np.maximum(np.asarray(df, np.float64), 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        c2n = c * c / n
        centre = (p + c2n / 2) / (1 + c2n)
        half = c * np.sqrt(p * (1 - p) / n + c2n / (4 * n)) / (1 + c2n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def intra_cluster_correlation(num: np.ndarray, den: np.ndarray) -> float:
    """ρ of a 0/1 outcome from its per-cluster sums, through Kish's design effect 1 + (m̃ − 1)ρ; 1 when it cannot be told.

    The design effect is the cluster-robust variance of the mean over the binomial one; m̃ the
    size-weighted mean cluster size Σn²/Σn. Clamped to [0, 1]; when every unit has the same value
    (or every cluster holds one unit) the data say nothing of ρ, and 1, the most cautious, is taken.
    """
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    keep = den > 0
    num, den = num[keep], den[keep]
    clusters, total = den.size, float(den.sum())
    if clusters < 2 or total <= 0:
        return 1.0
    p = float(num.sum()) / total
    mean_size = float((den**2).sum()) / total
    if p <= 0.0 or p >= 1.0 or mean_size <= 1.0:
        return 1.0
    variance = clusters / (clusters - 1) * float(((num - p * den) ** 2).sum()) / total**2
    design_effect = variance / (p * (1 - p) / total)
    return float(min(max((design_effect - 1) / (mean_size - 1), 0.0), 1.0))


@dataclass(frozen=True)
class ClusteredIntervals:
    """Intervals of a per-group mean over clusters: each group's by its own method (see `clustered_mean_ci`)."""

    low: np.ndarray  # per group; NaN where undefined
    high: np.ndarray
    clusters: np.ndarray  # per group: clusters holding at least one of its units
    n_clusters: int  # clusters resampled (those holding any unit)
    unit: str
    resamples: int
    level: float
    reason: str | None  # why no group has an interval, when none has
    method: tuple[str, ...] = ()  # per group: PERCENTILE, CLUSTER_T or WILSON_DESIGN_EFFECT
    effective_n: np.ndarray | None = None  # per group: the Wilson interval's effective sample (NaN for the others)
    flat: np.ndarray | None = None  # per group: every cluster has the same mean (no spread to estimate from)
    experts: np.ndarray | None = None  # per group: experts resampled with the items (0: none); None: items only

    def pair(self, g: int = 0) -> list[float] | None:
        """Group g's interval as [low, high], or None."""
        return ci_pair(self.low[g], self.high[g])

    def group_reason(self, g: int = 0) -> str | None:
        """Why group g has no interval (None when it has one)."""
        if self.pair(g) is not None:
            return None
        if self.reason:
            return self.reason
        if self.flat is not None and self.flat[g] and self.clusters[g] >= 2:
            return Reason("no_spread", unit=self.unit, units=_plural(self.unit))
        return Reason("too_few_units_with_pairs", units=_plural(self.unit))

    def group_method(self, g: int = 0) -> str:
        """The method of group g's interval (what its item count selects when it has none)."""
        return self.method[g] if self.method else PERCENTILE

    def resampled(self, g: int | None = None) -> dict[str, Any]:
        """The `resampling` block of the whole set (g None: its first group) or of one group (its own cluster count)."""
        units = self.n_clusters if g is None else int(self.clusters[g])
        method = self.group_method(g or 0)
        effective = None
        if method == WILSON_DESIGN_EFFECT and self.effective_n is not None and not np.isnan(self.effective_n[g or 0]):
            effective = float(self.effective_n[g or 0])
        experts = None if self.experts is None or not self.experts[g or 0] else int(self.experts[g or 0])
        return resampling(self.unit, units, self.resamples if method == PERCENTILE else 0, self.level, method, effective, experts)


def _design_effect_sample(
    num: np.ndarray,
    den: np.ndarray,
    wanted: np.ndarray,
    flat: np.ndarray,
    clusters: np.ndarray,
    spread: np.ndarray,
    mean: np.ndarray,
    total: np.ndarray,
) -> np.ndarray:
    """The Wilson interval's effective sample of each wanted group: its pairs over their design effect.

    Kish's design effect is the cluster-robust variance of the group's rate over the binomial
    one, so n / deff = p(1 − p) / variance (at most n: clusters never count for more than their
    pairs). A group whose clusters all have the same rate has no variance to read it from: its
    design effect is 1 + (m̃ − 1)ρ, with ρ the intra-cluster correlation of every unit given
    (`intra_cluster_correlation`) and m̃ the group's size-weighted mean cluster size.
    """
    n = total[wanted]
    g = clusters[wanted].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = g / (g - 1) * spread[wanted]
        own = np.minimum(mean[wanted] * (1 - mean[wanted]) / variance, n)
    if flat[wanted].any():
        rho = intra_cluster_correlation(num.sum(axis=1), den.sum(axis=1))
        mean_size = (den[:, wanted] ** 2).sum(axis=0) / n
        own = np.where(flat[wanted], n / (1 + (mean_size - 1) * rho), own)
    return own


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
    """CI of the mean of `values` within each group, treating whole clusters as the units sampled.

    values, cluster, group: one entry per unit (e.g. agreement 0/1, the unit's item, its model).
    With the item as cluster, units that share an item's or a criterion's effect move together.
    A group needs units in 2 clusters for an interval; its method depends on its clusters:

    - 50 or more: percentile bootstrap. Every resample draws as many clusters as hold a unit,
      with replacement, and takes all units of a drawn cluster together, in every group at once
      (a group's mean in a resample is a ratio of sums over the drawn clusters). `weights` are
      draws of `cluster_draws` over the same clusters (the distinct values of `cluster`, in
      sorted order), shared by several calls.
    - fewer than 50: the cluster-robust t interval (`cluster_t_interval`), which keeps its level
      where the percentile bootstrap falls short (docs/validation.md, "Few items").
    - every cluster at the same mean (all pairs agree, or none): both would collapse to a point
      that excludes every other truth. A proportion (`proportion`, values 0/1) then gets the
      Wilson interval on its design-effect sample size n / (1 + (m̃ − 1)ρ), ρ the
      intra-cluster correlation of all units given (`intra_cluster_correlation`; 1 when it
      cannot be told) and m̃ the group's size-weighted mean cluster size; other values
      (differences) get no interval, with the reason.
    """
    values = np.asarray(values, np.float64)
    cluster = np.asarray(cluster, np.int64)
    group = np.zeros(cluster.size, np.int64) if group is None else np.asarray(group, np.int64)
    _, index = sorted_unique_inverse(cluster)
    n_clusters = int(index.max()) + 1 if index.size else 0
    flat_index = index * n_groups + group
    size = n_clusters * n_groups
    num = np.bincount(flat_index, weights=values, minlength=size).reshape(n_clusters, n_groups)
    den = np.bincount(flat_index, minlength=size).reshape(n_clusters, n_groups).astype(np.float64)
    per_group = (den > 0).sum(axis=0).astype(np.int64)
    method = [interval_method(c, proportion=proportion) for c in per_group.tolist()]
    low, high = np.full(n_groups, np.nan), np.full(n_groups, np.nan)
    effective = np.full(n_groups, np.nan)
    flat = np.zeros(n_groups, bool)
    drawn = sum(len(w) for w in weights) if weights is not None else max(int(resamples), 0)
    reason: str | None = None
    if n_clusters == 0:
        reason = Reason("no_units_to_resample")
    elif n_clusters < 2:
        reason = Reason("too_few_units", units=_plural(unit))
    elif drawn < 1:
        reason = Reason("no_bootstrap_resamples")
    else:
        total = den.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = num.sum(axis=0) / total
            influence = (num - mean * den) / total  # each cluster's share of the mean's error; absent clusters 0
        spread = (influence**2).sum(axis=0)
        ok = per_group >= 2
        flat = ok & (spread <= 1e-24)
        if proportion:
            method = [WILSON_DESIGN_EFFECT if f else m for m, f in zip(method, flat.tolist())]
        chosen = np.array(method)
        boot = ok & ~flat & (chosen == PERCENTILE)
        if boot.any():
            b_low, b_high, _ = bootstrap_ratio_ci(num[:, boot], den[:, boot], resamples=resamples, seed=seed, level=level, weights=weights)
            low[boot], high[boot] = b_low, b_high
        t_groups = ok & ~flat & (chosen == CLUSTER_T)
        if t_groups.any():
            t_low, t_high, _ = cluster_t_interval(mean[t_groups], influence[:, t_groups], per_group[t_groups], level)
            low[t_groups], high[t_groups] = np.clip(t_low, -1.0, 1.0), np.clip(t_high, -1.0, 1.0)
        wilson = ok & (chosen == WILSON_DESIGN_EFFECT)
        if wilson.any():
            effective[wilson] = _design_effect_sample(num, den, wilson, flat, per_group, spread, mean, total)
            low[wilson], high[wilson] = wilson_interval(mean[wilson], effective[wilson], level, df=per_group[wilson] - 1)
    return ClusteredIntervals(low, high, per_group, n_clusters, unit, drawn, level, reason, tuple(method), effective, flat)


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
        return Stat.undefined(0, Reason("no_unit_rated_twice"), ratings=int(ratings.sum()))
    h, m = hits[pairable], ratings[pairable]
    total_hits = int(h.sum())
    if total_hits == 0 or total_hits == int(m.sum()):
        return Stat.undefined(n, Reason("alpha_constant"), ratings=int(m.sum()))
    counts = np.stack([m - h, h], axis=1)
    value = krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    return Stat(_f(value), n, extra={"ratings": int(m.sum())})


@dataclass(frozen=True)
class AlphaTerms:
    """The units binary alpha reads (two or more ratings), each with its share of the observed disagreement.

    Computed once per report and shared by every grouping of the same units.
    """

    pairable: np.ndarray  # per unit: rated two or more times
    disagreement: np.ndarray  # per pairable unit: h(m − h)/(m − 1)
    hits: np.ndarray  # per pairable unit, as floats
    ratings: np.ndarray


def alpha_terms(hits: np.ndarray, ratings: np.ndarray) -> AlphaTerms:
    """The pairable units of `hits`/`ratings` and their disagreement terms, for `binary_alpha_by_group`."""
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.float64)
    ok = ratings >= 2
    h, m = hits[ok], ratings[ok]
    return AlphaTerms(ok, h * (m - h) / (m - 1), h, m)


def binary_alpha_from_sums(o01: np.ndarray, n1: np.ndarray, n_all: np.ndarray) -> np.ndarray:
    """alpha = 1 − (n − 1)·o₀₁ / (n₀·n₁) per group from its sums (NaN where a value was never or always given)."""
    n0 = n_all - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((n0 > 0) & (n1 > 0), 1 - (n_all - 1) * o01 / (n0 * n1), np.nan)


def binary_alpha_by_group(
    hits: np.ndarray, ratings: np.ndarray, group: np.ndarray, n_groups: int, *, terms: AlphaTerms | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nominal alpha for binary ratings within each group at once (equals the package's value).

    Returns (alpha with NaN where undefined, pairable units, ratings) per group. With the
    coincidence matrix of Krippendorff (2011): alpha = 1 − (n − 1)·o₀₁ / (n₀·n₁), where
    o₀₁ = Σ_u h_u(m_u − h_u)/(m_u − 1) over units with m_u ≥ 2. `terms` (`alpha_terms` of the
    same hits and ratings) saves recomputing them for each grouping.
    """
    t = terms if terms is not None else alpha_terms(hits, ratings)
    g = np.asarray(group, np.intp)[t.pairable]
    o01 = np.bincount(g, weights=t.disagreement, minlength=n_groups)
    n1 = np.bincount(g, weights=t.hits, minlength=n_groups)
    n_all = np.bincount(g, weights=t.ratings, minlength=n_groups)
    units = np.bincount(g, minlength=n_groups)
    return binary_alpha_from_sums(o01, n1, n_all), units, n_all.astype(np.int64)


def rater_pair_counts(unit: np.ndarray, rater: np.ndarray, hit: np.ndarray, n_raters: int) -> tuple[np.ndarray, np.ndarray]:
    """(shared, same): per pair of raters, the ratings of one unit they share, and those on which they agree.

    Counted over ordered pairs of ratings of the same unit, a rating paired with itself included:
    with R[u, r] the ratings rater r gave unit u and H, M its hits and misses, shared = RᵀR and
    same = HᵀH + MᵀM, as floats. Only the ratings of the same unit are paired (a unit has a few),
    so this is linear in the ratings rather than a product over units × raters.
    """
    unit, rater, hit = np.asarray(unit, np.int64), np.asarray(rater, np.int64), np.asarray(hit, bool)
    if unit.size > 1 and not (unit[1:] >= unit[:-1]).all():
        order = np.argsort(unit, kind="stable")
        unit, rater, hit = unit[order], rater[order], hit[order]
    cells = n_raters * n_raters
    own = rater * (n_raters + 1)  # a rating with itself: the diagonal
    shared = np.bincount(own, minlength=cells).astype(np.float64).reshape(n_raters, n_raters)
    same = shared.copy()
    # Ratings i < i + d of one unit, d apart once sorted by unit; the pair (b, a) is the pair (a, b)
    # the other way round, so each step counts one order and adds its transpose.
    d = 1
    while d < unit.size:
        i = np.flatnonzero(unit[d:] == unit[:-d])
        if not i.size:
            break
        j = i + d
        ab = rater[i] * n_raters + rater[j]
        one_way = np.bincount(ab, minlength=cells).reshape(n_raters, n_raters)
        agreeing = np.bincount(ab, weights=hit[i] == hit[j], minlength=cells).reshape(n_raters, n_raters)
        shared += one_way + one_way.T
        same += agreeing + agreeing.T
        d += 1
    return shared, same


def fleiss_kappa(hits: np.ndarray, ratings: np.ndarray, k: int) -> Stat:
    """Fleiss' kappa over the units rated by exactly k experts (other units are left out and counted)."""
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.int64)
    if k < 2:
        return Stat.undefined(0, Reason("fleiss_too_few_ratings", k=k))
    exact = ratings == k
    n = int(exact.sum())
    left_out = int(((ratings >= 1) & ~exact).sum())
    if n == 0:
        return Stat.undefined(0, Reason("no_unit_with_k", k=k), left_out=left_out)
    h = hits[exact]
    p1 = h.sum() / (n * k)
    pe = p1**2 + (1 - p1) ** 2
    if pe >= 1.0:
        return Stat.undefined(n, Reason("fleiss_constant"), left_out=left_out)
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
        return Stat.undefined(0, Reason("no_unit_rated_twice"), pairs=0)
    return Stat(_f(agree.sum() / total), units, extra={"pairs": int(total)})


SPLIT_LEVEL = 0.05  # one-sided binomial p-value at or below which a criterion's splits stand out
SPLIT_MIN = 2  # split responses a criterion needs before it can be flagged


@dataclass(frozen=True)
class CriterionSplits:
    """Per group (a criterion): how often its experts split, against how often they split on the other groups.

    A unit counts once it has the ratings the campaign waits for (at least 2); it is *split* when its
    experts did not all give the same value. Under the hypothesis that the criterion is like the
    others, its split count is binomial with the others' split rate (its own units left out); a
    criterion is flagged when at least `SPLIT_MIN` of its units are split and that count or more
    has probability at most `SPLIT_LEVEL`. With 2 models a criterion has 2 units: both split is
    flagged when the others split on at most 22% of theirs.
    """

    units: np.ndarray  # units counted (complete)
    split: np.ndarray  # of which split
    ratings: np.ndarray  # ratings of the units counted
    others_rate: np.ndarray  # split rate of every other group's counted units; NaN when they have none
    others_units: np.ndarray
    p_value: np.ndarray  # P(X ≥ split), X ~ Binomial(units, others_rate); NaN where undefined
    flagged: np.ndarray


def criterion_splits(hits: np.ndarray, ratings: np.ndarray, group: np.ndarray, n_groups: int, *, min_ratings: int) -> CriterionSplits:
    """The experts' split rate of each group (criterion) and whether it stands out from the others' (`CriterionSplits`)."""
    hits, ratings = np.asarray(hits, np.int64), np.asarray(ratings, np.int64)
    group = np.asarray(group, np.intp)
    counted = ratings >= max(int(min_ratings), 2)
    split = counted & (hits > 0) & (hits < ratings)
    units = np.bincount(group[counted], minlength=n_groups)
    splits = np.bincount(group[split], minlength=n_groups)
    n_ratings = np.bincount(group[counted], weights=ratings[counted], minlength=n_groups).astype(np.int64)
    others_units = int(units.sum()) - units
    with np.errstate(invalid="ignore", divide="ignore"):
        others_rate = np.where(others_units > 0, (int(splits.sum()) - splits) / others_units, np.nan)
        p_value = np.where((units > 0) & (others_units > 0), sps.binom.sf(splits - 1, units, others_rate), np.nan)
    flagged = (splits >= SPLIT_MIN) & ~np.isnan(p_value) & (p_value <= SPLIT_LEVEL)
    return CriterionSplits(units, splits, n_ratings, others_rate, others_units, p_value, flagged)


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
    expert_part: tuple[np.ndarray, float, int] | None = None,
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
    `expert_part` (the experts' part of each resample, their rater variance and how many were
    resampled: `crossed.baseline_expert_part`) resamples the experts as well: it is added to
    each resample's difference, and its variance to the t interval's.
    """
    hits, ratings = np.asarray(hits, np.float64), np.asarray(ratings, np.float64)
    judge = np.asarray(judge, bool)
    cluster = np.asarray(cluster, np.intp)
    ok = ratings >= 2
    units = int(ok.sum())
    if units == 0:
        missing = Reason("no_overlap")
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
    method = interval_method(len(sums), proportion=False)
    if len(sums) >= 2 and resamples > 0 and method == CLUSTER_T:
        # Each item's share of the error of je − ee (the ratios linearised), for the t interval.
        influence = (sums[:, 0] - je * sums[:, 1]) / sums[:, 1].sum() - (sums[:, 2] - ee * sums[:, 3]) / sums[:, 3].sum()
        if float((influence**2).sum()) <= 1e-24:
            reason = Reason("no_spread", unit=unit, units=_plural(unit))
        else:
            lo_t, hi_t, se = cluster_t_interval(np.array([je - ee]), influence[:, None], np.array([len(sums)]))
            if expert_part is not None and expert_part[1] > 0:
                t = (hi_t - lo_t) / (2 * se)
                half = t * np.sqrt(se**2 + expert_part[1])
                lo_t, hi_t = (je - ee) - half, (je - ee) + half
            diff_ci = [_f(max(lo_t[0], -1.0)), _f(min(hi_t[0], 1.0))]
    elif len(sums) >= 2 and resamples > 0:
        diffs = np.empty(resamples)
        row = 0
        reuse = weights is not None and sum(len(w) for w in weights) == resamples and all(w.shape[1] == len(sums) for w in weights)
        for w in weights if reuse and weights is not None else resample_weights(len(sums), resamples, seed):
            s = w @ sums
            diffs[row : row + len(w)] = s[:, 0] / s[:, 1] - s[:, 2] / s[:, 3]
            row += len(w)
        if expert_part is not None:
            diffs += expert_part[0]
        lo, hi = np.quantile(diffs, [0.025, 0.975])
        diff_ci = [_f(lo), _f(hi)]
        drawn = resamples
    elif resamples < 1:
        reason = Reason("no_bootstrap_resamples")
    else:
        reason = Reason("too_few_units", units=_plural(unit))
    out = {
        "units": units,
        "judge_expert": Stat(_f(je), units, extra={"pairs": int(m.sum())}).as_dict(),
        "expert_expert": Stat(_f(ee), units, extra={"pairs": int(pairs_ee.sum())}).as_dict(),
        "difference": _f(je - ee),
        "difference_ci95": diff_ci,
        "resampled": resampling(unit, len(sums), drawn, method=method, experts=expert_part[2] if expert_part and diff_ci else None),
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
        return Reason("majority_rule", n=self.min_ratings)


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
        return Stat.undefined(0, Reason("no_majority_pairs", rule=rule.describe()), **extra)
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
        return Stat.undefined(n, Reason("too_few_models"))
    if np.all(x == x[0]) or np.all(y == y[0]):
        return Stat.undefined(n, Reason("tau_constant"))
    result = sps.kendalltau(x, y)
    return Stat(_f(result.statistic), n, extra={"p_value": _f(result.pvalue)})


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based competition ranks, highest score first (ties share the better rank)."""
    scores = np.asarray(scores, np.float64)
    filled = np.where(np.isnan(scores), -np.inf, scores)
    return (sps.rankdata(-filled, method="min")).astype(int)
