"""The alternative annotator test on four responses rated by three experts, worked out by hand.

Unit = response (one criterion each). Hits of experts e0, e1, e2 and the judge:

    response  e0 e1 e2  judge
    0          1  1  1   1
    1          1  0  0   0
    2          0  0  1   1
    3          1  1  0   1

Leaving e0 out: on response 1 the others say 0, 0: e0 agrees with neither, the judge with both,
so the judge wins it (d = W_e0 − W_judge = −1); responses 0, 2, 3 are ties (d = 0). Leaving e1
out every response is a tie. Leaving e2 out the judge wins response 3 (the others say 1, 1).
So d is (0, −1, 0, 0) for e0 and e2: mean −0.25, standard deviation 0.5, standard error 0.25,
t = (−0.25 − 0.2) / 0.25 = −1.8 on 3 degrees of freedom; for e1 d is all 0, below ε = 0.2 with
no spread, p = 0. Benjamini–Yekutieli over three p values (c(3) = 1 + 1/2 + 1/3 = 11/6): e1's
adjusted p is 0, the others' p·3·(11/6)/3 = 0.156 > 0.05. The judge beats one expert in three
(ω = 1/3, it cannot replace an expert) although it wins or ties every response (ρ = 1).
"""

import math

import numpy as np
import pytest

from heartbench_core.lib.alt_test import alt_test

HITS = np.array([[1, 1, 1], [1, 0, 0], [0, 0, 1], [1, 1, 0]])
JUDGE = np.array([1, 0, 1, 1])


def t3_cdf(t: float) -> float:
    """Student's t distribution function with 3 degrees of freedom, in closed form."""
    theta = math.atan(t / math.sqrt(3))
    return 0.5 + (theta + math.sin(theta) * math.cos(theta)) / math.pi


def worked_example(**kwargs):
    units, experts = np.nonzero(np.ones_like(HITS))
    return alt_test(
        j_unit=units,
        j_expert=experts,
        j_hit=HITS[units, experts],
        u_judge=JUDGE,
        u_cr=np.arange(4),
        n_experts=3,
        **{"epsilon": 0.2, "q": 0.05, "min_responses": 2, **kwargs},
    )


def test_it_gives_each_expert_the_p_value_worked_out_by_hand():
    result = worked_example()
    p = t3_cdf(-1.8)
    assert [e.expert for e in result.experts] == [0, 1, 2]
    assert [e.p for e in result.experts] == pytest.approx([p, 0.0, p], abs=1e-12)
    assert [e.p_adjusted for e in result.experts] == pytest.approx([p * 11 / 6, 0.0, p * 11 / 6], abs=1e-12)
    assert [e.judge_beats for e in result.experts] == [False, True, False]


def test_it_counts_ties_as_wins_for_both():
    result = worked_example()
    assert [e.judge_wins for e in result.experts] == [1.0, 1.0, 1.0]
    assert [e.expert_wins for e in result.experts] == [0.75, 1.0, 0.75]


def test_the_judge_beats_one_expert_in_three_and_cannot_replace_one():
    result = worked_example()
    assert result.winning_rate == pytest.approx(1 / 3)
    assert result.advantage_probability == 1.0
    assert result.passed is False
    assert (result.experts_tested, result.experts_left_out, result.responses) == (3, 0, 4)
    assert (result.epsilon, result.q, result.min_responses) == (0.2, 0.05, 2)


def test_a_wider_margin_lets_the_judge_beat_every_expert():
    # With ε = 0.6, t = (−0.25 − 0.6) / 0.25 = −3.4: p = 0.021, adjusted 0.039 ≤ 0.05.
    result = worked_example(epsilon=0.6)
    assert [e.p for e in result.experts] == pytest.approx([t3_cdf(-3.4), 0.0, t3_cdf(-3.4)], abs=1e-12)
    assert result.winning_rate == 1.0 and result.passed is True
