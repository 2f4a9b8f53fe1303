"""Stored scores give exactly what scoring the verdicts again gives, for every subset, scene and catastrophic rule."""

import pytest

from heartbench_core.leaderboard.selectors import judge_runs_of, leaderboard
from heartbench_core.models import StoredScores
from heartbench_core.services.scoring import SUBSETS, score_judge_runs, score_model, score_models
from heartbench_core.services.stored_scores import scored_runs

SCENES = (None, "亲密关系", "家庭关系")


def _fresh(version, mode, subset, scene):
    """The scorer as it was before scores were stored: every verdict read and scored on each call."""
    runs = judge_runs_of(version)
    scored = score_judge_runs(runs, mode=mode)
    return {r.pk: scored[r.pk].result(subset=subset, scene=scene).as_json(include_questions=True) for r in runs}


@pytest.mark.parametrize("mode", ["paper", "upstream"])
def test_stored_per_question_arrays_aggregate_to_the_same_figures(judged_demo, mode):
    runs = judge_runs_of(judged_demo)
    scored_runs(runs, mode=mode)  # computes and stores
    assert StoredScores.objects.filter(mode=mode).count() == len(runs)
    stored = scored_runs(runs, mode=mode)  # read back
    for subset in SUBSETS:
        for scene in SCENES:
            expected = _fresh(judged_demo, mode, subset, scene)
            got = {pk: s.result(subset=subset, scene=scene).as_json(include_questions=True) for pk, s in stored.items()}
            assert got == expected  # equal floats, not approximately equal


def test_the_leaderboard_ranks_as_before(judged_demo):
    runs = judge_runs_of(judged_demo)
    scored = score_judge_runs(runs)
    expected = sorted((-scored[r.pk].result().overall, r.model.name) for r in runs)
    leaderboard(judged_demo)  # stores
    rows = leaderboard(judged_demo)
    assert [(-r.all.overall, r.run.model.name) for r in rows] == expected
    assert [r.rank for r in rows] == [1, 2, 3]


@pytest.mark.parametrize("subset", SUBSETS)
def test_score_model_and_score_models_equal_the_scorer_from_the_first_call_on(judged_demo, subset):
    expected = _fresh(judged_demo, "paper", subset, None)
    for _ in range(2):  # computed, then stored
        listed = score_models(dataset_name="demo", subset=subset)
        assert sorted(row.verdicts.run_id for row in listed) == sorted(expected)
        for row in listed:
            whole = expected[row.verdicts.run_id]
            assert row.result.as_json() == {k: v for k, v in whole.items() if k != "questions"}
            one, _verdicts = score_model(dataset_name="demo", model_name=row.model, subset=subset)
            assert one.as_json(include_questions=True) == whole


def test_bytes_it_cannot_read_are_recomputed(judged_demo):
    runs = judge_runs_of(judged_demo)
    expected = {pk: s.result().as_json() for pk, s in score_judge_runs(runs).items()}
    scored_runs(runs)
    StoredScores.objects.update(arrays=b"PK\x03\x04 not ours")
    assert {pk: s.result().as_json() for pk, s in scored_runs(runs).items()} == expected
    assert all(row.arrays[:2] != b"PK" for row in StoredScores.objects.all())
