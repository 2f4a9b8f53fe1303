"""A simulated HeartBench blind test with items and experts crossed, for the interval tests over items and experts.

Each simulated blind test samples 118 items (40% of HeartBench's 296) from a population of items,
each answered by 14 models, with 6–14 criteria per item (10 on average); every response is rated
by 3 experts drawn from a pool of 25, so each expert rates about 200 responses (some 2,000
(response, criterion) units) spread over nearly every item. Whether a unit is a hit is driven by
a latent θ (an item effect, a criterion effect and a response effect on the logit scale); an
expert votes hit with probability logistic(θ + bₑ), bₑ that expert's persistent leniency (> 0)
or harshness (< 0), drawn afresh for each pool from N(0, bias_sd²); the judge, a little lenient,
says hit with probability logistic(θ + 0.6). The golden label is the majority of the unit's
three votes.

The truth an interval should cover is the judge's agreement with the golden label as the whole
expert population would give it: on the population of items, against the majority of three
experts drawn from the whole population of experts rather than from this pool of 25. It is
computed exactly, by quadrature over θ and b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from heartbench_core.lib import agreement as st
from heartbench_core.lib import crossed as cx

ITEMS, MODELS, POOL, K = 118, 14, 25, 3
MU, ITEM_SD, CRITERION_SD, RESPONSE_SD = 0.4, 0.8, 2.0, 0.8
JUDGE_LENIENCY = 0.6


@dataclass(frozen=True)
class BlindTest:
    """One simulated blind test: the judgments, the judge's verdicts and the golden labels."""

    item: np.ndarray  # per unit
    judge: np.ndarray
    hits: np.ndarray
    ratings: np.ndarray
    j_unit: np.ndarray
    j_expert: np.ndarray
    j_hit: np.ndarray

    @property
    def agree(self) -> np.ndarray:
        return self.judge == (2 * self.hits > self.ratings)


def blind_test(rng: np.random.Generator, bias_sd: float) -> BlindTest:
    n_crit = rng.integers(6, 15, ITEMS)
    crit_item = np.repeat(np.arange(ITEMS), n_crit)
    unit_crit = np.tile(np.arange(crit_item.size), MODELS)
    unit_model = np.repeat(np.arange(MODELS), crit_item.size)
    item = crit_item[unit_crit]
    theta = (
        MU
        + rng.normal(0, ITEM_SD, ITEMS)[item]
        + rng.normal(0, CRITERION_SD, crit_item.size)[unit_crit]
        + rng.normal(0, RESPONSE_SD, (ITEMS, MODELS))[item, unit_model]
    )
    bias = rng.normal(0, bias_sd, POOL)
    # Three distinct experts of the pool for every response: the first three of a random order.
    panels = np.argsort(rng.random((ITEMS * MODELS, POOL)), axis=1)[:, :K]
    response = item * MODELS + unit_model
    n = theta.size
    j_unit = np.repeat(np.arange(n), K)
    j_expert = panels[response].ravel()
    j_hit = rng.random(n * K) < expit(theta[j_unit] + bias[j_expert])
    judge = rng.random(n) < expit(theta + JUDGE_LENIENCY)
    hits = np.bincount(j_unit, weights=j_hit, minlength=n)
    return BlindTest(item, judge, hits, np.full(n, K), j_unit, j_expert, j_hit)


def truth(bias_sd: float) -> float:
    """The judge's agreement with the majority of three experts of the whole population, on the population of items."""
    sd = np.sqrt(ITEM_SD**2 + CRITERION_SD**2 + RESPONSE_SD**2)
    x, w = np.polynomial.hermite_e.hermegauss(120)
    w = w / w.sum()
    theta = MU + sd * x
    q = expit(theta[:, None] + bias_sd * x[None, :]) @ w  # a random expert's hit probability at θ
    majority_hit = q**3 + 3 * q**2 * (1 - q)
    judge_hit = expit(theta + JUDGE_LENIENCY)
    return float(w @ (judge_hit * majority_hit + (1 - judge_hit) * (1 - majority_hit)))


