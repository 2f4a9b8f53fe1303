"""Intervals that resample items and experts together (items × experts crossed). Pure NumPy/SciPy.

Each expert of a blind test rates many items and each item is rated by a few experts: the two are
*crossed*. A lenient or harsh expert moves the golden labels of every unit they rated at once, so
the agreement a report measures depends on which experts happened to be in the pool; resampling
items alone treats those experts as the only ones there are and gives intervals that are too
narrow (docs/validation.md, "Items and experts").

The bootstrap follows Owen's (2007) pigeonhole bootstrap for crossed random effects: each
resample draws item multiplicities and, independently, expert multiplicities (`crossed_draws`).
A golden label, though, is the majority of a unit's three votes, and recounting it from drawn
experts directly leaves a third of them at zero: most units lose a vote and one in twenty every
vote, so the resampled labels are noisier than the real ones and the whole interval sits below
the estimate (tests/lib/test_intervals_over_items_and_experts_cover_the_truth_when_some_experts_are_more_lenient.py).
The experts therefore enter to first order, through how far each one's votes move the figure:

- the item part is the item bootstrap of `agreement`: every group's agreement on the drawn
  items (all of an item's units together, each as often as its item is drawn);
- the expert part is Σₑ (vₑ − 1)·δₑ, vₑ how often expert e is drawn and δₑ expert e's influence
  (`rater_variance`): how far the figure moves when e's votes are left out, against an average
  vote's, keeping only what repeats across the different items e rated (the noise of single
  votes and what the units of one item share are the item bootstrap's already), scaled so its
  variance over resamples is the rater variance.

With e's vote left out of a unit of three, the other two decide; if they split, the unit counts
half a hit and half a miss (what a coin toss gives on average); a unit that e alone rated has no
label without e and is left out. An adjudicated unit keeps its adjudicated label: no vote moves it.
The percentile interval of the sum is the interval over items and experts; the intervals for few
items (the cluster-robust t and the Wilson interval) add the rater variance to their own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from heartbench_core.lib import agreement as st
from heartbench_core.lib.lazy_scipy import stats as sps

EXPERT_STREAM = 0x45585054  # mixed into the seed of the expert draws: independent of the item draws of the same seed


@dataclass(frozen=True)
class CrossedDraw:
    """One chunk of resamples: how often each item and each expert is drawn (resamples in the chunk × items, × experts)."""

    items: np.ndarray
    experts: np.ndarray


def crossed_draws(
    n_items: int, n_experts: int, resamples: int, seed: int, *, item_draws: list[np.ndarray] | None = None
) -> list[CrossedDraw] | None:
    """Independent item and expert multiplicities for `resamples` resamples, in chunks (None: nothing to resample).

    The item multiplicities are those of `agreement.resample_weights(n_items, resamples, seed)`
    (or `item_draws`, the report's `cluster_draws` over the same items), so a report's item-only
    and crossed intervals see the same items drawn; the experts' come from their own stream of
    the same seed. Each row of `items` sums to n_items, each row of `experts` to n_experts.
    """
    if n_items < 2 or resamples < 1:
        return None
    items = item_draws if item_draws is not None else list(st.resample_weights(n_items, resamples, seed))
    rng = np.random.default_rng([int(seed), EXPERT_STREAM])
    out = []
    for w in items:
        b = len(w)
        if n_experts > 0:
            idx = rng.integers(0, n_experts, size=(b, n_experts))
            idx += (np.arange(b) * n_experts)[:, None]
            v = np.bincount(idx.ravel(), minlength=b * n_experts).reshape(b, n_experts).astype(np.float64)
        else:
            v = np.zeros((b, 0))
        out.append(CrossedDraw(w, v))
    return out


def expert_shift(draws: list[CrossedDraw], delta: np.ndarray) -> np.ndarray:
    """Σₑ (vₑ − 1)·δₑ per resample and group: the experts' part of every resample (resamples × groups).

    delta: (experts × groups) influences of `expert_influence`, experts in the draws' order.
    """
    return np.concatenate([(d.experts - 1.0) @ delta for d in draws]) if draws else np.zeros((0, delta.shape[1]))


@dataclass(frozen=True)
class LeftOut:
    """What leaving each expert's votes out changes, per judgment of a compared unit (see `leave_one_out`)."""

    unit: np.ndarray  # per such judgment: its unit's position among the compared units
    expert: np.ndarray
    d_num: np.ndarray  # change of the unit's agreement with the judge without this expert's vote
    d_den: np.ndarray  # change of its count (−1: the unit has no vote left)
    experts: np.ndarray  # per expert: rated a compared unit
    n_experts: int
    cells: BaseCells | None = None  # the votes summed per (base, expert) once (`with_base_cells`)

    @property
    def experts_rated(self) -> int:
        return int(self.experts.sum())

    @property
    def loses_units(self) -> bool:
        """Some unit has no vote left once one is left out (a unit with a single vote)."""
        return bool(self.d_den.any()) if self.cells is None else bool(self.cells.d_den.any())


@dataclass(frozen=True)
class BaseCells:
    """The votes of `LeftOut` summed once per (base, expert) cell, a base being a class of compared units (their criterion, say).

    Every grouping whose (group, item) is the same for all units of a base sums these cells
    instead of the votes: the sums are of halves and whole numbers, exact in any order, so they
    are those the votes give.
    """

    of_unit: np.ndarray  # per compared unit, its base (0 … bases − 1)
    base: np.ndarray  # per cell
    expert: np.ndarray
    count: np.ndarray  # votes
    d_num: np.ndarray
    d_den: np.ndarray


def with_base_cells(lo: LeftOut, base: np.ndarray) -> LeftOut:
    """`lo` with its votes summed per (base, expert) cell; `base` per compared unit (0 … bases − 1), finer than every grouping
    (with its item) that `expert_influence` will be asked for, or most of them."""
    base = np.asarray(base, np.int64)
    n_bases = int(base.max(initial=0)) + 1
    # One group, the bases in place of the items: the cells are (base, expert).
    keys, count, (d_num, d_den) = _cells(lo.expert, base[lo.unit], n_bases, 1, lo.n_experts, [lo.d_num, lo.d_den])
    cells = BaseCells(base, keys // lo.n_experts, keys % lo.n_experts, count, d_num, d_den)
    return replace(lo, cells=cells)


def _positions(unit: np.ndarray, j_unit: np.ndarray) -> np.ndarray:
    """Per judgment, the position of its unit among the compared `unit`s; -1 for a unit not compared."""
    span = int(max(j_unit.max(initial=0), unit.max(initial=0))) + 1
    position = np.full(span, -1, np.int64)
    position[unit] = np.arange(unit.size)
    return position[j_unit]


def _kept(pos: np.ndarray, expert: np.ndarray, hit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The votes with a position (`pos` ≥ 0): their positions, experts and hits (the arrays as given when every vote has one)."""
    has = pos >= 0
    if has.all():
        return pos, expert, hit
    keep = np.flatnonzero(has)
    return pos[keep], expert[keep], hit[keep]


def leave_one_out(
    unit: np.ndarray,
    agree: np.ndarray,
    judge: np.ndarray,
    fixed: np.ndarray,
    hits: np.ndarray,
    ratings: np.ndarray,
    j_unit: np.ndarray,
    j_expert: np.ndarray,
    j_hit: np.ndarray,
    n_experts: int,
) -> LeftOut:
    """How each compared unit's agreement changes when one of its experts' votes is left out.

    unit: the compared units (indices into the judgments' units); agree, judge: per compared unit,
    whether the judge agrees with its golden label and the judge's verdict; fixed: per compared
    unit, its label was adjudicated (no vote changes it). hits, ratings: per unit of the campaign
    (indexed like j_unit). Without expert e the unit's label is the majority of the other votes,
    half a hit on a tie, and none when no vote is left.
    """
    unit = np.asarray(unit, np.int64)
    j_unit = np.asarray(j_unit, np.int64)
    span = int(max(j_unit.max(initial=0), unit.max(initial=0))) + 1
    # Only the units no vote decides alone have a position: one gather per judgment finds the votes kept.
    # 32-bit positions where they fit: at 100× a judgment array of them is 19 MB rather than 38.
    small = unit.size < 2**31
    position = np.full(span, -1, np.int32 if small else np.int64)
    movable = np.flatnonzero(~np.asarray(fixed, bool))
    position[unit[movable]] = movable
    pos = position[j_unit]
    pos, expert, hit = _kept(pos, np.asarray(j_expert, np.int64), np.asarray(j_hit, bool))
    # A vote's change depends on its unit and on whether it is a hit, nothing else: both are
    # computed per compared unit (column 0: a miss left out, column 1: a hit), and each vote reads its own.
    hits, ratings = np.asarray(hits), np.asarray(ratings)
    counts = np.int64 if hits.dtype.kind in "iub" and ratings.dtype.kind in "iub" else np.float64
    h_all, m = hits[unit].astype(counts, copy=False), ratings[unit].astype(counts, copy=False) - 1  # the other votes' number
    labelled = m > 0
    verdict = np.asarray(judge, bool)
    agree_now = np.asarray(agree, np.float64)
    table = np.empty((unit.size, 2))
    for left_out_hit in (0, 1):
        h = h_all - left_out_hit  # the other votes' hits
        # The majority of the others: 1 (more hits), ½ (a tie) or 0; as the judge's verdict, the agreement is that or its complement.
        side = np.sign(2 * h - m)
        np.negative(side, out=side, where=~verdict)
        table[:, left_out_hit] = np.where(labelled, (side + 1) * 0.5, 0.0) - agree_now
    at = np.multiply(pos, 2, dtype=np.int64)
    at += hit
    d_num = table.ravel()[at]
    d_den = np.zeros(pos.size) if labelled.all() else np.where(labelled, 0.0, -1.0)[pos]
    del at
    rated = np.zeros(n_experts, bool)
    rated[expert] = True
    return LeftOut(pos, expert, d_num, d_den, rated, n_experts)


def rater_variance(
    z: np.ndarray,
    expert: np.ndarray,
    item: np.ndarray,
    group: np.ndarray | None,
    n_groups: int,
    n_experts: int,
    level: float = 0.95,
    *,
    count: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(δ, rater variance) per group from the change z that leaving out each vote makes (experts × groups, groups).

    z, expert, item, group: per vote (a judgment), the change of the group's figure when that
    vote is left out (to first order), its expert, its item and its group (None: one group).
    z − z̄ is the change against the average left-out vote of the group, Sₑᵢ its sum over the
    votes expert e gave on item i, Zₑ = Σᵢ Sₑᵢ how far e's votes move the figure from where an
    average expert's would.

    Part of Zₑ is chance: each vote has its own noise, and the units of one item move together;
    the item bootstrap sees both already. What it cannot see is the part of an expert's influence
    that repeats across the different items the expert rated: Σₑ Σᵢ≠ᵢ' Sₑᵢ·Sₑᵢ' =
    Σₑ (Zₑ² − Σᵢ Sₑᵢ²) (0 when negative). It is read from the E experts of the group: the rater
    variance is that sum times E/(E − 1) (the mean change took one degree of freedom) and
    (t/z)², t the Student quantile of the level and z the normal one: a variance read from a few
    dozen experts is itself uncertain, the more so when a few of them weigh most. Its degrees of
    freedom are the experts' effective number, Kish's (Σₑ Zₑ²)²/Σₑ Zₑ⁴ (E when every expert
    weighs alike, fewer when a few dominate), at most E − 1. δₑ is −Zₑ scaled so that Σₑ δₑ² is
    the rater variance: a resample's experts' part Σₑ (vₑ − 1)·δₑ then varies by it (Σₑ δₑ = 0).

    count: how many votes each row stands for (default one each): a row may sum the votes of one
    expert on one item, and z̄ is then Σ z / Σ count; rows already centred pass a count of 0.
    """
    z = np.asarray(z, np.float64)
    it = np.asarray(item, np.int64)
    n_items = int(it.max(initial=0)) + 1
    key = it.copy() if group is None else np.asarray(group, np.int64) * n_items + it
    weight = np.ones(z.size) if count is None else np.asarray(count, np.float64)
    keys, _, (z_sum, weight_sum) = _cells(np.asarray(expert, np.int64), key, n_items, n_groups, n_experts, [z, weight])
    return _influence_of_cells(keys, weight_sum, z_sum, n_items, n_experts, n_groups, level)


def rater_variance_from_sums(
    zeg: np.ndarray, within: np.ndarray, experts: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """`rater_variance` from its sums: Zₑ per expert and group (experts × groups), Σᵢ Sₑᵢ² per group, experts per group.

    For callers that hold the (expert, item, group) sums already, centred on the group's mean vote.
    """
    n_groups = zeg.shape[1]
    total = (zeg**2).sum(axis=0)
    e = np.maximum(experts, 2).astype(np.float64)
    # The experts' effective number (Kish) as degrees of freedom: E − 1 at most, fewer when a few experts dominate.
    fourth = (zeg**4).sum(axis=0)
    df = np.clip(np.divide(total**2, fourth, out=np.ones(n_groups), where=fourth > 0), 1.0, e - 1)
    student = (sps.t.ppf(0.5 + level / 2, df) / sps.norm.ppf(0.5 + level / 2)) ** 2
    variance = np.where(experts >= 2, np.maximum(total - within, 0.0) * e / (e - 1) * student, 0.0)
    scale = np.sqrt(np.divide(variance, total, out=np.zeros(n_groups), where=total > 0))
    return -zeg * scale, variance


def _cells(
    expert: np.ndarray, key: np.ndarray, n_items: int, n_groups: int, n_experts: int, values: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The (expert, item, group) cells of the votes: (keys, votes per cell, each of `values` summed per cell).

    key: per vote, group × n_items + item (overwritten). The cells' keys are group-major,
    (group × n_items + item) × n_experts + expert: votes come in unit order, so a group's keys run
    nearly in order.
    """
    key *= n_experts
    key += expert
    span = n_experts * n_items * n_groups
    if span <= 4 * key.size + 1_000_000:  # every cell in one array: linear passes
        per_cell = np.bincount(key, minlength=span)
        keys = np.flatnonzero(per_cell)
        count = per_cell[keys].astype(np.float64)
        sums = [np.bincount(key, weights=v, minlength=span)[keys] for v in values]
    else:
        keys, at = st.sorted_unique_inverse(key)
        count = np.bincount(at, minlength=keys.size).astype(np.float64)
        sums = [np.bincount(at, weights=v, minlength=keys.size) for v in values]
    return keys, count, sums


def _influence_of_cells(
    keys: np.ndarray, count: np.ndarray, z: np.ndarray, n_items: int, n_experts: int, n_groups: int, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """`rater_variance` from the sums of z over the votes of each (expert, item, group) cell (keys of `_cells`)."""
    g = keys // (n_items * n_experts)
    expert = keys % n_experts
    per_group = np.bincount(g, weights=count, minlength=n_groups)
    mean = np.divide(np.bincount(g, weights=z, minlength=n_groups), per_group, out=np.zeros(n_groups), where=per_group > 0)
    s = z - count * mean[g]  # Sₑᵢ: the cell's votes against the group's average vote
    eg = expert * n_groups + g
    zeg = np.bincount(eg, weights=s, minlength=n_experts * n_groups).reshape(n_experts, n_groups)
    within = np.bincount(g, weights=s * s, minlength=n_groups)
    experts = np.count_nonzero(np.bincount(eg, minlength=n_experts * n_groups).reshape(n_experts, n_groups), axis=0)
    return rater_variance_from_sums(zeg, within, experts, level)


def expert_influence(
    lo: LeftOut, item: np.ndarray, num: np.ndarray, den: np.ndarray, group: np.ndarray | None, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """`rater_variance` of each group's agreement: (δ, rater variance) per group.

    item: per compared unit, its item; num, den: each group's agreement sums over every compared
    unit; group: the group of each compared unit (None: one group). Leaving a vote out changes
    the group's agreement T = num/den by z = (Δnum − T·Δden)/den, to first order.

    z is linear in a vote's Δnum and Δden with its group's T and den, so `rater_variance`'s sums
    over the votes of an (expert, item, group) cell are those of Δnum and Δden (halves and whole
    numbers: their sums are exact) turned into z once per cell: one pass over the votes counts
    them, and every other step works on the cells.
    """
    # Each compared unit's (group, item), read by each of its votes.
    unit_key = np.asarray(item, np.int64)
    n_items = int(unit_key.max(initial=0)) + 1
    if group is not None:
        unit_key = np.asarray(group, np.int64) * n_items + unit_key
    loses_units = lo.loses_units
    keys = None
    if lo.cells is not None:  # every base within one (group, item): the cells sum the base cells
        c = lo.cells
        key_of_base = np.zeros(int(c.of_unit.max(initial=0)) + 1, np.int64)
        key_of_base[c.of_unit] = unit_key
        if np.array_equal(key_of_base[c.of_unit], unit_key):
            key = key_of_base[c.base]
            key *= lo.n_experts
            key += c.expert
            keys, at = st.sorted_unique_inverse(key)
            count = np.bincount(at, weights=c.count, minlength=keys.size)
            sums = [np.bincount(at, weights=v, minlength=keys.size) for v in ([c.d_num, c.d_den] if loses_units else [c.d_num])]
    if keys is None:
        values = [lo.d_num, lo.d_den] if loses_units else [lo.d_num]
        keys, count, sums = _cells(lo.expert, unit_key[lo.unit], n_items, n_groups, lo.n_experts, values)
    cell_group = keys // (n_items * lo.n_experts)
    t = np.divide(num, den, out=np.zeros(n_groups), where=den > 0)
    # A vote's group holds its unit, so its den is at least 1; a unit loses its count only when its one vote goes.
    z = (sums[0] - t[cell_group] * sums[1] if loses_units else sums[0]) / den[cell_group]
    return _influence_of_cells(keys, count, z, n_items, lo.n_experts, n_groups)


def baseline_expert_part(
    unit: np.ndarray,
    judge: np.ndarray,
    item: np.ndarray,
    hits: np.ndarray,
    ratings: np.ndarray,
    j_unit: np.ndarray,
    j_expert: np.ndarray,
    j_hit: np.ndarray,
    n_experts: int,
    draws: list[CrossedDraw],
) -> tuple[np.ndarray, float, int]:
    """The experts' part of the judge–expert baseline's resamples (`agreement.judge_expert_baseline`'s `expert_part`).

    unit, judge, item: the baseline's units (a judge verdict and two or more ratings), the judge's
    verdict on each and its item. Leaving out one vote of a unit of m with h hits changes the
    judge–expert agreement je = A/M by (je − a)/M, a = 1 when the vote is the judge's verdict,
    and the expert–expert agreement ee = B/P by (ee·(m − 1) − b)/P, b the other votes equal to it.
    Returns (per resample: Σₑ (vₑ − 1)·δₑ of je − ee, its rater variance, experts resampled).

    A vote's change depends on its unit and on whether it is a hit: both changes are computed
    per unit, and each vote reads its own.
    """
    unit = np.asarray(unit, np.int64)
    pos = _positions(unit, np.asarray(j_unit, np.int64))
    pos, expert, hit = _kept(pos, np.asarray(j_expert, np.int64), np.asarray(j_hit, bool))
    h = np.asarray(hits, np.float64)[unit]
    m = np.asarray(ratings, np.float64)[unit]
    judge = np.asarray(judge, bool)
    big_m = float(m.sum())
    a_all = float(np.where(judge, h, m - h).sum())
    pairs = m * (m - 1) / 2
    b_all = float((h * (h - 1) / 2 + (m - h) * (m - h - 1) / 2).sum())
    big_p = float(pairs.sum())
    je, ee = a_all / big_m, b_all / big_p
    # Per unit, the change a miss (column 0) and a hit (column 1) left out make.
    z_of = np.empty((unit.size, 2))
    for side, (a, same) in enumerate((((~judge).astype(np.float64), m - h - 1), (judge.astype(np.float64), h - 1))):
        z_of[:, side] = (je - a) / big_m - (ee * (m - 1) - same) / big_p
    at = 2 * pos
    at += hit
    z = z_of.ravel()[at]
    del at
    item_of_unit = np.asarray(item, np.int64)
    n_items = int(item_of_unit.max(initial=0)) + 1
    keys, count, (z_sums,) = _cells(expert, item_of_unit[pos], n_items, 1, n_experts, [z])
    delta, variance = _influence_of_cells(keys, count, z_sums, n_items, n_experts, 1)
    experts = int(np.count_nonzero(np.bincount(keys % n_experts, minlength=n_experts))) if keys.size else 0
    return expert_shift(draws, delta)[:, 0], float(variance[0]), experts


def item_ratios(num: np.ndarray, den: np.ndarray, draws: list[CrossedDraw]) -> np.ndarray:
    """Each group's ratio Σnum/Σden over the drawn items in every resample (resamples × groups; NaN: no unit drawn).

    num, den: per-item sums (items × groups).
    """
    both = np.concatenate([num, den], axis=1)
    groups = num.shape[1]
    out = []
    for d in draws:
        s = d.items @ both
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(s[:, groups:] > 0, s[:, :groups] / np.where(s[:, groups:] > 0, s[:, groups:], 1.0), np.nan))
    return np.concatenate(out)


def percentile_bounds(values: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the (1 − level)/2 and (1 + level)/2 quantiles of its values that are not NaN (NaN when none is)."""
    alpha = (1 - level) / 2
    groups = values.shape[1]
    low, high = np.full(groups, np.nan), np.full(groups, np.nan)
    nan = np.isnan(values)
    valid = ~nan.all(axis=0)
    gaps = valid & nan.any(axis=0)
    full = valid & ~gaps
    if full.any():
        q = np.quantile(values[:, full], [alpha, 1 - alpha], axis=0)
        low[full], high[full] = q[0], q[1]
    if gaps.any():
        q = np.nanquantile(values[:, gaps], [alpha, 1 - alpha], axis=0)
        low[gaps], high[gaps] = q[0], q[1]
    return low, high


@dataclass(frozen=True)
class CrossedIntervals:
    """Each group's interval from resamples of items and experts, and the experts' share of its variance."""

    low: np.ndarray  # NaN where undefined
    high: np.ndarray
    expert_variance: np.ndarray  # the jackknife variance over experts, per group
    experts: int  # experts resampled: those who rated a compared unit


def crossed_mean_ci(
    agree: np.ndarray,
    item: np.ndarray,
    n_items: int,
    group: np.ndarray | None,
    n_groups: int,
    lo: LeftOut,
    draws: list[CrossedDraw],
    *,
    level: float = 0.95,
) -> CrossedIntervals:
    """Percentile interval of each group's agreement resampling items and experts (see the module's docstring).

    agree: per compared unit, 1 when the judge agrees with its golden label; item: its item
    (0 … n_items − 1, the draws' columns); group: its group (None: one group).
    """
    agree = np.asarray(agree, np.float64)
    g = np.zeros(agree.size, np.intp) if group is None else np.asarray(group, np.intp)
    cell = np.asarray(item, np.intp) * n_groups + g
    size = n_items * n_groups
    num_i = np.bincount(cell, weights=agree, minlength=size).reshape(n_items, n_groups)
    den_i = np.bincount(cell, minlength=size).reshape(n_items, n_groups).astype(np.float64)
    delta, variance = expert_influence(lo, item, num_i.sum(axis=0), den_i.sum(axis=0), group, n_groups)
    values = item_ratios(num_i, den_i, draws) + expert_shift(draws, delta)
    low, high = percentile_bounds(values, level)
    return CrossedIntervals(np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0), variance, lo.experts_rated)


def widen_t(
    low: np.ndarray, high: np.ndarray, clusters: np.ndarray, expert_variance: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """A cluster-robust t interval (over `clusters` items) with the experts' jackknife variance added to its own."""
    centre, half = (low + high) / 2, (high - low) / 2
    t = sps.t.ppf(0.5 + level / 2, np.maximum(np.asarray(clusters, np.float64) - 1, 1))
    wide = np.sqrt(half**2 + t**2 * expert_variance)
    return np.clip(centre - wide, -1.0, 1.0), np.clip(centre + wide, -1.0, 1.0)


def widen_effective_n(p: np.ndarray, effective_n: np.ndarray, expert_variance: np.ndarray) -> np.ndarray:
    """The Wilson interval's design-effect sample with the experts' variance added: p(1 − p)/(p(1 − p)/n + var)."""
    pq = p * (1 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pq > 0, pq / (pq / effective_n + expert_variance), effective_n)


def with_experts(
    ci: st.ClusteredIntervals,
    agree: np.ndarray,
    item: np.ndarray,
    group: np.ndarray | None,
    n_groups: int,
    lo: LeftOut,
    draws: list[CrossedDraw] | None,
) -> st.ClusteredIntervals:
    """`agreement.clustered_mean_ci`'s intervals of agreement per group, with the experts resampled as well.

    agree, item, group: per compared unit (item: 0 … items − 1, the index `clustered_mean_ci`
    gives the sorted items). Each group keeps its method: the percentile bootstrap takes the
    crossed resamples (`crossed_mean_ci`), the cluster-robust t and the Wilson intervals add the
    rater variance to their own. A group without an interval keeps its reason; nothing changes
    when fewer than 2 experts rated compared units.
    """
    if draws is None or lo.experts_rated < 2 or not ci.clusters.size:
        return ci
    n_items = draws[0].items.shape[1]
    crossed = crossed_mean_ci(agree, item, n_items, group, n_groups, lo, draws, level=ci.level)
    low, high = ci.low.copy(), ci.high.copy()
    effective = None if ci.effective_n is None else ci.effective_n.copy()
    method = np.array(ci.method or (st.PERCENTILE,) * n_groups)
    defined = ~np.isnan(low)
    boot = defined & (method == st.PERCENTILE)
    low[boot], high[boot] = crossed.low[boot], crossed.high[boot]
    t_groups = defined & (method == st.CLUSTER_T)
    if t_groups.any():
        low[t_groups], high[t_groups] = widen_t(
            low[t_groups], high[t_groups], ci.clusters[t_groups], crossed.expert_variance[t_groups], ci.level
        )
    wilson = defined & (method == st.WILSON_DESIGN_EFFECT)
    if wilson.any() and effective is not None:
        g = np.zeros(np.asarray(agree).size, np.intp) if group is None else np.asarray(group, np.intp)
        agreeing = np.bincount(g, weights=agree, minlength=n_groups)
        pairs = np.bincount(g, minlength=n_groups)
        p = agreeing[wilson] / pairs[wilson]
        effective[wilson] = widen_effective_n(p, effective[wilson], crossed.expert_variance[wilson])
        low[wilson], high[wilson] = st.wilson_interval(p, effective[wilson], ci.level, df=ci.clusters[wilson] - 1)
    experts = np.where(defined, crossed.experts, 0)
    return replace(ci, low=low, high=high, effective_n=effective, experts=experts)
