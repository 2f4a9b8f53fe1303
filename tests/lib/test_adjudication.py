"""Which units need a decision: ties and flagged criteria; never a 2-of-3 majority nor a unanimous verdict the judge contradicts."""

import numpy as np

from heartbench_core.lib.adjudication import triage_units


def triage(hits, ratings, *, k=3, adjudicated=None, judge=None, ambiguous=None):
    n = len(hits)
    return triage_units(
        np.array(hits),
        np.array(ratings),
        k=k,
        adjudicated=np.array(adjudicated if adjudicated is not None else [-1] * n),
        judge=np.array(judge if judge is not None else [-1] * n),
        ambiguous_criterion=np.array(ambiguous if ambiguous is not None else [False] * n),
    )


def test_a_two_of_three_majority_is_compared_but_needs_no_decision():
    t = triage([2, 1], [3, 3])
    assert t.split.tolist() == [True, True]
    assert t.needs_decision.tolist() == [False, False]
    assert t.compared.tolist() == [True, True]


def test_a_tie_among_complete_ratings_needs_a_decision():
    t = triage([2, 3, 1], [4, 6, 2], k=2)
    assert t.tie.tolist() == [True, True, True]
    assert t.needs_decision.tolist() == [True, True, True]


def test_an_incomplete_unit_is_neither_compared_nor_queued():
    t = triage([1, 0], [2, 0])
    assert t.compared.tolist() == [False, False]
    assert t.needs_decision.tolist() == [False, False]


def test_a_judge_contradicting_a_unanimous_verdict_is_marked_but_the_label_stands():
    t = triage([3, 0, 2, 3], [3, 3, 3, 3], judge=[0, 1, 0, 1])
    assert t.contradicts.tolist() == [True, True, False, False]
    assert t.needs_decision.tolist() == [False, False, False, False]
    assert t.compared.tolist() == [True, True, True, True]


def test_a_rated_unit_of_a_flagged_criterion_needs_a_decision_even_before_it_is_complete():
    t = triage([1, 2, 0], [1, 3, 0], ambiguous=[True, True, True])
    assert t.needs_decision.tolist() == [True, True, False]
    assert t.compared.tolist() == [True, True, False]


def test_a_decided_unit_needs_no_further_decision_and_stays_compared():
    t = triage([2], [4], adjudicated=[1])
    assert t.tie.tolist() == [True] and t.decided.tolist() == [True]
    assert t.needs_decision.tolist() == [False] and t.compared.tolist() == [True]


def test_agreement_is_the_share_of_agreeing_pairs():
    t = triage([3, 2, 2, 1], [3, 3, 4, 1])
    assert np.allclose(t.agreement, [1.0, 1 / 3, 2 / 6, 1.0])


def test_a_discussion_that_changes_the_majority_queues_the_unit():
    # Blind 2 of 3 hit in both; in the first, one hit voter now says miss (1 of 3): the majority changed.
    t = triage_units(
        np.array([2, 2, 3]),
        np.array([3, 3, 3]),
        k=3,
        adjudicated=np.array([-1, -1, -1]),
        judge=np.array([-1, -1, -1]),
        ambiguous_criterion=np.array([False, False, False]),
        post_discussion_hits=np.array([1, 3, 2]),
    )
    assert t.discussion_changed.tolist() == [True, False, False]  # 2→3 and 3→2 keep the hit majority
    assert t.needs_decision.tolist() == [True, False, False]


def test_a_decided_unit_is_not_queued_again_by_its_discussion_and_no_discussion_changes_nothing():
    t = triage_units(
        np.array([2]),
        np.array([3]),
        k=3,
        adjudicated=np.array([1]),
        judge=np.array([-1]),
        ambiguous_criterion=np.array([False]),
        post_discussion_hits=np.array([0]),
    )
    assert t.discussion_changed.tolist() == [True] and t.needs_decision.tolist() == [False]
    assert triage([2], [3]).discussion_changed.tolist() == [False]


def test_a_discussion_on_an_incomplete_unit_changes_nothing():
    t = triage_units(
        np.array([1]),
        np.array([2]),
        k=3,
        adjudicated=np.array([-1]),
        judge=np.array([-1]),
        ambiguous_criterion=np.array([False]),
        post_discussion_hits=np.array([0]),
    )
    assert t.discussion_changed.tolist() == [False] and t.needs_decision.tolist() == [False]
