"""Human-calibrated model scores: the judge's scores corrected by the experts' sample (PPI++); pure NumPy, no Django.

Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Science 2023) with
power tuning (PPI++: Angelopoulos, Duchi & Zrnic, 2024), on this platform's data:

- **Unit**: a benchmark item (question). A campaign samples items, stratified by difficulty and
  scene, and every chosen model's response to a sampled item is labelled together, so the item is
  what was drawn; its abilities are one cluster and are summed into one value per item.
- **Values**: the per-(question, ability) normalised scores of `heartbench_core.lib.scoring`,
  computed once from the judge's verdicts (``f``, on every item the judge scored) and once from
  the golden labels (``y``, on the sampled items whose response has a golden label on every
  criterion). Every score (overall, dimension, ability) is a fixed combination of ability means;
  each ability mean is a ratio over the items holding the ability, linearised item by item (an
  item's norm centred on its ability's mean, summed over its abilities with the score's
  coefficients), so which abilities an item holds adds no variance of its own.
- **Estimate**, per stratum h with weight W_h = N_h / N (the stratum's share of the items, that is
  its inverse sampling fraction times its sampled share):
  ``θ = Σ_h W_h [λ · mean_{U_h}(f) + mean_{L_h}(y − λ f)]``, U_h the stratum's scored items and
  L_h its labelled ones. λ = 0 is the experts' sample alone, λ = 1 plain PPI; PPI++ picks the λ
  that minimises the estimated variance (power tuning), clipped to [0, 1] as ppi-python does.
- **Variance** (items drawn from a population of items, as the report's other intervals):
  ``Σ_h W_h² [λ² s²(f)/N_h + s²(y − λ f)/n_h + 2λ k_h/(N_h n_h) · cov(f, y − λ f)]``, k_h the
  labelled items that are also among the scored ones (all of them here: the judge scored every
  item). With k = 0 (labelled and unlabelled items apart) and one stratum this is ppi-python's
  ``ppi_mean_ci``, λ included; the last term is the covariance the shared items add.
- **Never less precise than the experts alone**: when the tuned λ's estimated variance is above
  λ = 0's (or below 0, which the plug-in estimate can be when the judge tracks the experts closely
  on few items), λ = 0 is used, so the corrected interval is never wider than the experts-only one
  and always rests on a variance.
- **Differences between models**: each model against the next in the corrected ranking, with a
  percentile interval over resamples of the items — the same weights for every model (paired by
  item), within each stratum and apart for sampled and unsampled items so that each stratum keeps
  its number of labelled items — applied to each item's influence on the estimate (a linear
  bootstrap, λ at the point estimate's).
- **Experts as well as items** (`GoldVotes`, docs/validation.md, "Items and experts"): the golden
  labels are majorities of a few experts' votes, and the same experts vote on many items, so a
  lenient expert raises many labelled scores at once. Each vote's leave-one-out change of its
  response's golden norm (`gold_vote_changes`: the majority recounted from the other votes, a tie
  counting half) is carried through the estimate's linearisation — the norm's change times the
  weight its item has in the estimand; λ does not enter, the judge's verdicts do not move — and
  `crossed.rater_variance` keeps what repeats across the different items an expert rated. That
  variance is added to the analytic variance of the corrected and the experts-only scores, and the
  differences between models add Σₑ (vₑ − 1)·δₑ over expert draws to their item resamples (Owen's
  pigeonhole bootstrap, to first order, as the report's agreement intervals do). The judge-only
  interval has no expert in it.

Strata with fewer than two labelled items are pooled together (and with the rest when still too
few). A figure that cannot be computed is NaN with its reason, never 0.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from heartbench_core.lib import agreement as st
from heartbench_core.lib import crossed as cx
from heartbench_core.lib import scoring
from heartbench_core.lib.lazy_scipy import stats
from heartbench_core.lib.reasons import Reason

LEVEL = 0.95
MIN_LABELLED_PER_STRATUM = 2

NO_LABELLED = Reason("no_labelled")
TOO_FEW_LABELLED = Reason("too_few_labelled")
NO_SCORED = Reason("no_scored")
NO_ABILITY = Reason("no_ability")
NO_DIMENSION_ABILITY = Reason("no_dimension_ability")
NO_LABELLED_ABILITY = Reason("no_labelled_ability")
NO_DRAWS = Reason("no_draws")


@dataclass(frozen=True, slots=True)
class PPIMean:
    """A PPI++ mean: the estimate, its standard error and interval, the λ used, the counts."""

    estimate: float
    se: float
    low: float
    high: float
    lam: float
    labelled: int
    unlabelled: int


@dataclass(frozen=True, slots=True)
class StratifiedPPI:
    """Stratified PPI++ of E estimands at once: each array has one entry per estimand."""

    estimate: np.ndarray  # the corrected estimate
    se: np.ndarray
    lam: np.ndarray  # the λ used (0: the experts' sample alone was more precise)
    experts: np.ndarray  # λ = 0: the labelled items alone, stratum-weighted
    experts_se: np.ndarray
    judge: np.ndarray  # the judge alone on the unlabelled set, stratum-weighted
    judge_se: np.ndarray  # the judge alone as if it were the experts (the naive interval)


def z_value(level: float = LEVEL) -> float:
    return float(stats.norm.ppf(1 - (1 - level) / 2))


def _per_stratum(values: np.ndarray, stratum: np.ndarray, n_strata: int) -> np.ndarray:
    """Column sums per stratum: (n, E) → (H, E)."""
    one_hot = np.zeros((n_strata, values.shape[0]))
    one_hot[stratum, np.arange(values.shape[0])] = 1.0
    return one_hot @ values


def stratified_ppi(
    *,
    f_unlabelled: np.ndarray,
    stratum_unlabelled: np.ndarray,
    y: np.ndarray,
    f_labelled: np.ndarray,
    stratum_labelled: np.ndarray,
    shared: np.ndarray,
    weights: np.ndarray,
    lam: np.ndarray | float | None = None,
    ddof: int = 1,
    guard: bool = True,
) -> StratifiedPPI:
    """PPI++ estimates of E means over strata, the labelled items (y, f) correcting the judge's (f) on the unlabelled set.

    f_unlabelled: (N, E); y, f_labelled: (n, E); stratum_*: stratum index per row; shared: (n,)
    whether a labelled row is also one of the unlabelled rows (the covariance it adds is counted);
    weights: (H,) each stratum's share of the population. lam None: power-tuned per estimand.
    ddof 0 is ppi-python's plug-in variance; 1 the unbiased one, for strata of a handful of items.
    guard: fall back to λ = 0 where the tuned λ's variance is larger (ppi-python does not).
    Every stratum with a weight needs at least one unlabelled and one labelled row (ddof + 1 for the variances).
    """
    f_u = np.asarray(f_unlabelled, float)
    y, f_l = np.asarray(y, float), np.asarray(f_labelled, float)
    if f_u.ndim == 1:
        f_u, y, f_l = f_u[:, None], y[:, None], f_l[:, None]
    s_u, s_l = np.asarray(stratum_unlabelled, np.intp), np.asarray(stratum_labelled, np.intp)
    shared = np.asarray(shared, bool)
    w = np.asarray(weights, float)
    h = w.size
    big_n = np.bincount(s_u, minlength=h).astype(float)[:, None]
    n = np.bincount(s_l, minlength=h).astype(float)[:, None]
    k = np.bincount(s_l[shared], minlength=h).astype(float)[:, None]
    w2 = (w**2)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        mf_u = _per_stratum(f_u, s_u, h) / big_n
        my, mf_l = _per_stratum(y, s_l, h) / n, _per_stratum(f_l, s_l, h) / n
        du, dy, dl = f_u - mf_u[s_u], y - my[s_l], f_l - mf_l[s_l]
        vf_u = _per_stratum(du**2, s_u, h) / np.maximum(big_n - ddof, 1)
        vy = _per_stratum(dy**2, s_l, h) / np.maximum(n - ddof, 1)
        vf_l = _per_stratum(dl**2, s_l, h) / np.maximum(n - ddof, 1)
        c = _per_stratum(dy * dl, s_l, h) / np.maximum(n - ddof, 1)
        # ppi-python tunes λ with the variance of f over every row once (labelled and unlabelled, ddof 1).
        union_f = np.concatenate([f_u, f_l[~shared]])
        union_s = np.concatenate([s_u, s_l[~shared]])
        union_n = np.bincount(union_s, minlength=h).astype(float)[:, None]
        mu = _per_stratum(union_f, union_s, h) / union_n
        pooled = _per_stratum((union_f - mu[union_s]) ** 2, union_s, h) / np.maximum(union_n - 1, 1)
        used = w > 0
        wu = w2[used]

        def variance(lam_: np.ndarray) -> np.ndarray:
            ve = vy - 2 * lam_ * c + lam_**2 * vf_l
            cfe = c - lam_ * vf_l
            terms = lam_**2 * vf_u / big_n + ve / n + 2 * lam_ * k / (big_n * n) * cfe
            return (wu * terms[used]).sum(axis=0)

        if lam is None:
            num = (wu * (c / n * (1 - k / big_n))[used]).sum(axis=0)
            den = (wu * (pooled * (1 / big_n + 1 / n - 2 * k / (big_n * n)))[used]).sum(axis=0)
            tuned = np.clip(np.where(den > 0, num / np.where(den > 0, den, 1), 0.0), 0.0, 1.0)
            # Power tuning promises no loss against the experts alone; a noisy λ keeps that promise by falling back to 0.
            lam_arr = tuned
            if guard:
                # The plug-in variance of a tuned λ can come out negative (the shared items' covariance estimated apart
                # from the variances): no interval rests on it; the experts' own variance never is.
                tuned_v = variance(tuned[None, :])
                lam_arr = np.where((tuned_v <= variance(np.zeros_like(tuned)[None, :])) & (tuned_v >= 0), tuned, 0.0)
        else:
            lam_arr = np.broadcast_to(np.asarray(lam, float), (f_u.shape[1],)).copy()
        wl = w[:, None]
        estimate = (wl * (lam_arr * mf_u + my - lam_arr * mf_l))[used].sum(axis=0)
        experts = (wl * my)[used].sum(axis=0)
        judge = (wl * mf_u)[used].sum(axis=0)
        se = np.sqrt(variance(lam_arr[None, :]))
        experts_se = np.sqrt((wu * (vy / n)[used]).sum(axis=0))
        judge_se = np.sqrt((wu * (vf_u / big_n)[used]).sum(axis=0))
    return StratifiedPPI(estimate, se, lam_arr, experts, experts_se, judge, judge_se)


def ppi_mean_ci(
    y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *, level: float = LEVEL, lam: float | None = None, ddof: int = 0
) -> PPIMean:
    """The PPI++ mean and its CLT interval, labelled and unlabelled samples apart: ppi-python's `ppi_mean_ci` with ddof 0.

    lam None: power-tuned (ppi-python's `lhat=None`); a number: that λ (1 is plain PPI).
    """
    y, yhat, yu = (np.asarray(a, float).ravel() for a in (y, yhat, yhat_unlabelled))
    r = stratified_ppi(
        f_unlabelled=yu,
        stratum_unlabelled=np.zeros(yu.size, np.intp),
        y=y,
        f_labelled=yhat,
        stratum_labelled=np.zeros(y.size, np.intp),
        shared=np.zeros(y.size, bool),
        weights=np.ones(1),
        lam=lam,
        ddof=ddof,
        guard=False,  # ppi-python keeps its tuned λ even where it loses to λ = 0
    )
    z = z_value(level)
    est, se = float(r.estimate[0]), float(r.se[0])
    return PPIMean(est, se, est - z * se, est + z * se, float(r.lam[0]), int(y.size), int(yu.size))


def collapse_strata(stratum: np.ndarray, scored: np.ndarray, labelled: np.ndarray, minimum: int = MIN_LABELLED_PER_STRATUM) -> np.ndarray:
    """Stratum codes 0..H'−1 where every stratum with scored items holds at least `minimum` labelled ones.

    Strata short of labelled items are pooled into one; if that one is still short, everything is one stratum.
    """
    stratum = np.asarray(stratum, np.intp)
    codes, inverse = np.unique(stratum, return_inverse=True)
    n_l = np.bincount(inverse[labelled & scored], minlength=codes.size)
    n_u = np.bincount(inverse[scored], minlength=codes.size)
    short = (n_u > 0) & (n_l < minimum)
    if not short.any():
        return inverse
    kept = np.flatnonzero(~short)
    remap = np.full(codes.size, kept.size, np.intp)
    remap[kept] = np.arange(kept.size)
    out = remap[inverse]
    if n_l[short].sum() < minimum:
        return np.zeros_like(inverse)
    return out


def stratified_draws(stratum: np.ndarray, sampled: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """(resamples, items) bootstrap weights: items drawn with replacement within each stratum, sampled and unsampled apart."""
    stratum = np.asarray(stratum, np.intp)
    cell = stratum * 2 + np.asarray(sampled, bool)
    rng = np.random.default_rng(seed)
    out = np.zeros((resamples, stratum.size))
    for c in np.unique(cell):
        members = np.flatnonzero(cell == c)
        picks = rng.integers(0, members.size, size=(resamples, members.size))
        counts = np.zeros((resamples, members.size))
        np.add.at(counts, (np.arange(resamples)[:, None], picks), 1.0)
        out[:, members] = counts
    return out


@dataclass(frozen=True, slots=True)
class ModelDomains:
    """One model's ability means: the judge's on every scored item, the sample's stratum-weighted ratio means, their strata.

    The labelled means are combined ratio estimates: per ability a, Σ_h W_h mean_{L_h}(p·v) / Σ_h W_h mean_{L_h}(p),
    p the ability's presence, so an ability held by few items of a stratum needs no labelled item there.
    """

    scored: np.ndarray  # (Q,) bool
    labelled: np.ndarray  # (Q,) bool, within scored
    cells: np.ndarray  # (Q, A) the ability is present and the item scored
    codes: np.ndarray  # (Q,) stratum after pooling
    weights: np.ndarray  # (H,) each stratum's share of the scored items
    judge: np.ndarray  # (A,) the judge's mean on every scored item holding the ability (the scorer's ability score)
    share: np.ndarray  # (A,) the estimated share of items holding the ability, from the labelled ones
    gold: np.ndarray  # (A,) the golden labels' ratio mean (NaN where no labelled item holds the ability)
    judge_on_labelled: np.ndarray  # (A,) the judge's ratio mean on the labelled items


def model_domains(
    f: np.ndarray, y: np.ndarray, *, scored: np.ndarray, labelled: np.ndarray, present: np.ndarray, stratum: np.ndarray
) -> ModelDomains:
    """The ability means of one model from its (Q, A) judge norms f and golden norms y."""
    cells = present & scored[:, None]
    labelled = labelled & scored
    codes = collapse_strata(stratum, scored, labelled)
    h = int(codes.max()) + 1 if codes.size else 1
    total = max(int(scored.sum()), 1)
    weights = np.bincount(codes[scored], minlength=h) / total
    f0, y0 = np.where(cells, np.nan_to_num(f), 0.0), np.where(cells & labelled[:, None], np.nan_to_num(y), 0.0)
    n_a = cells.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        judge = np.where(n_a > 0, f0.sum(axis=0) / np.maximum(n_a, 1), np.nan)
        n_h = np.bincount(codes[labelled], minlength=h).astype(float)[:, None]
        lc = cells & labelled[:, None]

        def ratio(v: np.ndarray) -> np.ndarray:
            per = _per_stratum(np.where(lc, v, 0.0)[labelled], codes[labelled], h) / n_h
            return (weights[:, None] * np.nan_to_num(per)).sum(axis=0)

        share = ratio(np.ones_like(f0))
        gold = np.where(share > 0, ratio(y0) / np.where(share > 0, share, 1), np.nan)
        judge_on_labelled = np.where(share > 0, ratio(f0) / np.where(share > 0, share, 1), np.nan)
    return ModelDomains(scored, labelled, cells, codes, weights, judge, share, gold, judge_on_labelled)


def influence(
    d: ModelDomains, f: np.ndarray, y: np.ndarray, coef: np.ndarray, *, models: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-item linearised terms of every estimand (rows of `coef` over abilities): (judge on scored, gold and judge on labelled).

    Each item's abilities are summed (the item is the cluster), each centred on its ability's mean, so
    that which abilities an item holds adds no variance of its own. With `models` side by side the
    columns are model-major (model, ability) in, (model, estimand) out.
    """
    n_a = d.cells.sum(axis=0)
    total = int(d.scored.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        scale_u = np.where(n_a > 0, total / np.maximum(n_a, 1), 0.0)
        scale_l = np.where(d.share > 0, 1.0 / np.where(d.share > 0, d.share, 1), 0.0)
    lc = d.cells & d.labelled[:, None]

    def by_estimand(x: np.ndarray) -> np.ndarray:
        q = x.shape[0]
        return (x.reshape(q * models, -1) @ coef.T).reshape(q, -1)

    u = by_estimand(np.where(d.cells, np.nan_to_num(f) - np.nan_to_num(d.judge), 0.0) * scale_u)
    ry = by_estimand(np.where(lc, np.nan_to_num(y) - np.nan_to_num(d.gold), 0.0) * scale_l)
    rf = by_estimand(np.where(lc, np.nan_to_num(f) - np.nan_to_num(d.judge_on_labelled), 0.0) * scale_l)
    return u[d.scored], ry[d.labelled], rf[d.labelled]


def item_influence(
    d: ModelDomains,
    u: np.ndarray,
    ry: np.ndarray,
    rf: np.ndarray,
    *,
    lam: np.ndarray,
    stratum_scored: np.ndarray,
    stratum_labelled: np.ndarray,
) -> np.ndarray:
    """(Q, E) each item's share of the corrected estimates' error: θ̂ − θ ≈ Σ_q ψ_q, the judge's term and the correction's summed.

    An item both scored and labelled carries both terms, which is how the covariance they share enters a resampling.
    """
    q = d.scored.size
    h = d.weights.size
    big_n = np.bincount(stratum_scored, minlength=h).astype(float)
    n = np.bincount(stratum_labelled, minlength=h).astype(float)
    psi = np.zeros((q, u.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        psi[d.scored] += lam * (d.weights / big_n)[stratum_scored][:, None] * u
        psi[d.labelled] += (d.weights / n)[stratum_labelled][:, None] * (ry - lam * rf)
    return psi


def score_draws(estimate: np.ndarray, psi: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(resamples, E) estimates under item weights `draws` (resamples × items), by each item's influence ψ (a linear bootstrap).

    Any weights over items will do: the bootstrap of `stratified_draws`, or a resampling of items and experts
    (whose golden labels then change with the experts drawn: pass ψ computed on each draw's labels).
    """
    return estimate + (np.asarray(draws, float) - 1.0) @ psi


@dataclass(frozen=True, slots=True)
class GoldVotes:
    """What each expert's votes on a labelled response move, summed per (expert, response): one row per such pair.

    change[p, a] is the expected change of the response's golden norm of ability a when one of the
    expert's votes on it is left out, summed over those votes (a vote on an ordinary criterion moves
    its ability's norm; one on a catastrophic criterion every ability of the response, which it
    zeroes or restores). ordinary and catastrophic count the votes, for the mean vote each figure is
    measured against: a catastrophic vote is one vote of every score whose abilities it moves.
    """

    model: np.ndarray  # (P,) the response's model
    question: np.ndarray  # (P,) its item
    expert: np.ndarray  # (P,)
    change: np.ndarray  # (P, A)
    ordinary: np.ndarray  # (P, A) the expert's votes on ordinary criteria of each ability
    catastrophic: np.ndarray  # (P,) … on catastrophic criteria
    present: np.ndarray  # (P, A) the response holds the ability
    n_experts: int


def gold_vote_changes(
    *,
    vote_unit: np.ndarray,
    vote_expert: np.ndarray,
    vote_hit: np.ndarray,
    unit_response: np.ndarray,
    unit_criterion: np.ndarray,
    label: np.ndarray,
    fixed: np.ndarray,
    hits: np.ndarray,
    ratings: np.ndarray,
    crit_ability: np.ndarray,
    crit_weight: np.ndarray,
    crit_catastrophic: np.ndarray,
    response_model: np.ndarray,
    response_question: np.ndarray,
    include: np.ndarray,
    n_abilities: int,
    n_experts: int,
) -> GoldVotes:
    """What each vote on an included response moves: the golden norm of its ability, or of all, when it is left out.

    Per unit (criterion of a response): its golden label (−1 none, 0, 1), whether it was
    adjudicated (`fixed`: no vote moves it), its hits and ratings. Without a vote the label is the
    majority of the other votes, half a hit on a tie (a unit with one vote keeps its label). The
    norm is the scorer's (`scoring.norm_scores`, catastrophic criteria zeroing the response): an
    ordinary criterion's flip moves its ability's norm by the exact difference, a catastrophic
    one's zeroes or restores every ability (nothing when another catastrophic criterion fires).
    crit_ability: each criterion's norm column (ignored for catastrophic ones; −1: left out).
    Only the votes that change a label are scored again; every vote is counted.
    """
    vote_unit = np.asarray(vote_unit, np.int64)
    unit_response = np.asarray(unit_response, np.int64)
    unit_criterion = np.asarray(unit_criterion, np.int64)
    label = np.asarray(label, np.int64)
    crit_ability = np.asarray(crit_ability, np.int64)
    weight = np.nan_to_num(np.asarray(crit_weight, float), nan=0.0)
    catastrophic = np.asarray(crit_catastrophic, bool)
    include = np.asarray(include, bool)
    n_r, n_a = include.size, int(n_abilities)
    # The golden norms of every included response, laid out as the scorer lays them out.
    unit_in = include[unit_response] & (label >= 0)
    u_cat = catastrophic[unit_criterion]
    u_ab = crit_ability[unit_criterion]
    ordinary_unit = unit_in & ~u_cat & (u_ab >= 0)
    cell = unit_response[ordinary_unit] * n_a + u_ab[ordinary_unit]
    w = weight[unit_criterion[ordinary_unit]]
    size = n_r * n_a
    raw = np.bincount(cell, weights=w * (label[ordinary_unit] == 1), minlength=size)
    low = np.bincount(cell, weights=np.minimum(w, 0.0), minlength=size)
    high = np.bincount(cell, weights=np.maximum(w, 0.0), minlength=size)
    present_r = (np.bincount(cell, minlength=size) > 0).reshape(n_r, n_a)
    fires = np.bincount(unit_response[unit_in & u_cat & (label == 1)], minlength=n_r)
    # Every vote of an included unit, by (response, expert) pair.
    keep = unit_in[vote_unit]
    u = vote_unit[keep]
    expert = np.asarray(vote_expert, np.int64)[keep]
    r = unit_response[u]
    pairs, pair = st.sorted_unique_inverse(r * max(int(n_experts), 1) + expert)
    n_p = pairs.size
    pair_r = pairs // max(int(n_experts), 1)
    is_cat = u_cat[u]
    o = ~is_cat & (u_ab[u] >= 0)
    ordinary = np.bincount(pair[o] * n_a + u_ab[u[o]], minlength=n_p * n_a).reshape(n_p, n_a).astype(float)
    n_cat = np.bincount(pair[is_cat], minlength=n_p).astype(float)
    flat = np.zeros(n_p * n_a)
    # Each vote's leave-one-out change of its unit's label: most votes change none.
    # The other votes' hits and number as integers, their majority as a sign (credit = (side + 1) / 2: 0, ½ or 1),
    # the label as a byte: at 100× (4.75 million votes) every float64 array of the votes was 38 MB.
    hit = np.asarray(vote_hit, bool)[keep]
    hits, ratings = np.asarray(hits), np.asarray(ratings)
    counts = np.int32 if hits.dtype.kind in "iub" and ratings.dtype.kind in "iub" else np.float64
    h = hits.astype(counts, copy=False)[u] - hit
    m = ratings.astype(counts, copy=False)[u] - 1
    side = np.sign(2 * h - m).astype(np.int8)
    del h
    lab_u = label.astype(np.int8)[u]  # 0 or 1: the votes' units are labelled
    moves = (m > 0) & ~np.asarray(fixed, bool)[u] & (side + 1 != 2 * lab_u)
    del m
    mv = np.flatnonzero(moves)
    lab_mv = lab_u[mv].astype(float)
    d_label = (side[mv] + 1) * 0.5 - lab_mv
    rv, cv, pv = r[mv], unit_criterion[u[mv]], pair[mv]
    # Ordinary votes: the norm with the hit flipped, weighted by how likely the flip is (1, or ½ on a tie).
    om = ~catastrophic[cv] & (crit_ability[cv] >= 0) & (fires[rv] == 0)
    oc = rv[om] * n_a + crit_ability[cv[om]]
    flipped = raw[oc] + weight[cv[om]] * np.sign(d_label[om])
    moved = scoring.norm_scores(flipped, low[oc], high[oc]) - scoring.norm_scores(raw[oc], low[oc], high[oc])
    flat += np.bincount(pv[om] * n_a + crit_ability[cv[om]], weights=np.abs(d_label[om]) * moved, minlength=n_p * n_a)
    # Catastrophic votes: without the vote the response is zeroed with the probability its label then has.
    km = catastrophic[cv] & (fires[rv] - (lab_mv == 1) == 0)
    zeroing = np.bincount(pv[km], weights=-d_label[km], minlength=n_p)
    change = flat.reshape(n_p, n_a)
    if km.any():
        unzeroed = np.where(present_r, scoring.norm_scores(raw, low, high).reshape(n_r, n_a), 0.0)
        touched = np.flatnonzero(zeroing)
        change[touched] += zeroing[touched, None] * unzeroed[pair_r[touched]]
    return GoldVotes(
        model=np.asarray(response_model, np.int64)[pair_r],
        question=np.asarray(response_question, np.int64)[pair_r],
        expert=pairs % max(int(n_experts), 1),
        change=change,
        ordinary=ordinary,
        catastrophic=n_cat,
        present=present_r[pair_r],
        n_experts=int(n_experts),
    )


@dataclass(frozen=True, slots=True)
class ExpertPart:
    """The experts' part of one group of models' scores: rater variance per estimand, centred sums of each overall."""

    variance: np.ndarray  # (g, E)
    experts: int  # experts whose votes moved a labelled response of the group
    overall: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # (model, expert, item, centred change) of each model's overall


def expert_part(votes: GoldVotes, members: np.ndarray, d: ModelDomains, coef: np.ndarray, level: float) -> ExpertPart | None:
    """`crossed.rater_variance` of every estimand of a group of models scored and labelled on the same items.

    A vote's change of a golden norm moves the estimand by the norm's weight in its ability's
    ratio mean (W_h / n_h / the ability's estimated share) times the ability's coefficient; λ does
    not enter (the correction term holds the golden labels as they are). Each (expert, response)
    row is one (expert, item, estimand) cell of `rater_variance` for every estimand of the
    response's model, so the sums it needs are per row. None: fewer than 2 experts.
    """
    members = np.asarray(members, np.int64)
    position = np.full(max(int(votes.model.max(initial=-1)), int(members.max())) + 1, -1, np.int64)
    position[members] = np.arange(members.size)
    gi = position[votes.model]
    sel = np.flatnonzero((gi >= 0) & d.labelled[votes.question])
    experts = int(st.sorted_unique(votes.expert[sel]).size) if sel.size else 0
    if experts < 2:
        return None
    every = sel.size == gi.size  # one group of models (a blind test's): no copy of the (pair × ability) arrays

    def rows(x: np.ndarray) -> np.ndarray:
        return x if every else x[sel]

    gi, q, e = rows(gi), rows(votes.question), rows(votes.expert)
    g, a_count, e_count = members.size, coef.shape[1], coef.shape[0]
    h = d.weights.size
    n_h = np.bincount(d.codes[d.labelled], minlength=h).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale_l = np.where(d.share > 0, 1.0 / np.where(d.share > 0, d.share, 1), 0.0).reshape(g, a_count)
        per_item = np.where(n_h > 0, d.weights / np.maximum(n_h, 1), 0.0)
    s = (rows(votes.change) * scale_l[gi] * per_item[d.codes[q]][:, None]) @ coef.T  # (rows, E): each estimand's change
    touches = (coef != 0).T.astype(float)  # (A, E)
    count = rows(votes.ordinary) @ touches + rows(votes.catastrophic)[:, None] * (rows(votes.present).astype(float) @ touches > 0)
    # Centred on the group's mean vote: Sₑᵢ = Σ z − n·z̄ per (expert, item, estimand) cell.
    mean = np.zeros((g, e_count))
    for est in range(e_count):
        totals, votes_in = np.bincount(gi, s[:, est], g), np.bincount(gi, count[:, est], g)
        mean[:, est] = np.divide(totals, votes_in, out=np.zeros(g), where=votes_in > 0)
    s -= count * mean[gi]
    key = e * g + gi
    zeg = np.empty((votes.n_experts * g, e_count))
    within = np.empty((g, e_count))
    for est in range(e_count):
        zeg[:, est] = np.bincount(key, s[:, est], votes.n_experts * g)
        within[:, est] = np.bincount(gi, s[:, est] ** 2, g)
    rated = np.bincount(key, minlength=votes.n_experts * g).reshape(votes.n_experts, g) > 0
    n_per_group = np.repeat(rated.sum(axis=0), e_count)
    _, variance = cx.rater_variance_from_sums(zeg.reshape(votes.n_experts, g * e_count), within.reshape(-1), n_per_group, level)
    return ExpertPart(variance.reshape(g, e_count), experts, (members[gi], e, q, s[:, 0].copy()))


@dataclass(frozen=True, slots=True)
class Calibration:
    """Judge-only, experts-only and corrected scores of M models on E estimands, with intervals and counts.

    Arrays are (M, E) unless said; NaN where undefined, `reason[m][e]` then says why.
    """

    judge: np.ndarray
    judge_low: np.ndarray  # the naive interval: the judge's verdicts taken for the experts'
    judge_high: np.ndarray
    experts: np.ndarray
    experts_low: np.ndarray
    experts_high: np.ndarray
    corrected: np.ndarray
    low: np.ndarray
    high: np.ndarray
    lam: np.ndarray
    reason: list[list[str | None]]
    scored_items: np.ndarray  # (M,) items the judge scored
    labelled_items: np.ndarray  # (M,) of them, with a golden label on every criterion
    strata: np.ndarray  # (M,) strata the estimate was weighted over, after pooling small ones
    pairs: np.ndarray  # (P, 2) model indices: each model and the next in the corrected ranking
    difference: np.ndarray  # (P,) corrected overall of the first minus the second
    difference_low: np.ndarray  # (P,) percentile interval over `resamples` item draws
    difference_high: np.ndarray
    difference_reason: str | None
    resamples: int
    rater_experts: np.ndarray  # (M,) experts whose votes were resampled with the items (0: the items alone)
    difference_experts: int  # experts resampled in the differences' draws (0: the items alone)
    judge_rank: np.ndarray  # (M,) by the judge-only overall
    corrected_rank: np.ndarray  # (M,) by the corrected overall
    kendall_tau: st.Stat  # judge-only against corrected overall, across models


def estimand_matrix(ability_dimension: np.ndarray, n_dimensions: int, scored: np.ndarray) -> np.ndarray:
    """(1 + D + A, A) coefficients: overall = mean of scored abilities, dimension = mean of its scored abilities, ability = itself."""
    a = scored.size
    ad = np.asarray(ability_dimension, np.intp)
    rows = np.zeros((1 + n_dimensions + a, a))
    if scored.any():
        rows[0, scored] = 1.0 / scored.sum()
    for d in range(n_dimensions):
        mine = scored & (ad == d)
        if mine.any():
            rows[1 + d, mine] = 1.0 / mine.sum()
    rows[1 + n_dimensions + np.arange(a), np.arange(a)] = scored.astype(float)
    return rows


def _reasons(total: int, labelled: int, coef: np.ndarray, missing: np.ndarray, n_dimensions: int) -> list[str | None]:
    """Why each estimand of one model is undefined (None: defined)."""
    out: list[str | None] = []
    for e in range(coef.shape[0]):
        if total == 0:
            out.append(NO_SCORED)
        elif not coef[e].any():
            out.append(NO_DIMENSION_ABILITY if 0 < e <= n_dimensions else NO_ABILITY)
        elif labelled == 0:
            out.append(NO_LABELLED)
        elif labelled < MIN_LABELLED_PER_STRATUM:
            out.append(TOO_FEW_LABELLED)
        elif (coef[e] != 0)[missing].any():
            out.append(NO_LABELLED_ABILITY)
        else:
            out.append(None)
    return out


def calibrate(
    *,
    judge_norm: np.ndarray,
    gold_norm: np.ndarray,
    scored: np.ndarray,
    labelled: np.ndarray,
    present: np.ndarray,
    stratum: np.ndarray,
    sampled: np.ndarray,
    ability_dimension: np.ndarray,
    n_dimensions: int,
    resamples: int = 1000,
    seed: int = 0,
    level: float = LEVEL,
    draws: np.ndarray | None = None,
    votes: GoldVotes | None = None,
) -> Calibration:
    """Corrected HeartBench scores of every model, estimands ordered overall, dimensions, abilities.

    judge_norm, gold_norm: (M, Q, A) per-(question, ability) norms (gold read where labelled);
    scored: (M, Q) the judge scored the model's response to q; labelled: (M, Q) its golden labels
    cover every criterion; present: (Q, A); stratum: (Q,) code; sampled: (Q,) the item is in the
    campaign's sample. draws: (B, Q) item weights for the differences (default: `stratified_draws`).
    votes: the experts' votes on the labelled responses (`gold_vote_changes`): the corrected and
    experts-only intervals then count the experts as well as the items; None: the items alone.
    """
    judge_norm, gold_norm = np.asarray(judge_norm, float), np.asarray(gold_norm, float)
    m_count, q_count, a_count = judge_norm.shape
    scored, present = np.asarray(scored, bool), np.asarray(present, bool)
    labelled = np.asarray(labelled, bool) & scored
    e_count = 1 + n_dimensions + a_count
    shape = (m_count, e_count)
    judge, judge_low, judge_high, experts, experts_low, experts_high, corrected, low, high, lam = (
        np.full(shape, np.nan) for _ in range(10)
    )
    reasons_of: dict[int, list[str | None]] = {}
    strata_used = np.zeros(m_count, np.int64)
    experts_used = np.zeros(m_count, np.int64)
    overall_votes: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # per group of models: `ExpertPart.overall`
    with_votes = np.zeros(m_count, bool)
    z = z_value(level)
    if draws is None:
        # Strata too small to resample are pooled as the estimates pool them, so that every draw varies.
        anyone = np.asarray(scored.any(axis=0))
        pooled = collapse_strata(stratum, anyone, np.asarray(sampled, bool) & anyone)
        draws = stratified_draws(pooled, sampled, resamples, seed) if resamples > 0 else np.zeros((0, q_count))
    psi = np.zeros((q_count, m_count))  # each item's influence on each model's corrected overall
    # Models whose responses were scored and labelled on the same items share every weight: computed side by side.
    groups: dict[bytes, list[int]] = {}
    for m in range(m_count):
        groups.setdefault(scored[m].tobytes() + labelled[m].tobytes(), []).append(m)
    for members in groups.values():
        g, m0 = len(members), members[0]
        side = np.asarray(members)

        f, y = (x[side].transpose(1, 0, 2).reshape(q_count, g * a_count) for x in (judge_norm, gold_norm))
        d = model_domains(f, y, scored=scored[m0], labelled=labelled[m0], present=np.tile(present, (1, g)), stratum=stratum)
        coef = estimand_matrix(ability_dimension, n_dimensions, np.asarray(d.cells[:, :a_count].any(axis=0)))
        missing = d.cells[:, :a_count].any(axis=0) & ~(d.share[:a_count] > 0)
        total, n_lab = int(scored[m0].sum()), int(labelled[m0].sum())
        why = _reasons(total, n_lab, coef, missing, n_dimensions)
        for m in members:
            reasons_of[m] = list(why)
        defined = np.array([w is None for w in why])
        has_coef = coef.any(axis=1)
        judge_g = np.nan_to_num(d.judge).reshape(g, a_count) @ coef.T
        judge[side] = np.where(has_coef & (total > 0), judge_g, np.nan)
        if not defined.any():
            continue
        strata_used[side] = int((d.weights > 0).sum())
        u, ry, rf = influence(d, f, y, coef, models=g)
        r = stratified_ppi(
            f_unlabelled=u,
            stratum_unlabelled=d.codes[scored[m0]],
            y=ry,
            f_labelled=rf,
            stratum_labelled=d.codes[labelled[m0]],
            shared=np.ones(n_lab, bool),
            weights=d.weights,
        )
        gold_c = np.nan_to_num(d.gold).reshape(g, a_count) @ coef.T
        judge_l_c = np.nan_to_num(d.judge_on_labelled).reshape(g, a_count) @ coef.T
        lam_g = r.lam.reshape(g, -1)
        estimate = lam_g * judge_g + gold_c - lam_g * judge_l_c
        for target, value in ((corrected, estimate), (experts, gold_c), (lam, lam_g)):
            target[side] = np.where(defined, value, np.nan)
        # The experts' votes move the golden labels alike for the corrected and the experts-only score.
        part = None if votes is None else expert_part(votes, side, d, coef, level)
        rater = np.zeros((g, e_count)) if part is None else part.variance
        if part is not None:
            experts_used[side] = part.experts
            overall_votes.append(part.overall)
            with_votes[side] = True
        for lo_, hi_, centre, se, extra in (
            (low, high, estimate, r.se, rater),
            (experts_low, experts_high, gold_c, r.experts_se, rater),
            (judge_low, judge_high, judge_g, r.judge_se, 0.0),
        ):
            half = z * np.sqrt(se.reshape(g, -1) ** 2 + extra)
            lo_[side] = np.where(defined, centre - half, np.nan)
            hi_[side] = np.where(defined, centre + half, np.nan)
        if defined[0]:
            overall = np.arange(g) * e_count  # each model's first estimand
            psi[:, side] = item_influence(
                d,
                u[:, overall],
                ry[:, overall],
                rf[:, overall],
                lam=r.lam[overall],
                stratum_scored=d.codes[scored[m0]],
                stratum_labelled=d.codes[labelled[m0]],
            )
    reason = [reasons_of[m] for m in range(m_count)]
    # Each model against the next in the corrected ranking: whether the ranking's every step is supported.
    ranked = [m for m in np.argsort(-np.nan_to_num(corrected[:, 0], nan=-np.inf), kind="stable") if np.isfinite(corrected[m, 0])]
    pairs = np.array(list(itertools.pairwise(ranked)), dtype=np.intp).reshape(-1, 2)
    difference = corrected[pairs[:, 0], 0] - corrected[pairs[:, 1], 0]
    difference_low, difference_high = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    difference_reason: str | None = None
    difference_experts = 0
    if draws.shape[0] == 0:
        difference_reason = NO_DRAWS
    elif len(pairs):
        contrast = psi[:, pairs[:, 0]] - psi[:, pairs[:, 1]]
        diffs = score_draws(difference, contrast, draws)
        if votes is not None and with_votes[pairs].all():
            overall = tuple(np.concatenate(x) for x in zip(*overall_votes))
            shift, difference_experts = _difference_experts(pairs, overall, m_count, votes.n_experts, draws, seed, level)
            diffs = diffs + shift
        alpha = 1 - level
        difference_low, difference_high = np.quantile(diffs, [alpha / 2, 1 - alpha / 2], axis=0)
    return Calibration(
        judge=judge,
        judge_low=judge_low,
        judge_high=judge_high,
        experts=experts,
        experts_low=experts_low,
        experts_high=experts_high,
        corrected=corrected,
        low=low,
        high=high,
        lam=lam,
        reason=reason,
        scored_items=scored.sum(axis=1),
        labelled_items=labelled.sum(axis=1),
        strata=strata_used,
        pairs=pairs,
        difference=difference,
        difference_low=difference_low,
        difference_high=difference_high,
        difference_reason=difference_reason,
        resamples=int(draws.shape[0]),
        rater_experts=experts_used,
        difference_experts=difference_experts,
        judge_rank=st.ranks(judge[:, 0]),
        corrected_rank=st.ranks(corrected[:, 0]),
        kendall_tau=st.kendall_tau(judge[:, 0], corrected[:, 0]),
    )


def _difference_experts(
    pairs: np.ndarray,
    overall: tuple[np.ndarray, ...],
    m_count: int,
    n_experts: int,
    draws: np.ndarray,
    seed: int,
    level: float,
) -> tuple[np.ndarray, int]:
    """The experts' part Σₑ (vₑ − 1)·δₑ of each difference's resamples, and the experts it drew.

    A vote moves the first model's overall by its change and the second's by minus its own (each
    centred on its model's mean vote already); `crossed.rater_variance` of that contrast gives δ,
    and the experts are drawn as the report's crossed intervals draw them, from the same seed.
    overall: (model, expert, item, centred change) of every model's overall. Each model is the
    first of one pair and the second of another at most, so every vote enters twice at most.
    """
    model, expert, item, change = overall
    z, group, ex, it = [], [], [], []
    for column, sign in ((0, 1.0), (1, -1.0)):
        pair_of = np.full(m_count, -1, np.int64)
        pair_of[pairs[:, column]] = np.arange(len(pairs))
        p = pair_of[model]
        keep = p >= 0
        z.append(sign * change[keep])
        group.append(p[keep])
        ex.append(expert[keep])
        it.append(item[keep])
    zz, gg, ee, ii = (np.concatenate(x) for x in (z, group, ex, it))
    delta, _ = cx.rater_variance(zz, ee, ii, gg, len(pairs), n_experts, level, count=np.zeros(zz.size))
    crossed = cx.crossed_draws(draws.shape[1], n_experts, draws.shape[0], seed, item_draws=[draws])
    if crossed is None:
        return np.zeros((draws.shape[0], len(pairs))), 0
    return cx.expert_shift(crossed, delta), int(st.sorted_unique(ee).size)
