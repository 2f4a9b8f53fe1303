"""The pure scoring functions, checked on hand-computed cases and against a plain restatement."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartbench_core.lib import scoring
from tests.scoring.reference import question_detail


def score_one(weights, hits, *, abilities=None, catastrophic=None, mode="paper"):
    n = len(weights)
    return scoring.score_questions(
        question=np.zeros(n, dtype=int),
        ability=np.array(abilities if abilities is not None else [0] * n),
        weight=np.array([np.nan if w is None else w for w in weights], dtype=float),
        hit=np.array(hits, dtype=bool),
        catastrophic=np.array(catastrophic if catastrophic is not None else [False] * n),
        n_questions=1,
        n_abilities=max(abilities or [0]) + 1,
        mode=mode,
    )


def test_an_ability_with_only_penalties_scores_100_when_nothing_is_hit():
    result = score_one([-3, -5], [0, 0])
    assert result.norm[0, 0] == pytest.approx(100.0)


def test_an_ability_with_only_penalties_scores_0_when_every_penalty_is_hit():
    assert score_one([-3, -5], [1, 1]).norm[0, 0] == pytest.approx(0.0)


def test_plus_three_and_minus_three_with_no_hits_gives_100_ln4_over_ln7():
    result = score_one([3, -3], [0, 0])
    assert result.norm[0, 0] == pytest.approx(100 * math.log(4) / math.log(7))


def test_all_rewards_hit_and_no_penalty_hit_scores_100():
    assert score_one([3, 2, -4], [1, 1, 0]).norm[0, 0] == pytest.approx(100.0)


def test_a_reward_only_ability_with_nothing_hit_scores_0():
    assert score_one([3, 2], [0, 0]).norm[0, 0] == pytest.approx(0.0)


def test_an_ability_whose_weights_are_all_null_scores_0_and_still_counts():
    result = score_one([None, 3], [1, 1], abilities=[0, 1])
    assert result.present[0, 0] and result.norm[0, 0] == 0.0
    assert result.question_score[0] == pytest.approx(50.0)


def test_the_question_score_is_the_mean_over_its_abilities():
    result = score_one([3, -3, 2], [0, 0, 1], abilities=[0, 0, 1])
    expected = (100 * math.log(4) / math.log(7) + 100.0) / 2
    assert result.question_score[0] == pytest.approx(expected)


def test_paper_mode_zeroes_every_ability_when_a_catastrophic_criterion_with_null_weight_is_hit():
    result = score_one([3, 2, None], [1, 1, 1], abilities=[0, 1, 0], catastrophic=[False, False, True], mode="paper")
    assert result.catastrophic[0]
    assert result.norm[0, 0] == 0.0 and result.norm[0, 1] == 0.0 and result.question_score[0] == 0.0


def test_upstream_mode_ignores_a_catastrophic_hit_without_positive_weight():
    for weight in (None, -4):
        result = score_one([3, 2, weight], [1, 1, 1], abilities=[0, 1, 0], catastrophic=[False, False, True], mode="upstream")
        assert not result.catastrophic[0]
        assert result.question_score[0] == pytest.approx(100.0)


def test_upstream_mode_zeroes_when_the_hit_catastrophic_criterion_has_a_positive_weight():
    result = score_one([3, 5], [1, 1], abilities=[0, 0], catastrophic=[False, True], mode="upstream")
    assert result.catastrophic[0] and result.question_score[0] == 0.0


def test_the_catastrophic_label_is_never_scored_as_an_ability():
    result = score_one([3, -4], [1, 0], abilities=[0, 1], catastrophic=[False, True])
    assert result.present[0].tolist() == [True, False]


def test_an_unknown_catastrophic_mode_is_refused():
    with pytest.raises(ValueError):
        score_one([1], [1], mode="lenient")


def test_aggregation_is_a_macro_mean_over_abilities_of_question_means():
    # q0: ability 0 → 100; q1: ability 0 → 0, ability 1 → 100.
    scores = scoring.score_questions(
        question=np.array([0, 1, 1]),
        ability=np.array([0, 0, 1]),
        weight=np.array([2.0, 2.0, 1.0]),
        hit=np.array([True, False, True]),
        catastrophic=np.zeros(3, bool),
        n_questions=2,
        n_abilities=3,
    )
    agg = scoring.aggregate(scores, selected=np.array([True, True]), ability_dimension=np.array([0, 1, 1]), n_dimensions=2)
    assert agg.ability_score[0] == pytest.approx(50.0) and agg.ability_score[1] == pytest.approx(100.0)
    assert math.isnan(agg.ability_score[2]) and agg.ability_questions.tolist() == [2, 1, 0]
    assert agg.overall == pytest.approx(75.0)
    # Dimension 1 averages only its scored ability (2 has no question); an unscored ability is not a 0.
    assert agg.dimension_score.tolist() == pytest.approx([50.0, 100.0])
    assert agg.dimension_abilities.tolist() == [1, 1]
    assert agg.questions_scored == 2


def test_the_overall_differs_from_the_mean_of_question_scores():
    scores = scoring.score_questions(
        question=np.array([0, 1, 1, 2]),
        ability=np.array([0, 0, 1, 0]),
        weight=np.array([2.0, 2.0, 1.0, 1.0]),
        hit=np.array([True, False, True, False]),
        catastrophic=np.zeros(4, bool),
        n_questions=3,
        n_abilities=2,
    )
    agg = scoring.aggregate(scores, selected=np.ones(3, bool), ability_dimension=np.array([0, 0]), n_dimensions=1)
    # ability 0: (100 + 0 + 0) / 3; ability 1: 100 → overall 66.67; question mean = (100 + 50 + 0) / 3 = 50.
    assert agg.overall == pytest.approx((100 / 3 + 100) / 2)
    assert np.nanmean(scores.question_score) == pytest.approx(50.0)


def test_unselected_questions_are_left_out_not_counted_as_zero():
    scores = scoring.score_questions(
        question=np.array([0, 1]),
        ability=np.array([0, 0]),
        weight=np.array([2.0, 2.0]),
        hit=np.array([True, False]),
        catastrophic=np.zeros(2, bool),
        n_questions=2,
        n_abilities=1,
    )
    agg = scoring.aggregate(scores, selected=np.array([True, False]), ability_dimension=np.array([0]), n_dimensions=1)
    assert agg.overall == pytest.approx(100.0) and agg.questions_scored == 1


def test_nothing_selected_gives_an_undefined_overall_not_zero():
    scores = score_one([1], [1])
    agg = scoring.aggregate(scores, selected=np.array([False]), ability_dimension=np.array([0]), n_dimensions=1)
    assert math.isnan(agg.overall) and math.isnan(agg.dimension_score[0]) and agg.abilities_scored == 0


def test_decay_is_undefined_without_both_scores():
    assert scoring.decay_percent(80.0, 60.0) == pytest.approx(25.0)
    assert scoring.decay_percent(None, 60.0) is None and scoring.decay_percent(0.0, 1.0) is None


LABELS = ["温暖", "好奇心", "道德", "其他"]
criterion = st.tuples(st.sampled_from(LABELS), st.one_of(st.none(), st.integers(-10, 10).filter(bool)), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(criterion, min_size=1, max_size=12), min_size=1, max_size=6), st.sampled_from(["paper", "upstream"]))
def test_the_vectorised_scores_match_a_plain_restatement_question_by_question(questions, mode):
    q_idx, a_idx, weights, hits, cata = [], [], [], [], []
    for q, rubric in enumerate(questions):
        for label, weight, hit in rubric:
            q_idx.append(q)
            a_idx.append(LABELS.index(label) if label != "其他" else 0)
            weights.append(np.nan if weight is None else weight)
            hits.append(hit)
            cata.append(label == "其他")
    result = scoring.score_questions(
        question=np.array(q_idx),
        ability=np.array(a_idx),
        weight=np.array(weights, dtype=float),
        hit=np.array(hits),
        catastrophic=np.array(cata),
        n_questions=len(questions),
        n_abilities=3,
        mode=mode,
    )
    for q, rubric in enumerate(questions):
        norms, score = question_detail(
            [{"dimension": label, "score": weight} for label, weight, _ in rubric], [int(h) for _, _, h in rubric], mode
        )
        for label, value in norms.items():
            assert result.norm[q, LABELS.index(label)] == pytest.approx(value)
        if score is None:
            assert math.isnan(result.question_score[q])
        else:
            assert result.question_score[q] == pytest.approx(score)
