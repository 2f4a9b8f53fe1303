"""Answer generation: a model under test answers each question's dialogue; the answers are stored as that model's
responses, as imported ones are, and a rerun fills only what is missing (failed questions included)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.judging.models import EndpointRun
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.models import ModelResponse
from tests.factories import demo_version
from tests.fake_openai import Reply, answerer, user_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def answering(fake, db):
    fake.behaviour = answerer()
    return save_endpoint(
        name="model-under-test", base_url=fake.base_url, model="fake-chat-7b", max_retries=1, backoff_seconds=0.01
    ).endpoint


def _generate(capsys, *extra):
    try:
        call_command("generate_answers", "--dataset", "demo", "--model", "my-model", "--endpoint", "model-under-test", *extra)
        error = None
    except CommandError as exc:
        error = exc
    return capsys.readouterr().out, error


def test_answers_are_stored_as_the_model_s_responses(answering, fake, capsys):
    version = demo_version()
    out, error = _generate(capsys)
    assert error is None and "6 answers stored now, 0 failed" in out
    responses = ModelResponse.objects.filter(model__name="my-model", dataset=version.dataset).order_by("question_id")
    assert responses.count() == 6
    first = responses.get(question_id="dm0001")
    item = version.items.get(question_id="dm0001")
    last_a = [t for t in item.dialogue if t["role"] == "A"][-1]["content"]
    assert first.text == "模型回答：" + last_a[:20] and first.imported_for == version
    assert first.metadata["generated_by"] == "model-under-test" and first.metadata["endpoint_model"] == "fake-chat-7b"
    # The dialogue went as a chat: A as the user, B as the assistant, ending with A's last words.
    body = next(b for b in fake.requests if last_a in b["messages"][-1]["content"])
    assert [m["role"] for m in body["messages"]] == ["user" if t["role"] == "A" else "assistant" for t in item.dialogue]


def test_a_rerun_fills_only_what_is_missing(answering, fake, capsys):
    demo_version()
    _generate(capsys, "--questions", "dm0001,dm0002")
    assert len(fake.requests) == 2
    out, error = _generate(capsys)
    assert error is None and "2 questions already answered" in out and "4 answers stored now" in out
    assert len(fake.requests) == 6 and ModelResponse.objects.filter(model__name="my-model").count() == 6
    out, error = _generate(capsys)
    assert error is None and "nothing to do" in out and len(fake.requests) == 6


def test_an_empty_or_cut_off_answer_fails_and_a_rerun_asks_again(answering, fake, capsys):
    version = demo_version()
    marker = version.items.get(question_id="dm0003").dialogue[-1]["content"][:15]

    def behave(body, attempt):
        if marker in body["messages"][-1]["content"]:
            return Reply("", finish_reason="stop") if attempt == 0 else Reply("半句话", finish_reason="length")
        return answerer()(body, attempt)

    fake.behaviour = behave
    out, error = _generate(capsys)
    assert error is not None and "failed: dm0003 — the answer was cut off" in out
    assert not ModelResponse.objects.filter(model__name="my-model", question_id="dm0003").exists()
    run = EndpointRun.objects.get(kind="generate")
    q = run.questions.get(item__question_id="dm0003")
    assert [o["answer"] for o in q.outputs] == ["", "半句话"]
    fake.behaviour = answerer()
    out, error = _generate(capsys)
    assert error is None and "resumed, 0 questions added, 1 failed ones to retry" in out
    assert ModelResponse.objects.filter(model__name="my-model").count() == 6
    assert EndpointRun.objects.filter(kind="generate").count() == 1
    assert sum(1 for b in fake.requests if marker in user_text(b) or marker in b["messages"][-1]["content"]) == 3


def test_a_bad_model_name_or_unknown_endpoint_writes_nothing(answering, capsys):
    demo_version()
    _out, error = _generate(capsys, "--endpoint", "nowhere")
    assert error is not None and "no endpoint named 'nowhere'" in str(error)
    with pytest.raises(CommandError, match="model"):
        call_command("generate_answers", "--dataset", "demo", "--model", "bad\nname", "--endpoint", "model-under-test")
    assert not EndpointRun.objects.exists()
