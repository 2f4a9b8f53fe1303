"""A run made on the platform is a normal judge run: `score --source judge --judge <endpoint model> --run LABEL` scores it,
the leaderboard shows it, `agreement_report --judge … --run …` compares it with the experts; on the released data too.
And "the items whose criteria changed since run X" re-judges exactly those items on a new rubric version."""

import io
import json

import pytest
from django.core.management import call_command

from heartbench_core.judging.models import RunQuestion
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.models import JudgeRun
from heartbench_core.services.datasets import import_heartbench
from tests.conftest import heartbench_file
from tests.factories import DEMO_ITEMS
from tests.validation.builders import MODELS, blind_test
from validation.models import AgreementReport

pytestmark = pytest.mark.django_db


def _call(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_score_the_leaderboard_and_the_agreement_report_take_it(cast, client_for, fake):
    campaign = blind_test(cast, with_judge=False)
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge-1")
    for model in MODELS:
        _call("judge", "--dataset", "demo", "--model", model, "--endpoint", "judge-a", "--run", "v1-run")
    scored = json.loads(
        _call(
            "score",
            "--dataset",
            "demo",
            "--model",
            MODELS[0],
            "--source",
            "judge",
            "--judge",
            "fake-judge-1",
            "--run",
            "v1-run",
            "--format",
            "json",
        )
    )
    assert scored["questions_scored"] == 6 and scored["overall"] is not None
    page = client_for(cast.admin).get(f"/datasets/demo/v/{campaign.version.label}/leaderboard/").content.decode()
    assert "fake-judge-1" in page
    _call("agreement_report", "--campaign", campaign.name, "--judge", "fake-judge-1", "--run", "v1-run", "--format", "json")
    report = AgreementReport.objects.get(campaign=campaign)
    assert report.judge == "fake-judge-1" and report.run_label == "v1-run" and report.typed_result.pairs > 0


def test_the_released_items_are_judged_and_scored(cast, fake, tmp_path):
    path = heartbench_file()
    version = import_heartbench(source=path, dataset_name="hb").version
    first = list(version.items.order_by("position").values_list("question_id", flat=True)[:8])
    lines = [json.dumps({"question_id": q, "response": f"（合成回答）{q}：我听到了你的难处。"}, ensure_ascii=False) for q in first]
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    _call("import_responses", str(tmp_path / "r.jsonl"), "--dataset", "hb", "--model", "synthetic-model")
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge-1")
    out = _call("judge", "--dataset", "hb", "--model", "synthetic-model", "--endpoint", "judge-a")
    assert "8 questions judged now, 0 failed" in out
    run = JudgeRun.objects.get(label="heartbench-zh-r1")
    assert run.verdict_count == sum(version.items.get(question_id=q).criteria.count() for q in first)
    scored = json.loads(_call("score", "--dataset", "hb", "--model", "synthetic-model", "--source", "judge", "--format", "json"))
    assert scored["questions_scored"] == 8 and scored["questions_dropped"] == version.item_count - 8


def test_changed_since_rejudges_only_the_items_whose_criteria_changed(fake, demo, tmp_path):
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge-1")
    _call("judge", "--dataset", "demo", "--model", MODELS[0], "--endpoint", "judge-a", "--run", "first")
    first = JudgeRun.objects.get(label="first")
    # A new rubric version: one criterion of dm0003 reworded.
    records = [json.loads(line) for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    changed = next(r for r in records if r["question_id"] == "dm0003")
    changed["rubric"][0]["content"] += "（措辞修订）"
    (tmp_path / "v2.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    v2 = import_heartbench(source=tmp_path / "v2.jsonl", dataset_name="demo").version
    asked = len(fake.requests)
    out = _call(
        "judge",
        "--dataset",
        "demo",
        "--model",
        MODELS[0],
        "--endpoint",
        "judge-a",
        "--version",
        v2.label,
        "--run",
        "after-edit",
        "--changed-since",
        str(first.pk),
    )
    assert "new, 1 questions" in out and len(fake.requests) == asked + 1
    assert list(RunQuestion.objects.filter(run__judge_run__label="after-edit").values_list("item__question_id", flat=True)) == ["dm0003"]
