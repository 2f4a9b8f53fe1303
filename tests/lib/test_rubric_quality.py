"""A criterion's rubric-quality signals from plain rows, computed by the shared agreement statistics."""

import math

import pytest

from heartbench_core.lib import rubric_quality as quality
from heartbench_core.lib.agreement import MajorityRule, Stat


def test_hit_rate_marks_a_criterion_hit_by_every_model_as_saturated():
    s = quality.hit_rate([(1, "a", True), (2, "b", True), (3, "c", True)])
    assert (s.value, s.n, s.extra["saturated"]) == (1.0, 3, True)
    assert quality.hit_rate([(1, "a", True), (2, "b", False)]).extra["saturated"] is False
    assert quality.hit_rate([(1, "a", True)]).extra["saturated"] is False  # one model cannot saturate
    empty = quality.hit_rate([])
    assert empty.value is None and empty.n == 0 and empty.reason


def test_pairwise_agreement_counts_agreeing_pairs_over_units_with_two_or_more_ratings():
    rows = [("u1", "e1", True), ("u1", "e2", True), ("u1", "e3", False), ("u2", "e1", False), ("u2", "e2", False), ("u3", "e1", True)]
    s = quality.pairwise_agreement(rows)
    assert s.n == 2 and s.extra["pairs"] == 4 and s.value == pytest.approx(2 / 4)
    assert quality.pairwise_agreement([("u1", "e1", True)]).value is None


def test_krippendorff_alpha_is_none_with_a_reason_when_undefined():
    same = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", True)])
    assert same.value is None and "undefined" in same.reason and same.n == 1
    perfect = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", True), ("u2", "e1", False), ("u2", "e2", False)])
    assert perfect.value == pytest.approx(1.0) and perfect.n == 2
    mixed = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", False), ("u2", "e1", False), ("u2", "e2", False)])
    assert mixed.value < 0.5 and not math.isnan(mixed.value)


def test_judge_human_agreement_uses_the_majority_of_two_or_more_judgments_when_the_rule_asks_for_two():
    two = MajorityRule(min_ratings=2)
    s = quality.judge_human_agreement([(True, [True, True, False]), (False, [True, True]), (True, [True, False]), (True, [True])], two)
    assert (s.value, s.n, s.extra["without_majority"]) == (0.5, 2, 2)
    assert quality.judge_human_agreement([(True, [True, False])], two).value is None


def test_judge_human_agreement_waits_for_the_blind_test_s_three_judgments_by_default():
    s = quality.judge_human_agreement([(True, [True, True, False]), (False, [True, True]), (True, [True, False]), (True, [True])])
    assert (s.value, s.n) == (1.0, 1)
    assert (s.extra["incomplete"], s.extra["ties"], s.extra["without_majority"]) == (3, 0, 3)
    tie = quality.judge_human_agreement([(True, [True, True, False, False]), (False, [False, False, True])])
    assert (tie.value, tie.n, tie.extra["ties"]) == (1.0, 1, 1)


def test_a_unit_that_carries_its_campaign_s_k_waits_for_that_many_judgments():
    pairs_k2 = [(True, [True, True], 2), (True, [False, False], 2)]
    s = quality.judge_human_agreement(pairs_k2)
    assert (s.value, s.n, s.extra["without_majority"]) == (0.5, 2, 0)
    # Units of a k = 2 campaign and of a blind test (k = 3) pooled: each waits for its own k.
    mixed = quality.judge_human_agreement([*pairs_k2, (True, [True, True], 3), (False, [False, False, False], 3)])
    assert (mixed.value, mixed.n, mixed.extra["incomplete"]) == (pytest.approx(2 / 3), 3, 1)
    none = quality.judge_human_agreement([(True, [True], 2), (True, [True, True], 3)])
    assert none.value is None and "overlap of the unit's campaign" in none.reason
    assert (none.extra["incomplete"], none.extra["without_majority"]) == (2, 2)


def test_an_ambiguous_criterion_needs_enough_units():
    rule = quality.AmbiguityRule(threshold=0.75, min_units=2)
    assert rule.is_ambiguous(Stat(0.5, 2))
    assert not rule.is_ambiguous(Stat(0.5, 1))
    assert not rule.is_ambiguous(Stat(None, 0, "undefined"))
