"""Each import endpoint takes the command's file and answers the command's errors, as JSON."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from heartbench_core.models import JudgeRun, ModelResponse
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db

BAD_LINES = '{"question_id": "dm0001", "response": "fine", "score_detail": "[1, 0]"}\nnot json at all\n{"question_id": 42}\n'

CASES = {
    "heartbench": ("api-import-heartbench", ["import_heartbench", "--dataset", "fresh"], {"dataset": "fresh"}),
    "responses": (
        "api-import-responses",
        ["import_responses", "--dataset", "demo", "--model", "m-new"],
        {"dataset": "demo", "model": "m-new"},
    ),
    "verdicts": (
        "api-import-verdicts",
        ["import_judge_verdicts", "--dataset", "demo", "--model", "demo-model-aurora", "--judge", "j"],
        {"dataset": "demo", "model": "demo-model-aurora", "judge": "j"},
    ),
    "judgments": (
        "validation-import-judgments",
        ["import_judgments", "--dataset", "demo", "--campaign", "c-new"],
        {"dataset": "demo", "campaign": "c-new"},
    ),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_endpoint_reports_exactly_the_commands_errors_and_writes_nothing(kind, client_for, cast, tmp_path):
    demo_version()
    demo_responses()
    url_name, command, fields = CASES[kind]
    path = tmp_path / "bad.jsonl"
    path.write_text(BAD_LINES, encoding="utf-8")
    responses, runs = ModelResponse.objects.count(), JudgeRun.objects.count()

    with pytest.raises(CommandError) as raised:
        call_command(command[0], str(path), *command[1:])
    command_lines = [line for line in str(raised.value).splitlines() if line.startswith("bad.jsonl") or "bad.jsonl" in line]

    upload = io.BytesIO(BAD_LINES.encode())
    upload.name = "bad.jsonl"
    response = client_for(cast.admin).post(reverse(url_name), {"file": upload, **fields})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["detail"] == "nothing was written"
    api_lines = [
        f"{e['file']}, line {e['line']}" + (f", field '{e['field']}'" if e["field"] else "") + f": {e['message']}" for e in body["errors"]
    ]
    assert command_lines, str(raised.value)
    assert [line.split("bad.jsonl", 1)[1] for line in command_lines] == [line.split("bad.jsonl", 1)[1] for line in api_lines]
    assert any(e["line"] == 2 for e in body["errors"])  # the malformed line is named
    assert (ModelResponse.objects.count(), JudgeRun.objects.count()) == (responses, runs)
