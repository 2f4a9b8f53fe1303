"""import_judge_verdicts takes several judge files in one call: one run per file, all or nothing, the model named or read from the file's name."""

import json
import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from heartbench_core.jsonl import InputFileError
from heartbench_core.models import JudgeRun, JudgeVerdict
from heartbench_core.services.judging import JudgeFile, import_judge_runs, import_judge_verdicts
from tests.factories import FIXTURES, demo_responses, demo_version

VERDICTS = FIXTURES / "verdicts"
MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")


@pytest.fixture
def demo(db):
    version = demo_version()
    demo_responses()
    return version


def verdicts_of(judge):
    return sorted(JudgeVerdict.objects.filter(run__judge=judge).values_list("run__model__name", "criterion_id", "hit", "rationale", "raw"))


def test_several_files_make_one_run_each_with_the_verdicts_one_file_at_a_time_makes(demo):
    outcomes = import_judge_runs(files=[(VERDICTS / f"{m}.jsonl", m) for m in MODELS], dataset_name="demo", judge="together")
    assert [o.run.model.name for o in outcomes] == list(MODELS) and all(o.created for o in outcomes)
    for m in MODELS:
        import_judge_verdicts(source=VERDICTS / f"{m}.jsonl", dataset_name="demo", model_name=m, judge="alone")
    assert verdicts_of("together") == verdicts_of("alone") != []
    runs = {r.model.name: (r.question_count, r.verdict_count) for r in JudgeRun.objects.filter(judge="together")}
    assert runs == {r.model.name: (r.question_count, r.verdict_count) for r in JudgeRun.objects.filter(judge="alone")}


def test_a_bad_line_in_any_file_names_that_file_and_nothing_is_written(demo, tmp_path):
    bad = tmp_path / "borealis.jsonl"
    bad.write_text(json.dumps({"question_id": "dm0002", "detail": [1, 2]}) + "\n")
    with pytest.raises(InputFileError) as exc:
        import_judge_runs(
            files=[(VERDICTS / "demo-model-aurora.jsonl", "demo-model-aurora"), JudgeFile(bad, "demo-model-borealis")],
            dataset_name="demo",
            judge="j",
        )
    [error] = exc.value.errors
    assert error.file == str(bad) and error.line == 1
    assert not JudgeRun.objects.exists() and not JudgeVerdict.objects.exists()


def test_one_model_named_for_two_files_is_refused(demo):
    with pytest.raises(Exception, match="named for two files"):
        import_judge_runs(
            files=[
                (VERDICTS / "demo-model-aurora.jsonl", "demo-model-aurora"),
                (VERDICTS / "demo-model-cirrus.jsonl", "demo-model-aurora"),
            ],
            dataset_name="demo",
            judge="j",
        )
    assert not JudgeRun.objects.exists()


def test_the_command_reads_each_model_from_its_file_name(demo, tmp_path, capsys):
    upstream = tmp_path / "demo-model-borealis" / "question_score.jsonl"
    upstream.parent.mkdir()
    shutil.copy(VERDICTS / "demo-model-borealis.jsonl", upstream)
    call_command("import_judge_verdicts", str(VERDICTS / "demo-model-aurora.jsonl"), str(upstream), "--dataset", "demo", "--judge", "j")
    assert set(JudgeRun.objects.values_list("model__name", flat=True)) == {"demo-model-aurora", "demo-model-borealis"}
    assert capsys.readouterr().out.count("judge run j/default") == 2


def test_the_command_wants_one_model_per_file(demo):
    with pytest.raises(CommandError, match="once per file"):
        call_command(
            "import_judge_verdicts",
            str(VERDICTS / "demo-model-aurora.jsonl"),
            str(VERDICTS / "demo-model-cirrus.jsonl"),
            "--dataset",
            "demo",
            "--model",
            "demo-model-aurora",
            "--judge",
            "j",
        )
    assert not JudgeRun.objects.exists()


def test_the_number_of_queries_does_not_grow_with_the_number_of_files(demo):
    def queries(models, judge):
        with CaptureQueriesContext(connection) as captured:
            import_judge_runs(files=[(VERDICTS / f"{m}.jsonl", m) for m in models], dataset_name="demo", judge=judge)
        return len(captured)

    assert queries(MODELS[:1], "one") == queries(MODELS, "three")
