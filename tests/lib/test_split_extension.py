"""Extra raters where the verdicts split: the pure pieces, and a simulation of what the option does to the agreement figure.

The figure the platform reports is the judge's agreement with the experts' majority. What it
estimates is the judge's agreement with the majority of the whole expert population, which k = 3
raters approximate. The simulation draws a population hit probability per (response, criterion),
rates every unit with k experts, and compares three designs on the same first k ratings:

- off: the majority of k;
- on: responses whose k verdicts split on at least half their criteria get two more raters (the
  platform's rule: it reads the experts' verdicts only);
- forbidden (implemented here only): responses where the judge disagrees with the k-majority get
  two more raters. Re-rating only where the judge lost can turn a loss into a win and never a win
  into a loss, so the figure leans toward the judge.
"""

import numpy as np
import pytest

from heartbench_core.lib.agreement_report import golden_standard
from heartbench_core.lib.split_extension import (
    EXTRA_RATERS,
    extension_order,
    first_k_counts,
    gold_change,
    simulate_gold,
    split_share,
    split_units,
)

K = 3
RESPONSES, CRITERIA = 300, 8
REPLICATIONS = 200
BUDGET = 2 * 100  # extra assignments: a third of the responses may be extended


def test_split_means_one_vote_apart_or_tied():
    hits = np.array([0, 1, 2, 3, 1, 2, 0, 1])
    ratings = np.array([3, 3, 3, 3, 2, 4, 1, 0])
    assert split_units(hits, ratings).tolist() == [False, True, True, False, True, True, False, False]


def test_the_share_counts_only_rated_criteria_and_says_when_there_is_none():
    s = split_share(np.array([1, 3, 2, 0]), np.array([3, 3, 3, 0]))
    assert (s.split, s.criteria, s.share) == (2, 3, 2 / 3)
    assert s.reaches(2 / 3) and not s.reaches(0.7)
    empty = split_share(np.array([0]), np.array([0]))
    assert empty.share is None and not empty.reaches(0.01)


def test_most_split_first_and_equal_shares_in_the_keyed_order():
    order = extension_order(np.array([0.5, 1.0, 0.5, 0.75]), np.array([0.9, 0.1, 0.2, 0.5]))
    assert order.tolist() == [1, 3, 2, 0]


def test_the_first_k_ratings_are_read_by_submission_time():
    # Unit 0 rated hit, hit, miss, miss, miss (times 1..5, given out of order); unit 1 rated twice.
    j_unit = np.array([0, 1, 0, 0, 0, 1, 0])
    j_hit = np.array([0, 1, 1, 1, 0, 0, 0])
    j_time = np.array([5.0, 1.0, 1.0, 2.0, 3.0, 2.0, 4.0])
    hits, ratings = first_k_counts(j_unit, j_hit, j_time, 3, 3)
    assert hits.tolist() == [2, 1, 0] and ratings.tolist() == [3, 2, 0]


def test_the_gold_change_counts_flips_only_on_completed_extended_responses():
    # Responses 0 (extended, complete), 1 (extended, one unit still short), 2 (not extended); two units each.
    u_cr = np.array([0, 0, 1, 1, 2, 2])
    extra = np.array([2, 2, 0])
    before = np.array([1, 0, 1, 1, 1, 0])
    after = np.array([0, 0, -1, 0, 0, 0])
    ratings = np.array([5, 5, 4, 5, 3, 3])
    need = np.array([5, 5, 5, 5, 3, 3])
    change = gold_change(u_cr, extra, before, after, ratings, need)
    assert (change.extended_responses, change.completed_responses, change.criteria, change.flipped, change.responses_changed) == (
        2,
        1,
        2,
        1,
        1,
    )


def test_the_golden_standard_waits_for_every_extra_rating():
    hits, ratings = np.array([2, 2, 3, 2]), np.array([3, 4, 5, 4])
    need = np.array([3, 5, 5, 4])
    label, _provenance, tie = golden_standard(hits, ratings, need, np.full(4, -1))
    # 2 of 3: hit; 2 of 4 still waiting for a fifth: nothing; 3 of 5: hit; 2 of 4 complete: a tie.
    assert label.tolist() == [1, -1, 1, -1] and tie.tolist() == [False, False, False, True]
    # One number for every unit reads as before.
    assert golden_standard(hits, ratings, 3, np.full(4, -1))[0].tolist() == [1, -1, 1, -1]


# --- the simulation ------------------------------------------------------------------------------


