"""`manage.py score --model A B …`: several models in one call (one start-up), each scored as a call of its own would."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")


def one(capsys, model, *args):
    call_command("score", "--dataset", "demo", "--model", model, "--format", "json", *args)
    return json.loads(capsys.readouterr().out)


def test_json_gives_one_line_per_model_equal_to_single_calls(judged_demo, capsys):
    call_command("score", "--dataset", "demo", "--model", *MODELS, "--format", "json", "--subset", "hard", "--questions")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.pop("model") for line in lines] == list(MODELS)
    assert lines == [one(capsys, m, "--subset", "hard", "--questions") for m in MODELS]


def test_the_option_may_also_be_repeated(judged_demo, capsys):
    call_command("score", "--dataset", "demo", "--model", MODELS[0], "--model", MODELS[1], "--format", "json")
    assert [json.loads(line)["model"] for line in capsys.readouterr().out.splitlines()] == list(MODELS[:2])


def test_the_table_shows_each_model(judged_demo, capsys):
    call_command("score", "--dataset", "demo", "--model", *MODELS)
    out = capsys.readouterr().out
    assert all(f"{m} on demo@v1" in out for m in MODELS) and out.count("OVERALL") == 3


def test_one_file_per_model_with_the_model_in_the_path(judged_demo, capsys, tmp_path):
    call_command("score", "--dataset", "demo", "--model", *MODELS[:2], "--export-upstream", str(tmp_path / "{model}.jsonl"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{m}.jsonl" for m in MODELS[:2]]
    with pytest.raises(CommandError, match=r"\{model\}"):
        call_command("score", "--dataset", "demo", "--model", *MODELS[:2], "--export-upstream", str(tmp_path / "one.jsonl"))


def test_a_model_without_verdicts_stops_the_call_naming_it(judged_demo, capsys):
    with pytest.raises(CommandError, match="no judge run for model 'nobody'"):
        call_command("score", "--dataset", "demo", "--model", MODELS[0], "nobody", "--format", "json")
