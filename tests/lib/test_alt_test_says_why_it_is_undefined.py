"""The alternative annotator test is undefined (None and a reason, never 0) when no expert can be tested, and counts who was left out."""

import numpy as np
import pytest

from heartbench_core.lib.alt_test import NO_JUDGE, NO_OVERLAP, alt_test, alt_tests, too_few_responses


def campaign(n_responses: int, judge: int = 1):
    """Three experts rate every response (one criterion each); the third only the first half."""
    units = np.repeat(np.arange(n_responses), 3)
    experts = np.tile(np.arange(3), n_responses)
    keep = (experts < 2) | (units < n_responses // 2)
    return {
        "j_unit": units[keep],
        "j_expert": experts[keep],
        "j_hit": (units[keep] + experts[keep]) % 2 == 0,
        "u_judge": np.full(n_responses, judge),
        "u_cr": np.arange(n_responses),
        "n_experts": 3,
    }


def test_without_judge_verdicts_it_says_so():
    result = alt_test(**campaign(40, judge=-1))
    assert (result.winning_rate, result.advantage_probability, result.passed) == (None, None, None)
    assert result.reason == NO_JUDGE
    assert (result.experts_tested, result.experts_left_out, result.responses) == (0, 0, 0)


def test_with_one_expert_per_unit_it_says_no_unit_can_be_compared():
    data = campaign(40)
    single = data["j_expert"] == 0
    result = alt_test(**{**data, "j_unit": data["j_unit"][single], "j_expert": data["j_expert"][single], "j_hit": data["j_hit"][single]})
    assert result.winning_rate is None and result.reason == NO_OVERLAP


def test_experts_with_too_few_responses_are_left_out_and_counted():
    result = alt_test(**campaign(40), min_responses=30)
    assert [e.expert for e in result.experts] == [0, 1]  # 40 responses each; the third expert rated 20
    assert (result.experts_tested, result.experts_left_out, result.responses) == (2, 1, 40)
    assert result.winning_rate is not None and result.reason is None


def test_when_every_expert_has_too_few_responses_it_names_the_minimum():
    result = alt_test(**campaign(20), min_responses=30)
    assert result.winning_rate is None and result.advantage_probability is None
    assert result.reason == too_few_responses(30) == "no expert rated 30 or more responses that the judge and another expert also rated"
    assert (result.experts_tested, result.experts_left_out, result.responses) == (0, 3, 20)


def test_a_group_with_no_units_is_undefined_and_the_others_are_not():
    data = campaign(40)
    first, empty = alt_tests(**data, u_group=np.zeros(40, int), n_groups=2, min_responses=30)
    assert first.winning_rate is not None
    assert empty.winning_rate is None and empty.reason == NO_OVERLAP and empty.responses == 0


@pytest.mark.parametrize("epsilon", [-0.1, 1.0])
def test_a_margin_outside_zero_to_one_is_refused(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        alt_test(**campaign(40), epsilon=epsilon)
