import json

import pytest
from django.core.management import CommandError, call_command

from heartbench_core.models import LanguageModel, ModelResponse
from tests.factories import FIXTURES, demo_version

pytestmark = pytest.mark.django_db


def write(tmp_path, lines):
    path = tmp_path / "answers.jsonl"
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n" for line in lines), encoding="utf-8"
    )
    return path


def test_it_imports_a_model_answer_file_and_keeps_extra_keys_as_metadata(capsys):
    demo_version()
    call_command("import_responses", str(FIXTURES / "responses" / "demo-model-aurora.jsonl"), "--dataset", "demo", "--model", "aurora")
    assert "6 responses imported for aurora" in capsys.readouterr().out
    response = ModelResponse.objects.get(question_id="dm0001")
    assert response.model.name == "aurora"
    assert response.metadata == {"synthetic": True}
    assert len(response.public_id) >= 16 and "aurora" not in response.public_id


def test_reimporting_the_same_file_is_a_no_op(capsys):
    demo_version()
    path = str(FIXTURES / "responses" / "demo-model-aurora.jsonl")
    call_command("import_responses", path, "--dataset", "demo", "--model", "aurora")
    call_command("import_responses", path, "--dataset", "demo", "--model", "aurora")
    assert ModelResponse.objects.count() == 6
    assert "6 already present" in capsys.readouterr().out


@pytest.mark.parametrize(
    "lines,line,field,message",
    [
        ([{"question_id": "dm0001", "response": "好"}, "{oops"], 2, None, "malformed JSON"),
        ([{"question_id": "zzz", "response": "好"}], 1, "question_id", "unknown question_id 'zzz'"),
        ([{"response": "好"}], 1, "question_id", "missing key"),
        ([{"question_id": "dm0001"}], 1, "response", "missing key"),
        ([{"question_id": "dm0001", "response": "   "}], 1, "response", "empty response"),
        ([{"question_id": "dm0001", "response": 3}], 1, "response", "must be a string"),
        ([{"question_id": 5, "response": "好"}], 1, "question_id", "must be a string"),
        ([{"question_id": "dm0001", "response": "好"}, {"question_id": "dm0001", "response": "好"}], 2, "question_id", "duplicate"),
    ],
)
def test_bad_lines_are_errors_naming_the_line_and_nothing_is_written(tmp_path, lines, line, field, message):
    demo_version()
    path = write(tmp_path, lines)
    with pytest.raises(CommandError) as excinfo:
        call_command("import_responses", str(path), "--dataset", "demo", "--model", "m")
    text = str(excinfo.value)
    assert f"{path}, line {line}" + (f", field '{field}'" if field else "") in text
    assert message in text
    assert not ModelResponse.objects.exists() and not LanguageModel.objects.exists()


def test_a_changed_answer_for_an_existing_response_is_refused(tmp_path):
    demo_version()
    call_command(
        "import_responses", str(write(tmp_path, [{"question_id": "dm0001", "response": "好"}])), "--dataset", "demo", "--model", "m"
    )
    with pytest.raises(CommandError, match="already has a different response"):
        call_command(
            "import_responses", str(write(tmp_path, [{"question_id": "dm0001", "response": "不好"}])), "--dataset", "demo", "--model", "m"
        )


def test_an_unknown_dataset_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command("import_responses", str(write(tmp_path, [{"question_id": "a", "response": "b"}])), "--dataset", "nope", "--model", "m")
