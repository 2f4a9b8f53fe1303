"""What an endpoint answers is checked before it is stored, and a question whose result cannot be stored fails after the
attempt limit like any other failure: an endpoint's own numbers can never loop a run (issue 27, item 4: usage of 10^20
tokens failed the write every time, and the run was handed out again and again, 381 paid requests for one question)."""

import json

import pytest

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services import llm, runs
from heartbench_core.judging.services.llm import ChatClient, ChatError, EndpointConfig
from heartbench_core.judging.services.runs import Selection, claim_run, execute_run, request_judge_run
from tests.fake_openai import Reply, alternating, platform_answer
from tests.runner import scenarios as s

pytestmark = pytest.mark.django_db

TAKINGS = 10  # more than any limit: a run still going after this many takings would go on forever


@pytest.fixture
def broker(monkeypatch):
    """The broker as a list of the run ids handed to it; the tests play the worker."""
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: sent.append(args))
    return sent


def _request(capture, *questions):
    with capture(execute=True):
        return request_judge_run(
            dataset_name="demo", model_name="demo-model-aurora", endpoint_name="judge-a", selection=Selection(questions=questions)
        ).run


def _work_like_a_worker(run, capture) -> int:
    """Take the run and work on it as django-q2 would, again while it is handed out (a taking may raise); how many takings."""
    takings = 0
    while takings < TAKINGS:
        held = claim_run(run_id=run.pk, holder=f"worker {takings}")
        if held is None:
            break
        takings += 1
        try:
            with capture(execute=True):
                execute_run(held)
        except Exception:  # the task fails; its run is swept to the next worker
            pass
    return takings


def _usage(tokens_in):
    return lambda n: Reply(platform_answer(alternating(n)), tokens_in=tokens_in)


def test_usage_no_column_can_hold_fails_the_question_after_one_request_and_the_run_ends(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks
):
    fake.behaviour = s.by_question(demo, {"dm0001": [_usage(10**20)]})
    run = _request(django_capture_on_commit_callbacks, "dm0001", "dm0002")
    takings = _work_like_a_worker(run, django_capture_on_commit_callbacks)
    run.refresh_from_db()
    q = RunQuestion.objects.get(run=run, item__question_id="dm0001")
    assert (run.status, takings) == (EndpointRun.Status.FINISHED, 1)
    assert q.status == "failed" and q.problem["code"] == "bad_reply"
    assert "usage.prompt_tokens is 100000000000000000000, not a whole number from 0 to 10000000" in q.problem["message"]
    assert fake.count(s.snippets(demo)["dm0001"]) == 1 and q.requests == 1  # not retried: the same endpoint says the same
    assert RunQuestion.objects.get(run=run, item__question_id="dm0002").status == "done"


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -1, "completion_tokens": 3},
        {"prompt_tokens": 10, "completion_tokens": llm.MAX_USAGE_TOKENS + 1},
        {"prompt_tokens": "100", "completion_tokens": 3},
        {"prompt_tokens": 1.5, "completion_tokens": 3},
        {"prompt_tokens": True, "completion_tokens": 3},
    ],
)
def test_token_counts_must_be_whole_numbers_a_column_holds(fake, usage):
    fake.behaviour = lambda body, attempt: Reply("答案", usage=usage)
    with pytest.raises(ChatError) as caught:
        ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m", max_retries=2)).complete([{"role": "user", "content": "q"}])
    assert caught.value.kind == "bad_reply" and "not a whole number from 0 to" in caught.value.message
    assert caught.value.requests == 1 and len(fake.requests) == 1


def test_missing_usage_counts_nothing(fake):
    fake.behaviour = lambda body, attempt: Reply("答案", usage={})
    reply = ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m")).complete([{"role": "user", "content": "q"}])
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("答案", 0, 0)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply("a\x00b"), "NUL character or a lone surrogate"),
        (Reply(body=json.dumps({"choices": [{"message": {"content": "a\ud800b"}, "finish_reason": "stop"}]})), "lone surrogate"),
        (Reply(body=json.dumps({"choices": [{"message": {"content": {"text": "x"}}, "finish_reason": "stop"}]})), "not text"),
        (Reply(body=json.dumps({"choices": "all of them"})), "without a choice"),
        (Reply(body=json.dumps({"choices": [{"finish_reason": "stop"}]})), "holds no message"),
        (Reply("答案", finish_reason="x" * 500), "finish reason is longer"),
    ],
)
def test_an_answer_that_cannot_be_stored_or_read_is_refused_before_it_is_stored(fake, reply, message):
    fake.behaviour = lambda body, attempt: reply
    with pytest.raises(ChatError) as caught:
        ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m")).complete([{"role": "user", "content": "q"}])
    assert caught.value.kind == "bad_reply" and message in caught.value.message


