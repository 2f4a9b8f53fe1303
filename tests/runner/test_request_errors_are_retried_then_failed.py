"""A request that fails for a passing reason (HTTP 500, 429 with Retry-After, no answer within the timeout) is retried
after a backoff; one that keeps failing fails its question with the error named, and the run goes on."""

import time

import pytest

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.judging.services.llm import ChatClient, ChatError, EndpointConfig, RateLimiter
from heartbench_core.judging.services.runs import Selection, execute_run, holder_name, request_judge_run
from tests.fake_openai import Reply
from tests.runner import scenarios as s

pytestmark = pytest.mark.django_db


def _run(questions, label="r"):
    request = request_judge_run(
        dataset_name="demo",
        model_name="demo-model-aurora",
        endpoint_name="judge-a",
        run_label=label,
        selection=Selection(questions=tuple(questions)),
        hold_as=holder_name("test"),
    )
    return execute_run(request.run)


def _question(outcome, qid):
    return RunQuestion.objects.get(run=outcome.run, item__question_id=qid)


def test_a_500_and_a_429_are_retried_and_the_retry_after_is_honoured(demo, fake, judge_endpoint):
    fake.behaviour = s.by_question(demo, {"dm0001": [s.server_error, s.well_formed], "dm0002": [s.rate_limited, s.well_formed]})
    started = time.monotonic()
    outcome = _run(["dm0001", "dm0002"])
    assert outcome.finished == 2 and outcome.failed == []
    assert _question(outcome, "dm0001").requests == 2 and _question(outcome, "dm0002").requests == 2
    assert time.monotonic() - started >= 0.3  # the 429 asked to wait 0.3 s (the backoff is 0.01 s)


def test_an_answer_slower_than_the_timeout_is_asked_again(demo, fake, judge_endpoint):
    save_endpoint(name="judge-a", timeout_seconds=0.5)
    fake.behaviour = s.by_question(demo, {"dm0003": [s.too_slow, s.well_formed]})
    outcome = _run(["dm0003"])
    q = _question(outcome, "dm0003")
    assert (q.status, q.requests) == ("done", 2)


def test_an_endpoint_that_keeps_failing_fails_the_question_with_the_error_and_the_run_goes_on(demo, fake, judge_endpoint):
    fake.behaviour = s.by_question(demo, {"dm0001": [s.server_error]})
    outcome = _run(["dm0001", "dm0002"])
    assert outcome.failed == ["dm0001"] and outcome.finished == 1
    q = _question(outcome, "dm0001")
    assert q.problem["code"] == "http_error" and q.problem["status"] == 500 and "HTTP 500" in q.problem["message"]
    assert q.requests == 3 and q.outputs == []  # 1 + 2 retries, no answer
    assert outcome.run.status == EndpointRun.Status.FINISHED


def test_a_client_error_is_not_retried(demo, fake, judge_endpoint):
    fake.behaviour = s.by_question(demo, {"dm0001": [lambda n: Reply(status=400)]})
    q = _question(_run(["dm0001"]), "dm0001")
    assert (q.status, q.requests, q.problem["status"]) == ("failed", 1, 400)


def test_an_unreachable_endpoint_fails_its_questions_naming_the_reason(demo, judge_endpoint):
    save_endpoint(name="judge-a", base_url="http://127.0.0.1:9/v1", max_retries=1)
    outcome = _run(["dm0001"])
    q = _question(outcome, "dm0001")
    assert q.problem["code"] == "connection" and q.requests == 2


def test_the_rate_limit_spaces_requests_evenly():
    now = [0.0]
    waits = []
    limiter = RateLimiter(120, clock=lambda: now[0], sleep=waits.append)
    for _ in range(4):
        limiter.wait()
    assert waits == [0.5, 1.0, 1.5]


def test_requests_per_minute_holds_across_threads(fake):
    config = EndpointConfig(name="x", base_url=fake.base_url, model="m", requests_per_minute=600)
    client = ChatClient(config)
    started = time.monotonic()
    for i in range(4):
        client.complete([{"role": "user", "content": f"q{i}"}])
    assert time.monotonic() - started >= 0.3  # 0.1 s apart


def test_a_missing_key_variable_fails_before_any_request(fake, monkeypatch):
    monkeypatch.delenv("HEARTBENCH_KEY_TEST", raising=False)
    client = ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m", api_key_env="HEARTBENCH_KEY_TEST"))
    with pytest.raises(ChatError) as caught:
        client.complete([{"role": "user", "content": "hi"}])
    assert caught.value.kind == "missing_key" and "HEARTBENCH_KEY_TEST" in caught.value.message and fake.requests == []
