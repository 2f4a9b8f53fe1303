"""Human-calibrated model scores: the judge's scores corrected by the experts' sample (PPI++); pure NumPy, no Django.

Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Science 2023) with
power tuning (PPI++: Angelopoulos, Duchi & Zrnic, 2024), on this platform's data:

- **Unit**: a benchmark item (question). A campaign samples items, stratified by difficulty and
  scene, and every chosen model's response to a sampled item is labelled together, so the item is
  what was drawn; its abilities are one cluster and are summed into one value per item.
- **Values**: the per-(question, ability) normalised scores of `heartbench_core.lib.scoring`,
  computed once from the judge's verdicts (``f``, on every item the judge scored) and once from
  the golden labels (``y``, on the sampled items whose response has a golden label on every
  criterion). Every score (overall, dimension, ability) is a fixed linear combination of the
  ability means, so it is the mean over items of one value per item ("contribution"): an ability's
  norm scaled by N / N_a, the items scored over the items holding the ability.
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
  λ = 0's, λ = 0 is used, so the corrected interval is never wider than the experts-only one.
- **Differences between two models**: the same resampling weights over items for every model
  (paired by item), within each stratum and apart for sampled and unsampled items so that each
  stratum keeps its number of labelled items; λ stays at the point estimate's. `score_draws` takes
  any (resamples × items) weight matrix, so a resampling of items and experts can be plugged in.

Strata with fewer than two labelled items are pooled together (and with the rest when still too
few). A figure that cannot be computed is NaN with its reason, never 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from heartbench_core.lib import agreement as st

LEVEL = 0.95
MIN_LABELLED_PER_STRATUM = 2

NO_LABELLED = "no response of this model to a sampled item has a golden label on every criterion"
TOO_FEW_LABELLED = "fewer than 2 of this model's responses have a golden label on every criterion"
NO_SCORED = "no item of this model was scored by the judge"
NO_ABILITY = "no scored item holds this ability"
NO_DIMENSION_ABILITY = "no ability of this dimension was scored"
NO_DRAWS = "no resamples requested"
TOO_FEW_DRAWS = "fewer than half of the resamples held a labelled item of every stratum"


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
    out = np.zeros((n_strata, values.shape[1]))
    np.add.at(out, stratum, values)
    return out


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
                lam_arr = np.where(variance(tuned[None, :]) <= variance(np.zeros_like(tuned)[None, :]), tuned, 0.0)
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


def score_draws(
    *,
    f: np.ndarray,
    y: np.ndarray,
    scored: np.ndarray,
    labelled: np.ndarray,
    stratum: np.ndarray,
    weights: np.ndarray,
    lam: np.ndarray,
    draws: np.ndarray,
) -> np.ndarray:
    """(resamples, E) corrected estimates under item weights `draws` (resamples × items), λ fixed; NaN where a stratum lost its labelled items.

    f, y: (items, E) contributions (y read only where labelled); stratum: code per item (as `collapse_strata`).
    """
    items, e = f.shape
    h = np.asarray(weights).size
    one_hot = np.zeros((items, h))
    one_hot[np.arange(items), stratum] = 1.0
    su, sl = one_hot * scored[:, None], one_hot * (labelled & scored)[:, None]
    resid = np.where((labelled & scored)[:, None], np.nan_to_num(y) - lam * f, 0.0)
    fu = np.where(scored[:, None], f, 0.0)
    d = np.asarray(draws, float)
    nu, nl = d @ su, d @ sl  # (B, H)
    sum_f = (d @ (su[:, :, None] * fu[:, None, :]).reshape(items, h * e)).reshape(-1, h, e)
    sum_r = (d @ (sl[:, :, None] * resid[:, None, :]).reshape(items, h * e)).reshape(-1, h, e)
    w = np.asarray(weights, float)
    active = w > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        per = lam * sum_f / nu[:, :, None] + sum_r / nl[:, :, None]
        return (w[None, active, None] * per[:, active, :]).sum(axis=1)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Judge-only, experts-only and corrected scores of M models on E estimands, with intervals and counts.

    Arrays are (M, E) unless said; NaN where undefined, `reason[m][e]` then says why.
    """

    judge: np.ndarray
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
    difference: np.ndarray  # (M, M) corrected overall of row minus column
    difference_low: np.ndarray  # (M, M) percentile interval over `resamples` item draws
    difference_high: np.ndarray
    difference_reason: str | None
    resamples: int
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
) -> Calibration:
    """Corrected HeartBench scores of every model, estimands ordered overall, dimensions, abilities.

    judge_norm, gold_norm: (M, Q, A) per-(question, ability) norms (gold read where labelled);
    scored: (M, Q) the judge scored the model's response to q; labelled: (M, Q) its golden labels
    cover every criterion; present: (Q, A); stratum: (Q,) code; sampled: (Q,) the item is in the
    campaign's sample. draws: (B, Q) item weights for the differences (default: `stratified_draws`).
    """
    judge_norm, gold_norm = np.asarray(judge_norm, float), np.asarray(gold_norm, float)
    m_count, q_count, a_count = judge_norm.shape
    scored, present = np.asarray(scored, bool), np.asarray(present, bool)
    labelled = np.asarray(labelled, bool) & scored
    e_count = 1 + n_dimensions + a_count
    shape = (m_count, e_count)
    judge, experts, experts_low, experts_high, corrected, low, high, lam = (np.full(shape, np.nan) for _ in range(8))
    reason: list[list[str | None]] = [[None] * e_count for _ in range(m_count)]
    strata_used = np.zeros(m_count, np.int64)
    z = z_value(level)
    if draws is None:
        draws = stratified_draws(stratum, sampled, resamples, seed) if resamples > 0 else np.zeros((0, q_count))
    overall_draws = np.full((draws.shape[0], m_count), np.nan)
    for m in range(m_count):
        cells = present & scored[m][:, None]
        n_a = cells.sum(axis=0)
        coef = estimand_matrix(ability_dimension, n_dimensions, n_a > 0)
        total = int(scored[m].sum())
        scale = np.where(n_a > 0, total / np.maximum(n_a, 1), 0.0)
        f_c = np.where(cells, np.nan_to_num(judge_norm[m]), 0.0) * scale @ coef.T
        y_c = np.where(cells, np.nan_to_num(gold_norm[m]), 0.0) * scale @ coef.T
        empty = ~coef.any(axis=1)
        why: str | None = None
        if total == 0:
            why = NO_SCORED
        elif labelled[m].sum() == 0:
            why = NO_LABELLED
        elif labelled[m].sum() < MIN_LABELLED_PER_STRATUM:
            why = TOO_FEW_LABELLED
        if total:
            with np.errstate(invalid="ignore", divide="ignore"):
                judge[m] = np.where(empty, np.nan, f_c[scored[m]].sum(axis=0) / total)
        for e in range(e_count):
            if total and empty[e]:
                reason[m][e] = NO_ABILITY if e == 0 or e > n_dimensions else NO_DIMENSION_ABILITY
            elif why:
                reason[m][e] = why if total else NO_SCORED
        if why:
            continue
        codes = collapse_strata(stratum, scored[m], labelled[m])
        h = int(codes.max()) + 1
        weights = np.bincount(codes[scored[m]], minlength=h) / total
        strata_used[m] = int((weights > 0).sum())
        r = stratified_ppi(
            f_unlabelled=f_c[scored[m]],
            stratum_unlabelled=codes[scored[m]],
            y=y_c[labelled[m]],
            f_labelled=f_c[labelled[m]],
            stratum_labelled=codes[labelled[m]],
            shared=np.ones(int(labelled[m].sum()), bool),
            weights=weights,
        )
        keep = ~empty
        experts[m] = np.where(keep, r.experts, np.nan)
        experts_low[m] = np.where(keep, r.experts - z * r.experts_se, np.nan)
        experts_high[m] = np.where(keep, r.experts + z * r.experts_se, np.nan)
        corrected[m] = np.where(keep, r.estimate, np.nan)
        low[m] = np.where(keep, r.estimate - z * r.se, np.nan)
        high[m] = np.where(keep, r.estimate + z * r.se, np.nan)
        lam[m] = np.where(keep, r.lam, np.nan)
        if draws.shape[0] and keep[0]:
            overall_draws[:, m] = score_draws(
                f=f_c[:, :1],
                y=y_c[:, :1],
                scored=scored[m],
                labelled=labelled[m],
                stratum=codes,
                weights=weights,
                lam=r.lam[:1],
                draws=draws,
            )[:, 0]
    difference = corrected[:, :1] - corrected[:, 0][None, :]
    difference_low, difference_high = np.full((m_count, m_count), np.nan), np.full((m_count, m_count), np.nan)
    difference_reason: str | None = None
    if draws.shape[0] == 0:
        difference_reason = NO_DRAWS
    else:
        diffs = overall_draws[:, :, None] - overall_draws[:, None, :]
        ok = np.isfinite(diffs)
        enough = ok.sum(axis=0) >= draws.shape[0] / 2
        alpha = 1 - level
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a pair with no usable draw: all-NaN, left undefined below
            lo = np.nanquantile(diffs, alpha / 2, axis=0)
            hi = np.nanquantile(diffs, 1 - alpha / 2, axis=0)
        difference_low = np.where(enough, lo, np.nan)
        difference_high = np.where(enough, hi, np.nan)
        if not enough[np.isfinite(difference)].all():
            difference_reason = TOO_FEW_DRAWS
    return Calibration(
        judge=judge,
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
        difference=difference,
        difference_low=difference_low,
        difference_high=difference_high,
        difference_reason=difference_reason,
        resamples=int(draws.shape[0]),
        judge_rank=st.ranks(judge[:, 0]),
        corrected_rank=st.ranks(corrected[:, 0]),
        kendall_tau=st.kendall_tau(judge[:, 0], corrected[:, 0]),
    )
