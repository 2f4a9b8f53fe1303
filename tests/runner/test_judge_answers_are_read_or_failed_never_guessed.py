"""Judging through the command: every accepted answer form gives one verdict per criterion with its reason; an unusable answer
gets a repair prompt saying what was wrong, and after the retries the question fails with its raw answers kept; a rerun
retries only the failed question."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.models import JudgeRun, JudgeVerdict
from heartbench_core.services.scoring import score_model
from tests.fake_openai import user_text
from tests.runner import scenarios as s

pytestmark = pytest.mark.django_db

PLANS = {
    "dm0001": [s.well_formed],
    "dm0002": [s.fenced],
    "dm0003": [s.python_literal],
    "dm0004": [s.prose_wrapped_released],
    "dm0005": [s.truncated, s.wrong_length, s.well_formed],  # repaired on the third answer
    "dm0006": [s.wrong_length],  # never right: fails after 1 + 2 retries
}


def _judge(capsys, **extra):
    args = ["judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a"]
    for k, v in extra.items():
        args += [f"--{k}", v]
    try:
        call_command(*args)
        error = None
    except CommandError as exc:
        error = exc
    return capsys.readouterr().out, error


def test_each_answer_form_is_read_and_a_hopeless_one_fails_with_its_raw_answers(demo, fake, judge_endpoint, capsys):
    fake.behaviour = s.by_question(demo, PLANS)
    out, error = _judge(capsys)
    assert error is not None and error.returncode == 1 and "1 questions failed" in str(error)
    assert "5 questions judged now, 1 failed" in out
    assert "failed: dm0006 — the answer gives 8 verdicts for 7 criteria" in out or "failed: dm0006 — the answer gives" in out

    judge_run = JudgeRun.objects.get(judge="fake-judge-1", label="heartbench-zh-r1", model__name="demo-model-aurora")
    assert (judge_run.question_count, judge_run.version) == (5, demo)
    run = judge_run.endpoint_run
    assert run.status == EndpointRun.Status.FINISHED
    by_q = {q.item.question_id: q for q in run.questions.select_related("item")}
    assert {q: x.status for q, x in by_q.items()} == {**dict.fromkeys(PLANS, "done"), "dm0006": "failed"}
    # One verdict per criterion, in order, with the judge's own reason for each; never for the failed question.
    for qid in ("dm0001", "dm0002", "dm0003", "dm0004", "dm0005"):
        item = demo.items.get(question_id=qid)
        verdicts = list(JudgeVerdict.objects.filter(run=judge_run, criterion__item=item).order_by("criterion__position"))
        assert [v.hit for v in verdicts] == [i % 2 == 0 for i in range(item.criteria.count())]
        assert [v.raw["index"] for v in verdicts] == list(range(len(verdicts)))
        assert all(v.raw["template"] == "heartbench-zh" and v.raw["template_revision"] == 1 for v in verdicts)
        assert all(v.raw["judge_model"] == "fake-judge-1" and v.raw["endpoint"] == "judge-a" for v in verdicts)
    first = JudgeVerdict.objects.filter(run=judge_run, criterion__item__question_id="dm0001").order_by("criterion__position")
    assert [v.rationale for v in first][:2] == ["第1项的理由", "第2项的理由"]
    assert set(JudgeVerdict.objects.filter(run=judge_run, criterion__item__question_id="dm0004").values_list("rationale", flat=True)) == {
        "整体上回应了情绪"
    }
    assert not JudgeVerdict.objects.filter(run=judge_run, criterion__item__question_id="dm0006").exists()
    # The repaired question: three answers kept, the repair prompts said what was wrong.
    repaired = by_q["dm0005"]
    assert [o["problem"]["code"] if o["problem"] else None for o in repaired.outputs] == ["truncated", "wrong_length", None]
    assert repaired.requests == 3 and repaired.problem is None
    repairs = [b for b in fake.requests if b["messages"][-1]["role"] == "user" and "上一次的回答无法使用" in b["messages"][-1]["content"]]
    texts = [b["messages"][-1]["content"] for b in repairs]
    assert any("截断" in t for t in texts) and any("评分项共有 7 个" in t or "评分项共有" in t for t in texts)
    # The failed question: every raw answer kept, the problem named.
    failed = by_q["dm0006"]
    assert failed.problem["code"] == "wrong_length" and len(failed.outputs) == 3 and failed.requests == 3
    assert all(o["answer"] for o in failed.outputs)


def test_a_rerun_with_the_same_label_judges_only_the_failed_question(demo, fake, judge_endpoint, capsys):
    fake.behaviour = s.by_question(demo, PLANS)
    _judge(capsys)
    asked_before = len(fake.requests)
    fake.behaviour = s.by_question(demo, {}, default=[s.well_formed])
    out, error = _judge(capsys)
    assert error is None, error
    assert "resumed, 0 questions added, 1 failed ones to retry" in out and "1 questions judged now, 0 failed" in out
    assert len(fake.requests) == asked_before + 1  # dm0006 only
    marker = s.snippets(demo)["dm0006"]
    assert marker in user_text(fake.requests[-1])
    judge_run = JudgeRun.objects.get(label="heartbench-zh-r1", model__name="demo-model-aurora")
    assert judge_run.question_count == 6
    assert (
        judge_run.verdict_count == JudgeVerdict.objects.filter(run=judge_run).count() == sum(i.criteria.count() for i in demo.items.all())
    )
    # A third run has nothing to do.
    out, error = _judge(capsys)
    assert error is None and "0 questions judged now" in out and len(fake.requests) == asked_before + 1


def test_a_finished_platform_run_scores_like_an_imported_one(demo, fake, judge_endpoint, capsys):
    _judge(capsys)
    result, verdicts = score_model(
        dataset_name="demo", model_name="demo-model-aurora", source="judge", judge="fake-judge-1", run="heartbench-zh-r1"
    )
    assert result.questions_scored == 6 and verdicts.description == "judge fake-judge-1/heartbench-zh-r1"


def test_a_subset_and_explicit_questions_are_judged_alone(demo, fake, judge_endpoint, capsys):
    out, error = _judge(capsys, questions="dm0002,dm0004", run="two")
    assert error is None and "new, 2 questions" in out
    assert RunQuestion.objects.filter(run__judge_run__label="two").count() == 2
    _out, error = _judge(capsys, questions="dm0002,nope", run="three")
    assert error is not None and "unknown question ids" in str(error) and "nope" in str(error)
    assert not JudgeRun.objects.filter(label="three").exists()


def test_a_label_made_with_another_template_or_imported_is_refused(demo, fake, judge_endpoint, capsys):
    from heartbench_core.judging.services.endpoints import add_template_revision
    from heartbench_core.services.judging import import_judge_verdicts
    from tests.factories import FIXTURES

    _judge(capsys, run="x")
    add_template_revision(name="heartbench-zh", system="", user="$dialogue $response $criteria 共 $count 项", change_note="shorter")
    _out, error = _judge(capsys, run="x")
    assert error is not None and "template heartbench-zh r1" in str(error)
    import_judge_verdicts(
        source=FIXTURES / "verdicts" / "demo-model-aurora.jsonl",
        dataset_name="demo",
        model_name="demo-model-aurora",
        judge="fake-judge-1",
        run_label="imported",
    )
    _out, error = _judge(capsys, run="imported")
    assert error is not None and "imported from a file" in str(error)
    # Without --run, the new revision makes a run of its own.
    _out, error = _judge(capsys)
    assert JudgeRun.objects.filter(label="heartbench-zh-r2").exists()
