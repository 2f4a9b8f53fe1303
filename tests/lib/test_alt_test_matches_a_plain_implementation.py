"""The vectorised alternative annotator test equals a plain loop written from the paper, on random campaigns with missing ratings.

The plain version follows Calderon, Reichart & Dror (ACL 2025) step by step: for each expert and
each response they rated, the other experts' ratings of the same units; scores as means of
agreement; `scipy.stats.ttest_1samp(…, alternative="less")`; Benjamini–Yekutieli written out as
its step-up rule.
"""

from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from heartbench_core.lib.alt_test import alt_tests


def plain_benjamini_yekutieli(p: list[float], q: float) -> list[bool]:
    """Reject the k smallest p values, k the largest with p_(k) ≤ k·q / (m·c(m)), c(m) = Σ 1/i."""
    m = len(p)
    c = sum(1 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p[i])
    k = 0
    for rank, i in enumerate(order, start=1):
        if p[i] <= rank * q / (m * c):
            k = rank
    rejected = [False] * m
    for i in order[:k]:
        rejected[i] = True
    return rejected


def plain_alt_test(units, cr_of_unit, judge, epsilon, q, min_responses):
    """`units`: {unit: {expert: hit}}; returns {expert: (responses, judge win share, p, beaten)}, ω and ρ."""
    by_expert_response = defaultdict(lambda: defaultdict(list))  # expert → response → [(own, judge, other)]
    for unit, ratings in units.items():
        if judge[unit] < 0:
            continue
        for e, own in ratings.items():
            for r, other in ratings.items():
                if r != e:
                    by_expert_response[e][cr_of_unit[unit]].append((own, judge[unit], other))
    tested = {}
    for e in sorted(by_expert_response):
        responses = by_expert_response[e]
        if len(responses) < min_responses:
            continue
        w_judge, w_expert = [], []
        for pairs in responses.values():
            human_score = np.mean([own == other for own, _, other in pairs])
            llm_score = np.mean([j == other for _, j, other in pairs])
            w_judge.append(1 if llm_score >= human_score else 0)
            w_expert.append(1 if human_score >= llm_score else 0)
        d = np.array(w_expert) - np.array(w_judge)
        if np.all(d == d[0]):  # no spread: SciPy says ±inf or NaN
            p = 0.0 if d[0] < epsilon else 1.0
        else:
            p = stats.ttest_1samp(d, epsilon, alternative="less").pvalue
        tested[e] = (len(responses), float(np.mean(w_judge)), float(p))
    experts = list(tested)
    rejected = plain_benjamini_yekutieli([tested[e][2] for e in experts], q)
    result = {e: (*tested[e], beaten) for e, beaten in zip(experts, rejected)}
    if not experts:
        return result, None, None, len(by_expert_response)
    omega = sum(rejected) / len(experts)
    rho = float(np.mean([tested[e][1] for e in experts]))
    return result, omega, rho, len(by_expert_response) - len(experts)


def random_campaign(seed: int):
    """Responses with 1–4 criteria; each expert rates some responses, skipping some criteria; the judge misses some units."""
    rng = np.random.default_rng(seed)
    n_responses, n_experts = int(rng.integers(20, 60)), int(rng.integers(3, 7))
    criteria = rng.integers(1, 5, n_responses)
    u_cr = np.repeat(np.arange(n_responses), criteria)
    n_units = u_cr.size
    truth = rng.random(n_units) < 0.5
    skill = rng.uniform(0.55, 0.95, n_experts)
    rows = []
    for e in range(n_experts):
        rated = rng.random(n_responses) < rng.uniform(0.3, 0.9)
        for u in np.flatnonzero(rated[u_cr] & (rng.random(n_units) < 0.9)):  # a missing rating now and then
            rows.append((u, e, truth[u] if rng.random() < skill[e] else not truth[u]))
    rng.shuffle(rows)  # the vectorised version must not rely on unit order either
    j_unit, j_expert, j_hit = (np.array(x) for x in zip(*rows))
    judge = np.where(rng.random(n_units) < 0.8, truth ^ (rng.random(n_units) < 0.2), False).astype(int)
    judge[rng.random(n_units) < 0.1] = -1
    groups = rng.integers(-1, 3, n_units)  # three groups of units, and some in none
    return j_unit, j_expert, j_hit, judge, u_cr, n_experts, groups


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("epsilon", [0.0, 0.2, 0.5])
def test_every_figure_equals_the_plain_loop(seed, epsilon):
    j_unit, j_expert, j_hit, judge, u_cr, n_experts, groups = random_campaign(seed)
    min_responses = 10
    results = alt_tests(
        j_unit=j_unit,
        j_expert=j_expert,
        j_hit=j_hit,
        u_judge=judge,
        u_cr=u_cr,
        n_experts=n_experts,
        u_group=groups,
        n_groups=3,
        epsilon=epsilon,
        q=0.05,
        min_responses=min_responses,
    )
    for g, result in enumerate(results):
        units = defaultdict(dict)
        for u, e, h in zip(j_unit.tolist(), j_expert.tolist(), j_hit.tolist()):
            if groups[u] == g:
                units[u][e] = h
        expected, omega, rho, left_out = plain_alt_test(units, u_cr, judge, epsilon, 0.05, min_responses)
        got = {t.expert: (t.responses, t.judge_wins, t.p, t.judge_beats) for t in result.experts}
        assert list(got) == list(expected)
        for e in expected:
            assert got[e][0] == expected[e][0]
            assert got[e][1] == pytest.approx(expected[e][1], abs=1e-12)
            assert got[e][2] == pytest.approx(expected[e][2], abs=1e-12)
            assert got[e][3] == expected[e][3]
        assert result.experts_left_out == left_out
        if omega is None:
            assert result.winning_rate is None and result.reason
        else:
            assert result.winning_rate == pytest.approx(omega, abs=1e-12)
            assert result.advantage_probability == pytest.approx(rho, abs=1e-12)


def test_the_random_campaigns_test_some_experts_and_leave_others_out():
    """The comparison above is not vacuous: across seeds, experts are tested, beaten, not beaten and left out."""
    tested = beaten = left_out = 0
    for seed in range(25):
        j_unit, j_expert, j_hit, judge, u_cr, n_experts, groups = random_campaign(seed)
        for r in alt_tests(
            j_unit=j_unit,
            j_expert=j_expert,
            j_hit=j_hit,
            u_judge=judge,
            u_cr=u_cr,
            n_experts=n_experts,
            u_group=groups,
            n_groups=3,
            min_responses=10,
        ):
            tested += r.experts_tested
            beaten += sum(e.judge_beats for e in r.experts)
            left_out += r.experts_left_out
    assert tested > 20 and 0 < beaten < tested and left_out > 0
