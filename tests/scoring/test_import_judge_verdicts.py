"""Importing an LLM judge's output file (upstream question_score.jsonl) as a judge run."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.jsonl import InputFileError
from heartbench_core.models import JudgeRun, JudgeVerdict, ModelResponse
from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES, demo_responses, demo_version

VERDICTS = FIXTURES / "verdicts"


@pytest.fixture
def demo(db):
    version = demo_version()
    demo_responses()
    return version


def lines(*records) -> io.BytesIO:
    buffer = io.BytesIO("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode())
    buffer.name = "question_score.jsonl"
    return buffer


def run_import(source, model="demo-model-aurora", **kwargs):
    return import_judge_verdicts(source=source, dataset_name="demo", model_name=model, judge="judge-x", **kwargs)


def test_it_imports_a_verdict_file_with_one_verdict_per_criterion(demo):
    outcome = run_import(VERDICTS / "demo-model-aurora.jsonl")
    assert outcome.created and outcome.questions == 6 and outcome.verdicts == 56
    run = outcome.run
    assert (run.judge, run.label, run.model.name, run.version_id) == ("judge-x", "default", "demo-model-aurora", demo.pk)
    first = json.loads((VERDICTS / "demo-model-aurora.jsonl").read_text().splitlines()[0])
    hits = json.loads(first["score_detail"])
    got = list(
        JudgeVerdict.objects.filter(run=run, criterion__item__question_id="dm0001")
        .order_by("criterion__position")
        .values_list("hit", flat=True)
    )
    assert got == [bool(h) for h in hits]
    verdict = JudgeVerdict.objects.filter(run=run, criterion__item__question_id="dm0001").select_related("response").first()
    assert verdict.rationale == first["score_reason"]
    assert verdict.response.question_id == "dm0001" and verdict.response.model.name == "demo-model-aurora"
    assert verdict.raw["output"]["score_detail"] == first["score_detail"] and verdict.raw["line"] == 1


def test_it_accepts_detail_as_a_json_list(demo):
    outcome = run_import(lines({"question_id": "dm0001", "detail": [1, 0, 1, 1, 0, 0], "reason": "ok"}))
    assert outcome.verdicts == 6 and outcome.uncovered == 5
    assert JudgeVerdict.objects.filter(run=outcome.run, hit=True).count() == 3


@pytest.mark.parametrize(
    "record, field, words",
    [
        ({"question_id": "dm0001", "score_detail": "[1, 0, 1]"}, "score_detail", "has 3 values but question 'dm0001' has 6"),
        ({"question_id": "dm0001", "detail": [1, 0, 1, 1, 0, 0, 0]}, "detail", "has 7 values"),
        ({"question_id": "dm0001", "score_detail": "[1, 0, 2, 1, 0, 0]"}, "score_detail[2]", "must be 0 or 1, found 2"),
        ({"question_id": "dm0001", "detail": [1, 0, True, 1, 0, 0]}, "detail[2]", "must be 0 or 1, found True"),
        ({"question_id": "dm0001", "score_detail": "1,0,1"}, "score_detail", "cannot read a hit vector"),
        ({"question_id": "dm0001", "score_detail": "[1, 0,"}, "score_detail", "cannot read a hit vector"),
        ({"question_id": "dm0001", "score_detail": None}, "score_detail", "null hit vector"),
        ({"question_id": "nope42", "score_detail": "[1]"}, "question_id", "unknown question_id 'nope42'"),
        ({"question_id": "dm0001"}, "score_detail", "missing hit vector"),
        ({"score_detail": "[1]"}, "question_id", "missing key"),
        (
            {"question_id": "dm0001", "detail": [1, 0, 1, 1, 0, 0], "score_detail": "[0, 0, 1, 1, 0, 0]"},
            "detail",
            "disagree",
        ),
    ],
)
def test_a_bad_line_is_an_error_naming_line_and_field_and_nothing_is_written(demo, record, field, words):
    good = {"question_id": "dm0002", "score_detail": "[0, 0, 0, 0, 0, 0, 0]"}
    with pytest.raises(InputFileError) as caught:
        run_import(lines(good, record))
    error = caught.value.errors[0]
    assert (error.file, error.line, error.field) == ("question_score.jsonl", 2, field)
    assert words in error.message
    assert not JudgeRun.objects.exists() and not JudgeVerdict.objects.exists()


def test_a_duplicate_question_is_an_error(demo):
    record = {"question_id": "dm0001", "detail": [1, 0, 1, 1, 0, 0]}
    with pytest.raises(InputFileError, match="line 2, field 'question_id': duplicate question_id 'dm0001' \\(first on line 1\\)"):
        run_import(lines(record, record))


def test_a_question_without_a_line_is_simply_not_covered(demo):
    outcome = run_import(VERDICTS / "demo-model-cirrus.jsonl", model="demo-model-cirrus")
    assert outcome.questions == 5 and outcome.uncovered == 1
    assert not JudgeVerdict.objects.filter(criterion__item__question_id="dm0006").exists()


def test_reimporting_the_same_file_changes_nothing_and_a_different_one_needs_another_run_label(demo):
    run_import(VERDICTS / "demo-model-aurora.jsonl")
    again = run_import(VERDICTS / "demo-model-aurora.jsonl")
    assert not again.created and JudgeRun.objects.count() == 1
    with pytest.raises(Exception, match="already exists with other verdicts"):
        run_import(lines({"question_id": "dm0001", "detail": [0, 0, 0, 0, 0, 0]}))
    second = run_import(lines({"question_id": "dm0001", "detail": [0, 0, 0, 0, 0, 0]}), run_label="rerun")
    assert second.created and JudgeRun.objects.count() == 2


def test_the_response_carried_by_the_line_is_imported_when_the_model_has_none(db):
    demo_version()
    outcome = run_import(
        lines({"question_id": "dm0001", "response": "（合成）你好", "score_detail": "[1, 0, 0, 0, 0, 0]"}), model="fresh-model"
    )
    assert outcome.responses_created == 1
    assert ModelResponse.objects.get(model__name="fresh-model", question_id="dm0001").text == "（合成）你好"


def test_a_verdict_on_a_missing_or_different_response_is_refused(demo):
    with pytest.raises(InputFileError, match="has no response to 'dm0001'"):
        run_import(lines({"question_id": "dm0001", "score_detail": "[1, 0, 0, 0, 0, 0]"}), model="unknown-model")
    with pytest.raises(InputFileError, match="field 'response': differs from the response"):
        run_import(lines({"question_id": "dm0001", "response": "something else", "score_detail": "[1, 0, 0, 0, 0, 0]"}))
    assert not JudgeRun.objects.exists() and not ModelResponse.objects.filter(model__name="unknown-model").exists()


def test_the_command_imports_and_reports_coverage(demo, capsys):
    call_command(
        "import_judge_verdicts",
        str(VERDICTS / "demo-model-cirrus.jsonl"),
        "--dataset",
        "demo",
        "--model",
        "demo-model-cirrus",
        "--judge",
        "demo-judge",
        "--run",
        "r1",
        "--version",
        "v1",
    )
    out = capsys.readouterr().out
    assert "34 verdicts on 5 questions, 1 questions not covered" in out
    assert JudgeRun.objects.get().label == "r1"


def test_the_command_prints_file_line_and_field_and_fails(demo, tmp_path):
    path = tmp_path / "question_score.jsonl"
    path.write_text(json.dumps({"question_id": "dm0001", "score_detail": "[1, 1]"}) + "\n")
    with pytest.raises(
        CommandError, match=r"nothing was written:\n.*question_score.jsonl, line 1, field 'score_detail': the vector has 2 values"
    ):
        call_command("import_judge_verdicts", str(path), "--dataset", "demo", "--model", "demo-model-aurora", "--judge", "j")
    assert not JudgeRun.objects.exists()
