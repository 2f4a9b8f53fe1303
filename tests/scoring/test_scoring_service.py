"""The public scoring service other apps call with their own verdict rows."""

import io
import json

import pytest

from heartbench_core.models import Criterion, JudgeVerdict
from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.scoring import rubric_frame, score_verdict_table, score_verdicts
from tests.factories import DEMO_ITEMS


def verdict_rows(run_model):
    return list(JudgeVerdict.objects.filter(run__model__name=run_model).values_list("criterion_id", "hit"))


def test_scoring_rows_equals_scoring_the_judge_run(judged_demo):
    from heartbench_core.services.scoring import score_model

    by_run, _ = score_model(dataset_name="demo", model_name="demo-model-aurora")
    by_rows = score_verdicts(version=judged_demo, rows=verdict_rows("demo-model-aurora"))
    assert by_rows.overall == pytest.approx(by_run.overall) and by_rows.abilities == pytest.approx(by_run.abilities)
    assert [q.question_id for q in by_rows.questions] == ["dm0001", "dm0002", "dm0003", "dm0004", "dm0005", "dm0006"]


def test_a_question_with_verdicts_on_only_some_criteria_is_dropped_not_guessed(judged_demo):
    rows = list(verdict_rows("demo-model-aurora"))
    one = Criterion.objects.get(item__version=judged_demo, item__question_id="dm0002", position=0).pk
    rows = [r for r in rows if r[0] != one]
    result = score_verdicts(version=judged_demo, rows=rows)
    assert (result.questions_scored, result.questions_dropped, result.questions_incomplete) == (5, 1, 1)


def test_the_same_responses_can_be_compared_by_restricting_questions(judged_demo):
    result = score_verdicts(version=judged_demo, rows=verdict_rows("demo-model-aurora"), questions=["dm0001", "dm0004"])
    assert result.questions_scored == 2 and {q.question_id for q in result.questions} == {"dm0001", "dm0004"}


def test_a_table_of_rows_is_scored_per_group(judged_demo):
    rows = [(model, c, h) for model in ("demo-model-aurora", "demo-model-borealis") for c, h in verdict_rows(model)]
    results = score_verdict_table(version=judged_demo, rows=rows)
    assert set(results) == {"demo-model-aurora", "demo-model-borealis"}
    assert results["demo-model-aurora"].overall > results["demo-model-borealis"].overall


def test_conflicting_duplicate_verdicts_are_refused(judged_demo):
    rows = verdict_rows("demo-model-aurora")
    with pytest.raises(Exception, match="more than one verdict"):
        score_verdicts(version=judged_demo, rows=rows + rows[:1])


def test_verdicts_carry_to_a_new_version_by_lineage_unless_the_criterion_changed_meaning(judged_demo):
    records = [json.loads(line) for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines()]
    records[0]["rubric"][1]["score"] = 5  # dm0001, position 1: a new revision that changes meaning
    source = io.BytesIO("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode())
    v2 = import_heartbench(source=source, dataset_name="demo", name="v2.jsonl").version
    result = score_verdicts(version=v2, rows=verdict_rows("demo-model-aurora"))
    assert result.version == v2.label
    assert result.verdicts_stale == 1 and result.verdicts_unmatched == 0
    assert (result.questions_scored, result.questions_incomplete) == (5, 1)
    assert "dm0001" not in {q.question_id for q in result.questions}


def test_the_rubric_frame_takes_two_queries(judged_demo, django_assert_num_queries):
    with django_assert_num_queries(2):
        frame = rubric_frame(judged_demo)
    assert frame.n_questions == 6 and len(frame.criterion_id) == 56 and frame.catastrophic.sum() == 6
