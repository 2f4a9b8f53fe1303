"""The pieces of the interval over items and experts, each against a plain computation.

- `crossed.leave_one_out`: each compared unit's agreement with one expert's vote left out is the
  majority of the other votes (half a hit on a tie, no label when no vote is left), adjudicated
  units do not move; checked against recounting every unit from scratch, expert by expert.
- `crossed.crossed_draws`: the items are drawn exactly as the item bootstrap draws them, the
  experts as many times as there are experts, from their own stream of the seed.
- `crossed.rater_variance`: what repeats across an expert's items counts, what stays within one
  item (and the noise of single votes) does not.
"""

import numpy as np
import pytest

from heartbench_core.lib import agreement as st
from heartbench_core.lib import crossed as cx


def messy_campaign(rng, units=400, experts=9):
    """Units with 1–4 votes from distinct experts, some adjudicated, a judge verdict each."""
    votes_per_unit = rng.integers(1, 5, units)
    j_unit = np.repeat(np.arange(units), votes_per_unit)
    j_expert = np.concatenate([rng.choice(experts, size=m, replace=False) for m in votes_per_unit])
    j_hit = rng.random(j_unit.size) < 0.6
    hits = np.bincount(j_unit, weights=j_hit, minlength=units)
    ratings = np.bincount(j_unit, minlength=units)
    judge = rng.random(units) < 0.6
    adjudicated = np.where(rng.random(units) < 0.1, rng.integers(0, 2, units), -1)
    return j_unit, j_expert, j_hit, hits, ratings, judge, adjudicated


def credit_of(h, m):
    """Hit credit of a unit's remaining votes: 1, ½ on a tie, 0; None when no vote is left."""
    if m == 0:
        return None
    return 1.0 if 2 * h > m else 0.5 if 2 * h == m else 0.0


def test_leaving_each_expert_out_matches_recounting_every_unit():
    rng = np.random.default_rng(3)
    experts = 9
    j_unit, j_expert, j_hit, hits, ratings, judge, adjudicated = messy_campaign(rng, experts=experts)
    label = np.where(adjudicated >= 0, adjudicated, np.where(2 * hits > ratings, 1, np.where(2 * hits < ratings, 0, -1)))
    compared = np.flatnonzero(label >= 0)  # ties have no label and are not compared
    agree = judge[compared] == (label[compared] == 1)
    lo = cx.leave_one_out(compared, agree, judge[compared], adjudicated[compared] >= 0, hits, ratings, j_unit, j_expert, j_hit, experts)
    d_num = np.bincount(lo.expert, weights=lo.d_num, minlength=experts)
    d_den = np.bincount(lo.expert, weights=lo.d_den, minlength=experts)
    for e in range(experts):
        num = den = 0.0
        for position, u in enumerate(compared.tolist()):
            if adjudicated[u] >= 0:
                num, den = num + agree[position], den + 1
                continue
            mine = (j_unit == u) & (j_expert == e)
            credit = credit_of(hits[u] - j_hit[mine].sum(), ratings[u] - mine.sum())
            if credit is not None:
                num, den = num + (credit if judge[u] else 1 - credit), den + 1
        assert agree.sum() + d_num[e] == pytest.approx(num)
        assert compared.size + d_den[e] == den
    assert lo.experts_rated == np.unique(j_expert[np.isin(j_unit, compared[adjudicated[compared] < 0])]).size


def test_the_items_are_the_item_bootstrap_s_draws_and_the_experts_their_own():
    draws = cx.crossed_draws(60, 25, 700, seed=4)
    items = list(st.resample_weights(60, 700, 4))
    assert np.array_equal(np.concatenate([d.items for d in draws]), np.concatenate(items))
    experts = np.concatenate([d.experts for d in draws])
    assert experts.shape == (700, 25) and np.all(experts.sum(axis=1) == 25)
    assert np.array_equal(experts, np.concatenate([d.experts for d in cx.crossed_draws(60, 25, 700, seed=4)]))
    assert not np.array_equal(experts, np.concatenate([d.experts for d in cx.crossed_draws(60, 25, 700, seed=5)]))
    assert experts.mean() == pytest.approx(1.0, abs=0.01) and experts.var() == pytest.approx(1 - 1 / 25, abs=0.05)
    assert cx.crossed_draws(1, 25, 700, seed=4) is None and cx.crossed_draws(60, 25, 0, seed=4) is None


def test_what_repeats_across_an_expert_s_items_counts_and_what_stays_within_one_does_not():
    rng = np.random.default_rng(8)
    experts, items, per_cell = 20, 40, 6
    expert = np.repeat(np.arange(experts), items * per_cell)
    item = np.tile(np.repeat(np.arange(items), per_cell), experts)
    noise = rng.normal(0, 1e-3, expert.size)
    # Each expert moves every item the same way: a persistent effect, seen on every item.
    persistent = rng.normal(0, 1e-3, experts)[expert] + noise
    _, variance = cx.rater_variance(persistent, expert, item, None, 1, experts)
    # The same amount of spread, but each (expert, item) on its own: nothing repeats across items.
    within = rng.normal(0, 1e-3, (experts, items))[expert, item] + noise
    _, within_variance = cx.rater_variance(within, expert, item, None, 1, experts)
    assert variance[0] > 50 * max(within_variance[0], 1e-12)
    # By hand: Σₑ (Zₑ² − Σᵢ Sₑᵢ²) of the centred changes; the small-sample corrections only add to it.
    z = persistent - persistent.mean()
    by_expert = np.bincount(expert, weights=z)
    by_cell = np.bincount(expert * items + item, weights=z)
    raw = (by_expert**2).sum() - (by_cell**2).sum()
    assert raw > 0 and raw <= variance[0] <= 3 * raw
    delta, v = cx.rater_variance(persistent, expert, item, None, 1, experts)
    assert (delta**2).sum() == pytest.approx(v[0]) and delta.sum() == pytest.approx(0, abs=1e-12)