def test_an_answer_or_a_reply_body_past_its_bound_is_refused_not_retried(fake, monkeypatch):
    client = ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m", max_retries=3))
    monkeypatch.setattr(llm, "MAX_ANSWER_CHARS", 1000)
    fake.behaviour = lambda body, attempt: Reply("字" * 1001)
    with pytest.raises(ChatError, match="longer than 1000 characters"):
        client.complete([{"role": "user", "content": "q"}])
    monkeypatch.setattr(llm, "MAX_REPLY_BYTES", 5000)
    fake.behaviour = lambda body, attempt: Reply("x" * 6000)
    with pytest.raises(ChatError) as caught:
        client.complete([{"role": "user", "content": "q"}])
    assert caught.value.kind == "bad_reply" and "larger than 5000 bytes" in caught.value.message and caught.value.requests == 1


def test_a_reason_holding_a_character_no_database_stores_is_repaired_then_failed(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks
):
    def nul_in_a_reason(n):  # the raw text holds the JSON escape \u0000 only: reading it makes the NUL
        return Reply(platform_answer(alternating(n), ["理由\x00"] + ["理由"] * (n - 1)))

    fake.behaviour = s.by_question(demo, {"dm0001": [nul_in_a_reason]})
    run = _request(django_capture_on_commit_callbacks, "dm0001")
    _work_like_a_worker(run, django_capture_on_commit_callbacks)
    q = RunQuestion.objects.get(run=run)
    assert (q.status, q.problem, q.requests) == ("failed", {"code": "unstorable_reason", "position": 1}, 3)  # asked, then 2 repairs
    assert "\x00" not in json.dumps(q.outputs, ensure_ascii=False)


def test_a_result_the_database_refuses_fails_its_question_after_the_attempt_limit_and_the_run_ends(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks, monkeypatch
):
    # Whatever the checks miss: here the usage bound is lifted, and the database refuses the number when it is written.
    monkeypatch.setattr(llm, "MAX_USAGE_TOKENS", 10**30)
    fake.behaviour = s.by_question(demo, {"dm0001": [_usage(10**20)]})
    run = _request(django_capture_on_commit_callbacks, "dm0001", "dm0002")
    takings = _work_like_a_worker(run, django_capture_on_commit_callbacks)
    run.refresh_from_db()
    q = RunQuestion.objects.get(run=run, item__question_id="dm0001")
    assert (q.status, q.problem) == ("failed", {"code": "not_stored", "attempts": runs.MAX_QUESTION_ATTEMPTS})
    asked = fake.count(s.snippets(demo)["dm0001"])
    assert asked == runs.MAX_QUESTION_ATTEMPTS and q.requests == asked  # one request per attempt, each one counted
    assert (run.status, takings) == (EndpointRun.Status.FINISHED, runs.MAX_QUESTION_ATTEMPTS)
    assert RunQuestion.objects.get(run=run, item__question_id="dm0002").status == "done"
    # Asking the failed question again starts its attempts again.
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.retry_failed(run=run) == 1
    assert RunQuestion.objects.get(pk=q.pk).attempts == 0


def test_a_question_taken_by_processes_that_died_holding_it_fails_without_being_asked_again(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks
):
    run = _request(django_capture_on_commit_callbacks, "dm0001")
    RunQuestion.objects.filter(run=run).update(attempts=runs.MAX_QUESTION_ATTEMPTS)  # three takings died with it in flight
    outcome = execute_run(claim_run(run_id=run.pk, holder="w"))
    q = RunQuestion.objects.get(run=run)
    assert (q.status, q.problem, outcome.failed, fake.requests) == ("failed", {"code": "not_stored", "attempts": 3}, ["dm0001"], [])


def test_a_taking_that_keeps_breaking_off_stops_the_run_after_the_documented_limit(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks, monkeypatch
):
    def broken(run, questions):
        raise RuntimeError("a bug met in every taking")

    monkeypatch.setattr(runs, "_prepare", broken)
    run = _request(django_capture_on_commit_callbacks, "dm0001")
    takings = _work_like_a_worker(run, django_capture_on_commit_callbacks)
    run.refresh_from_db()
    assert (takings, run.status) == (runs.MAX_STALLS, EndpointRun.Status.FAILED)
    assert "3 times in a row without finishing a question" in run.last_error


def test_a_question_left_unasked_when_a_taking_ends_keeps_its_attempts(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks, monkeypatch
):
    from tests.fake_openai import judge

    fake.behaviour = judge(delay=1.0)
    judge_endpoint.concurrency = 1
    judge_endpoint.save()
    beat = runs._Holder.beat

    def stopping_once_the_first_is_asked(holder, *, force=False):  # as a cancel or a deadline would, mid-taking
        beat(holder, force=force)
        holder.cancelled = holder.cancelled or bool(fake.requests)

    monkeypatch.setattr(runs._Holder, "beat", stopping_once_the_first_is_asked)
    run = _request(django_capture_on_commit_callbacks, "dm0001", "dm0002")
    with django_capture_on_commit_callbacks(execute=True):  # the first is in flight when the taking stops: the second is skipped
        execute_run(claim_run(run_id=run.pk, holder="w"))
    rows = RunQuestion.objects.filter(run=run).order_by("item__position").values_list("status", "attempts")
    assert list(rows) == [("done", 1), ("pending", 0)] and len(fake.requests) == 1