def intervals(b: BlindTest, resamples: int, seed: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """(over items alone, over items and experts): the report's two intervals of the agreement, on the same item draws."""
    agree = b.agree
    item_draws = st.cluster_draws(ITEMS, resamples, seed)
    items_only = st.clustered_mean_ci(agree, b.item, resamples=resamples, seed=seed, weights=item_draws)
    draws = cx.crossed_draws(ITEMS, POOL, resamples, seed, item_draws=item_draws)
    n = agree.size
    lo = cx.leave_one_out(np.arange(n), agree, b.judge, np.zeros(n, bool), b.hits, b.ratings, b.j_unit, b.j_expert, b.j_hit, POOL)
    both = cx.with_experts(items_only, agree, b.item, None, 1, lo, draws)
    return (float(items_only.low[0]), float(items_only.high[0])), (float(both.low[0]), float(both.high[0]))


def pigeonhole_interval(b: BlindTest, resamples: int, seed: int) -> tuple[float, float]:
    """The pigeonhole bootstrap applied directly (the naive method): every resample recounts each majority from drawn votes.

    Items and experts are drawn as `crossed_draws` draws them; a unit counts as often as its item,
    its label is the majority of its votes each counted as often as its expert was drawn (half a
    hit on a tie, none when no vote was drawn).
    """
    draws = cx.crossed_draws(ITEMS, POOL, resamples, seed)
    assert draws is not None
    votes = b.j_hit.reshape(-1, K).astype(float)
    experts = b.j_expert.reshape(-1, K)
    values = []
    for d in draws:
        for w, v in zip(d.items, d.experts):
            drawn = v[experts]
            total, hit = drawn.sum(axis=1), (drawn * votes).sum(axis=1)
            credit = np.where(2 * hit > total, 1.0, np.where(2 * hit == total, 0.5, 0.0))
            agree = np.where(b.judge, credit, 1 - credit)
            weight = w[b.item] * (total > 0)
            values.append((weight * agree).sum() / weight.sum())
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)


def jackknife_interval(b: BlindTest, resamples: int, seed: int) -> tuple[float, float]:
    """The item bootstrap plus the textbook delete-one-expert jackknife (the naive method for the experts' part).

    Each resample adds Σₑ (vₑ − 1)·δₑ to the item bootstrap's agreement, δₑ = √((E − 1)/E)·(T̄ − T₋ₑ)
    and T₋ₑ the agreement with e's votes left out: its variance is the jackknife's,
    (E − 1)/E·Σₑ (T₋ₑ − T̄)², which counts the noise of single votes (already in the item
    bootstrap) a second time.
    """
    agree = b.agree
    n = agree.size
    item_draws = st.cluster_draws(ITEMS, resamples, seed)
    draws = cx.crossed_draws(ITEMS, POOL, resamples, seed, item_draws=item_draws)
    assert draws is not None
    lo = cx.leave_one_out(np.arange(n), agree, b.judge, np.zeros(n, bool), b.hits, b.ratings, b.j_unit, b.j_expert, b.j_hit, POOL)
    d_num = np.bincount(lo.expert, weights=lo.d_num, minlength=POOL)
    d_den = np.bincount(lo.expert, weights=lo.d_den, minlength=POOL)
    left_out = (agree.sum() + d_num) / (n + d_den)
    delta = np.sqrt((POOL - 1) / POOL) * (left_out.mean() - left_out)
    num = np.bincount(b.item, weights=agree, minlength=ITEMS)[:, None]
    den = np.bincount(b.item, minlength=ITEMS).astype(float)[:, None]
    values = cx.item_ratios(num, den, draws) + cx.expert_shift(draws, delta[:, None])
    low, high = np.quantile(values[:, 0], [0.025, 0.975])
    return float(low), float(high)