def _population(seed: int):
    """Per unit: the population's hit probability; a third of the responses are contested on most criteria."""
    rng = np.random.default_rng(seed)
    unit_response = np.repeat(np.arange(RESPONSES), CRITERIA)
    n = unit_response.size
    contested = np.repeat(rng.random(RESPONSES) < 0.3, CRITERIA) & (rng.random(n) < 0.8)
    clear = np.where(rng.random(n) < 0.5, rng.uniform(0.85, 1.0, n), rng.uniform(0.0, 0.15, n))
    p_hit = np.where(contested, rng.uniform(0.3, 0.7, n), clear)
    return p_hit, unit_response, rng


def _agreement(judge: np.ndarray, label: np.ndarray) -> float:
    labelled = label >= 0
    return float((judge[labelled] == label[labelled]).mean())


def _forbidden(p_hit, unit_response, judge, rng) -> np.ndarray:
    """The variant conditioned on the judge: extend the responses where the judge disagrees most with the k-majority."""
    hits = rng.binomial(K, p_hit)
    ratings = np.full(p_hit.size, K)
    majority = (2 * hits > ratings).astype(np.int64)
    disagreement = np.bincount(unit_response, weights=judge != majority, minlength=RESPONSES) / CRITERIA
    chosen = np.argsort(-disagreement, kind="stable")[: BUDGET // EXTRA_RATERS]
    chosen = chosen[disagreement[chosen] > 0]
    more = np.isin(unit_response, chosen)
    hits = hits + np.where(more, rng.binomial(EXTRA_RATERS, p_hit), 0)
    ratings = ratings + np.where(more, EXTRA_RATERS, 0)
    return np.where(2 * hits > ratings, 1, np.where(2 * hits < ratings, 0, -1))


def _designs(p_hit, unit_response, judge_of):
    """Per replication: (population target, off, on, forbidden) agreement, each design drawn from the same seed."""
    rows = []
    for r in range(REPLICATIONS):
        judge = judge_of(np.random.default_rng(10_000 + r))
        target = float((judge == (p_hit > 0.5)).mean())
        off, _ = simulate_gold(p_hit, unit_response, k=K, rng=np.random.default_rng(r))
        on, extended = simulate_gold(p_hit, unit_response, k=K, rng=np.random.default_rng(r), min_share=0.5, budget=BUDGET)
        assert 0 < extended.sum() <= BUDGET // EXTRA_RATERS
        forbidden = _forbidden(p_hit, unit_response, judge, np.random.default_rng(r))
        rows.append((target, _agreement(judge, off), _agreement(judge, on), _agreement(judge, forbidden)))
    return np.array(rows)


def test_with_the_option_the_estimate_comes_closer_to_the_populations_majority():
    p_hit, unit_response, rng = _population(1)
    truth = (p_hit > 0.5).astype(np.int64)
    # A judge that agrees with the population's majority on 80% of the units.
    fixed_judge = np.where(rng.random(p_hit.size) < 0.8, truth, 1 - truth)
    rows = _designs(p_hit, unit_response, lambda _rng: fixed_judge)
    target, off, on = rows[:, 0], rows[:, 1], rows[:, 2]
    error_off, error_on = np.abs(off - target).mean(), np.abs(on - target).mean()
    # The same first k ratings in both designs: the paired gain is measured, not the noise between draws.
    gain = np.abs(off - target) - np.abs(on - target)
    standard_error = gain.std(ddof=1) / np.sqrt(gain.size)
    assert error_on < error_off
    assert gain.mean() > 5 * standard_error, (error_off, error_on, gain.mean(), standard_error)
    # Three raters understate an 80% judge (the gold is noisy where the population splits); the option
    # closes part of the gap, and never overshoots it.
    assert (off - target).mean() < (on - target).mean() < 0


def test_the_variant_conditioned_on_the_judge_is_biased_toward_it():
    p_hit, unit_response, _rng = _population(2)
    # A judge that flips a coin on every unit: its agreement with any majority it knows nothing of is 1/2 on average.
    rows = _designs(p_hit, unit_response, lambda rng: rng.integers(0, 2, p_hit.size))
    off, on, forbidden = rows[:, 1], rows[:, 2], rows[:, 3]
    se = rows[:, 1:].std(axis=0, ddof=1) / np.sqrt(REPLICATIONS)
    assert abs(off.mean() - 0.5) < 4 * se[0]
    assert abs(on.mean() - 0.5) < 4 * se[1]  # the platform's rule leaves a judge that knows nothing at 1/2
    assert forbidden.mean() - 0.5 > 10 * se[2], (forbidden.mean(), se[2])  # the forbidden one credits it with skill
    assert (forbidden - on).mean() > 0.004


@pytest.mark.parametrize("budget", [0, 1])
def test_a_budget_below_two_extends_nothing(budget):
    p_hit, unit_response, _rng = _population(3)
    _label, extended = simulate_gold(p_hit, unit_response, k=K, rng=np.random.default_rng(0), min_share=0.5, budget=budget)
    assert not extended.any()
