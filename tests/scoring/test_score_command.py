"""`manage.py score`: one model's scores from a verdict source, as JSON, a table, or the upstream file."""

import json
import math

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.factories import DEMO_ITEMS
from tests.scoring.reference import run_scores


def demo_records():
    return [json.loads(line) for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines()]


def fixture_hits(model):
    from tests.factories import FIXTURES

    return {
        r["question_id"]: json.loads(r["score_detail"])
        for r in map(json.loads, (FIXTURES / "verdicts" / f"{model}.jsonl").read_text(encoding="utf-8").splitlines())
    }


def score_json(capsys, *args):
    call_command("score", "--dataset", "demo", "--format", "json", *args)
    return json.loads(capsys.readouterr().out)


def test_it_prints_the_contract_json_matching_a_plain_restatement(judged_demo, capsys):
    body = score_json(capsys, "--model", "demo-model-aurora")
    overall, abilities = run_scores(demo_records(), fixture_hits("demo-model-aurora"))
    assert body["overall"] == pytest.approx(overall)
    assert {k: v for k, v in body["abilities"].items() if v is not None} == pytest.approx(abilities)
    assert set(body["dimensions"]) == {"Personality", "Emotion", "Social", "Motivation", "Morality"}
    assert (body["questions_scored"], body["questions_dropped"], body["catastrophic"]) == (6, 0, "paper")


def test_questions_without_verdicts_are_dropped_and_counted(judged_demo, capsys):
    body = score_json(capsys, "--model", "demo-model-cirrus")
    assert (body["questions_scored"], body["questions_dropped"]) == (5, 1)
    overall, _ = run_scores(demo_records(), fixture_hits("demo-model-cirrus"))
    assert body["overall"] == pytest.approx(overall)


def test_the_catastrophic_modes_differ_when_a_null_weight_catastrophic_item_is_hit(judged_demo, capsys):
    paper = score_json(capsys, "--model", "demo-model-borealis", "--catastrophic", "paper")
    upstream = score_json(capsys, "--model", "demo-model-borealis", "--catastrophic", "upstream")
    assert paper["questions_catastrophic"] == 1 and upstream["questions_catastrophic"] == 0
    assert paper["overall"] == pytest.approx(run_scores(demo_records(), fixture_hits("demo-model-borealis"), "paper")[0])
    assert upstream["overall"] == pytest.approx(run_scores(demo_records(), fixture_hits("demo-model-borealis"), "upstream")[0])
    assert paper["overall"] < upstream["overall"]


def test_subsets_score_only_their_questions(judged_demo, capsys):
    hard = score_json(capsys, "--model", "demo-model-aurora", "--subset", "hard")
    normal = score_json(capsys, "--model", "demo-model-aurora", "--subset", "normal")
    assert (hard["questions_scored"], normal["questions_scored"]) == (3, 3)
    records = demo_records()
    hits = fixture_hits("demo-model-aurora")
    expected_hard, _ = run_scores([r for r in records if r["difficulty"] == "hard"], hits)
    assert hard["overall"] == pytest.approx(expected_hard)
    # An ability absent from the subset is undefined, with a reason, never 0.
    assert normal["abilities"]["情绪应对"] is None and "情绪应对" in normal["undefined"]


def test_a_scene_narrows_the_questions(judged_demo, capsys):
    body = score_json(capsys, "--model", "demo-model-aurora", "--scene", "个人成长")
    assert body["questions_scored"] == 2 and body["scene"] == "个人成长"


def test_consensus_says_clearly_that_no_golden_standard_exists(judged_demo):
    with pytest.raises(CommandError, match="no human golden standard exists for dataset 'demo'.*'demo-model-aurora'"):
        call_command("score", "--dataset", "demo", "--model", "demo-model-aurora", "--source", "consensus", "--format", "json")


def test_a_registered_source_is_used_for_consensus(judged_demo, capsys, monkeypatch):
    import numpy as np

    from heartbench_core import verdict_sources
    from heartbench_core.models import Criterion

    def all_hits(*, dataset, version, model, judge, run):
        rows = list(Criterion.objects.filter(item__version=judged_demo).values_list("id", "weight", "catastrophic"))
        hits = [not cata and weight > 0 for _, weight, cata in rows]
        return verdict_sources.VerdictSet(
            version=judged_demo, criterion_id=np.array([r[0] for r in rows]), hit=np.array(hits), description="test consensus"
        )

    # setitem restores whatever was registered before (the validation app registers its own).
    monkeypatch.setitem(verdict_sources._SOURCES, "consensus", all_hits)
    body = score_json(capsys, "--model", "demo-model-aurora", "--source", "consensus")
    assert body["overall"] == pytest.approx(100.0) and body["questions_scored"] == 6


def test_the_table_names_the_source_and_the_counts(judged_demo, capsys):
    call_command("score", "--dataset", "demo", "--model", "demo-model-cirrus")
    out = capsys.readouterr().out
    assert "judge demo-judge/default" in out and "questions scored 5, left out 1" in out
    assert "Warmth 温暖" in out and "OVERALL" in out


def test_it_exports_the_upstream_overall_file(judged_demo, capsys, tmp_path):
    path = tmp_path / "overall_score_results.jsonl"
    body = score_json(capsys, "--model", "demo-model-aurora", "--export-upstream", str(path))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["ability"] for r in rows[:-1]] == sorted(k for k, v in body["abilities"].items() if v is not None)
    assert rows[-1]["ability"] == "OVERALL" and math.isclose(rows[-1]["dimension_score"], body["overall"], abs_tol=1e-9)
    assert set(rows[0]) == {"ability", "dimension_score"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--model", "nobody"], "no judge run for model 'nobody' on demo"),
        (["--model", "demo-model-aurora", "--judge", "other"], "judge 'other'"),
        (["--model", "demo-model-aurora", "--version", "v9"], "has no version 'v9'"),
        (["--model", "demo-model-aurora", "--source", "astrology"], "unknown verdict source 'astrology'"),
    ],
)
def test_it_fails_clearly(judged_demo, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("score", "--dataset", "demo", "--format", "json", *args)


def test_several_matching_runs_must_be_disambiguated(judged_demo, capsys):
    from heartbench_core.services.judging import import_judge_verdicts
    from tests.factories import FIXTURES

    import_judge_verdicts(
        source=FIXTURES / "verdicts" / "demo-model-aurora.jsonl", dataset_name="demo", model_name="demo-model-aurora", judge="judge-2"
    )
    with pytest.raises(CommandError, match="several judge runs match.*--judge demo-judge --run default"):
        call_command("score", "--dataset", "demo", "--model", "demo-model-aurora", "--format", "json")
    assert score_json(capsys, "--model", "demo-model-aurora", "--judge", "judge-2")["questions_scored"] == 6
