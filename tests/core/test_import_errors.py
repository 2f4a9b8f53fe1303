"""Every kind of bad input names file, line and field, exits non-zero and writes nothing."""

import json

import pytest
from django.core.management import CommandError, call_command

from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item
from tests.factories import DEMO_ITEMS

pytestmark = pytest.mark.django_db

GOOD = json.loads(DEMO_ITEMS.read_text(encoding="utf-8").splitlines()[0])


def record(**changes):
    r = json.loads(json.dumps(GOOD, ensure_ascii=False))
    for key, value in changes.items():
        if value is KeyError:
            del r[key]
        else:
            r[key] = value
    return json.dumps(r, ensure_ascii=False)


def bad_rubric(entry_changes):
    r = json.loads(record())
    r["rubric"][1].update(entry_changes)
    return json.dumps(r, ensure_ascii=False)


CASES = {
    "malformed JSON": ([record(), "{not json"], 2, None, "malformed JSON"),
    "not an object": ([record(), "[1, 2]"], 2, None, "expected a JSON object"),
    "missing question_id": ([record(), record(question_id=KeyError)], 2, "question_id", "missing key"),
    "missing rubric": ([record(rubric=KeyError)], 1, "rubric", "missing key"),
    "missing dialogue": ([record(dialogue=KeyError)], 1, "dialogue", "missing key"),
    "question_id of the wrong type": ([record(question_id=17)], 1, "question_id", "must be a non-empty string"),
    "rubric of the wrong type": ([record(rubric="x")], 1, "rubric", "non-empty list"),
    "weight of the wrong type": ([bad_rubric({"score": "3"})], 1, "rubric[1].score", "integer or null"),
    "weight out of range": ([bad_rubric({"score": 11})], 1, "rubric[1].score", "outside -10..10"),
    "unknown ability label": ([bad_rubric({"dimension": "勇气"})], 1, "rubric[1].dimension", "unknown ability label '勇气'"),
    "empty criterion text": ([bad_rubric({"content": "  "})], 1, "rubric[1].content", "non-empty string"),
    "bad role": ([record(dialogue=[{"role": "C", "content": "hi"}])], 1, "dialogue[0].role", "'A' or 'B'"),
    "bad difficulty": ([record(difficulty="easy")], 1, "difficulty", "'hard' or 'normal'"),
    "duplicate question_id": ([record(), record()], 2, "question_id", "duplicate question_id 'dm0001' (first on line 1)"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_reported_with_file_line_and_field_and_nothing_is_written(case, tmp_path):
    lines, line_no, field, message = CASES[case]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_heartbench", str(path), "--dataset", "demo")
    text = str(excinfo.value)
    where = f"{path}, line {line_no}" + (f", field '{field}'" if field else "")
    assert where in text
    assert message in text
    assert "nothing was written" in text
    assert not Dataset.objects.exists()
    assert not DatasetVersion.objects.exists() and not Item.objects.exists() and not Criterion.objects.exists()


def test_an_error_late_in_the_file_leaves_an_existing_dataset_untouched(tmp_path):
    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo")
    lines = DEMO_ITEMS.read_text(encoding="utf-8").splitlines()
    lines[-1] = lines[-1].replace('"hard"', '"impossible"')
    path = tmp_path / "late.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 6, field 'difficulty'"):
        call_command("import_heartbench", str(path), "--dataset", "demo")
    assert DatasetVersion.objects.count() == 1 and Item.objects.count() == 6


def test_a_dataset_may_declare_extra_labels(tmp_path):
    Dataset.objects.create(name="custom", extra_labels=["勇气"])
    path = tmp_path / "custom.jsonl"
    path.write_text(bad_rubric({"dimension": "勇气"}) + "\n", encoding="utf-8")
    call_command("import_heartbench", str(path), "--dataset", "custom")
    assert Criterion.objects.filter(ability="勇气").count() == 1


def test_an_empty_file_is_an_error(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(CommandError, match="holds no records"):
        call_command("import_heartbench", str(path), "--dataset", "demo")


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="cannot open file"):
        call_command("import_heartbench", str(tmp_path / "nope.jsonl"), "--dataset", "demo")


def test_a_difficulty_that_contradicts_the_option_is_an_error(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(record(difficulty="normal") + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 1, field 'difficulty'.*--difficulty is 'hard'"):
        call_command("import_heartbench", str(path), "--dataset", "demo", "--difficulty", "hard")
