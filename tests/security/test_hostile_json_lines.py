"""A line nested thousands deep or holding a NUL character is a clear error from every importer, never a crash.

The five importers (items, answers, judge verdicts, human judgments, calibration gold labels)
read through one JSONL reader; each must name the file, the line and the field, on the
command line and through its upload endpoint, and write nothing, on SQLite and PostgreSQL.
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from heartbench_core.models import ModelResponse
from tests.factories import DEMO_ITEMS, demo_responses, demo_version
from tests.security.test_importer_fuzzing import row_counts

pytestmark = pytest.mark.django_db

DEEP = "[" * 200000
FIRST_ITEM = json.loads(DEMO_ITEMS.read_text(encoding="utf-8").splitlines()[0])


def _item_with_nul() -> str:
    record = json.loads(json.dumps(FIRST_ITEM))
    record["question_id"] = "nul0001"
    record["dialogue"][0]["content"] = "I feel\u0000 lost"
    return json.dumps(record)


NUL_LINES = {
    "import_heartbench": (_item_with_nul(), "dialogue[0].content"),
    "import_responses": (json.dumps({"question_id": "dm0001", "response": "fine\u0000"}), "response"),
    "import_judge_verdicts": (json.dumps({"question_id": "dm0001", "score_detail": "[1]", "score_reason": "\u0000"}), "score_reason"),
    "import_judgments": (json.dumps({"question_id": "dm0001", "model": "demo-model-aurora", "annotator": "x\u0000"}), "annotator"),
    "create_calibration": (
        json.dumps(
            {"question_id": "dm0001", "model": "demo-model-aurora", "labels": [{"position": 0, "hit": True, "explanation": "\u0000"}]}
        ),
        "labels[0].explanation",
    ),
}

COMMANDS = {
    "import_heartbench": lambda path: ["import_heartbench", path, "--dataset", "demo"],
    "import_responses": lambda path: ["import_responses", path, "--dataset", "demo", "--model", "m-new"],
    "import_judge_verdicts": lambda path: [
        "import_judge_verdicts",
        path,
        "--dataset",
        "demo",
        "--model",
        "demo-model-aurora",
        "--judge",
        "j",
    ],
    "import_judgments": lambda path: ["import_judgments", path, "--dataset", "demo", "--campaign", "elsewhere"],
    "create_calibration": lambda path: ["create_calibration", "gold", path, "--dataset", "demo"],
}

ENDPOINTS = {
    "import_heartbench": ("/api/v1/import/heartbench/", {"dataset": "demo"}),
    "import_responses": ("/api/v1/import/responses/", {"dataset": "demo", "model": "m-new"}),
    "import_judge_verdicts": ("/api/v1/import/verdicts/", {"dataset": "demo", "model": "demo-model-aurora", "judge": "j"}),
    "import_judgments": ("/api/v1/validation/judgments/import/", {"dataset": "demo", "campaign": "elsewhere"}),
    "create_calibration": ("/api/v1/annotation/manage/calibrations/", {"dataset": "demo", "name": "gold"}),
}


@pytest.fixture
def world(cast):
    demo_version()
    demo_responses()
    return cast


def _run_command(importer, line, tmp_path):
    path = tmp_path / "hostile.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    before = row_counts()
    with pytest.raises(CommandError) as excinfo:
        call_command(*COMMANDS[importer](str(path)))
    assert row_counts() == before
    return str(path), str(excinfo.value)


@pytest.mark.parametrize("importer", COMMANDS)
def test_a_line_nested_two_hundred_thousand_deep_is_a_clear_error_from_every_command(importer, world, tmp_path):
    path, message = _run_command(importer, DEEP, tmp_path)
    assert f"{path}, line 1: malformed JSON: nested more than 64 levels deep" in message


@pytest.mark.parametrize("importer", COMMANDS)
def test_a_nul_character_is_a_clear_error_naming_the_field_from_every_command(importer, world, tmp_path):
    line, field = NUL_LINES[importer]
    path, message = _run_command(importer, line, tmp_path)
    assert f"{path}, line 1, field '{field}': contains a NUL character" in message


def test_a_line_nested_deeper_than_the_limit_but_within_python_recursion_is_refused_too(world, tmp_path):
    record = {"question_id": "dm0001", "response": "x", "meta": json.loads("[" * 100 + "]" * 100)}
    _path, message = _run_command("import_responses", json.dumps(record), tmp_path)
    assert "line 1, field 'meta" in message and "nested more than 64 levels deep" in message


def _upload(client, importer, line):
    url, form = ENDPOINTS[importer]
    handle = io.BytesIO((line + "\n").encode())
    handle.name = "hostile.jsonl"
    return client.post(url, {**form, "file": handle})


@pytest.mark.parametrize("importer", ENDPOINTS)
def test_every_upload_endpoint_answers_400_naming_file_line_and_field(importer, world, client):
    client.force_login(world.admin)
    before = row_counts()
    deep = _upload(client, importer, DEEP)
    assert deep.status_code == 400, deep.content[:300]
    assert deep.json()["errors"][0] == {
        "file": "hostile.jsonl",
        "line": 1,
        "field": None,
        "message": "malformed JSON: nested more than 64 levels deep",
    }
    line, field = NUL_LINES[importer]
    nul = _upload(client, importer, line)
    assert nul.status_code == 400, nul.content[:300]
    error = nul.json()["errors"][0]
    assert (error["line"], error["field"]) == (1, field) and "NUL character" in error["message"]
    assert row_counts() == before


def test_a_judge_hit_vector_string_nested_too_deep_is_an_unparseable_vector(world, tmp_path):
    line = json.dumps({"question_id": "dm0001", "score_detail": "[" * 200000, "score_reason": "r"})
    path, message = _run_command("import_judge_verdicts", line, tmp_path)
    assert f"{path}, line 1, field 'score_detail'" in message
    assert ModelResponse.objects.filter(model__name="m-new").count() == 0


@pytest.mark.parametrize("field,limit", [("question_id", 64), ("primary_scene", 100), ("secondary_scene", 100)])
def test_an_item_field_longer_than_its_column_is_a_clear_error_not_a_database_error(field, limit, world, tmp_path):
    record = json.loads(json.dumps(FIRST_ITEM))
    record[field] = "q" * (limit + 1)
    path, message = _run_command("import_heartbench", json.dumps(record), tmp_path)
    assert f"{path}, line 1, field '{field}': is longer than {limit} characters ({limit + 1})" in message


@pytest.mark.parametrize("importer", COMMANDS)
def test_a_lone_surrogate_escape_is_a_clear_error_naming_the_field_from_every_command(importer, world, tmp_path):
    line, field = NUL_LINES[importer]
    path, message = _run_command(importer, line.replace("\\u0000", "\\ud800"), tmp_path)
    assert f"{path}, line 1, field '{field}': contains a lone surrogate (\\ud800), not a Unicode character" in message


def test_a_key_holding_a_nul_is_named_with_the_nul_escaped(world, tmp_path):
    path, message = _run_command("import_responses", '{"question_id": "dm0001", "response": "x", "ke\\u0000y": 1}', tmp_path)
    assert f"{path}, line 1, field 'ke\\u0000y': the key contains a NUL character" in message
