"""A run requested from a page or the API is recorded, then handed to the broker after commit; a worker takes it under a
lease, commits each question as it is done, and a run whose worker died (its lease expired) is swept to another
worker, which continues with the questions still pending: none is judged twice. Cancellation, deadlines and stalls."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services import runs
from heartbench_core.judging.services.runs import Selection, claim_run, execute_run, request_judge_run
from heartbench_core.models import JudgeVerdict

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(monkeypatch):
    """The broker as a list of the run ids handed to it (no worker runs them)."""
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: sent.append((func, *args)))
    return sent


def _request(capture, **extra):
    with capture(execute=True):
        return request_judge_run(dataset_name="demo", model_name="demo-model-aurora", endpoint_name="judge-a", trigger="page", **extra).run


def _expire(run):
    EndpointRun.objects.filter(pk=run.pk).update(locked_until=timezone.now() - timedelta(seconds=1))


def test_a_requested_run_is_recorded_waiting_and_its_id_sent_after_commit(
    demo, judge_endpoint, broker, cast, django_capture_on_commit_callbacks
):
    run = _request(django_capture_on_commit_callbacks, requested_by=cast.admin)
    run.refresh_from_db()
    assert (run.status, run.attempts, run.requested_by, run.trigger, run.kind) == ("pending", 0, cast.admin, "page", "judge")
    assert run.questions.count() == 6 and run.enqueued_at is not None
    assert broker == [("heartbench_core.judging.tasks.run_endpoint_run", run.pk)]
    assert (run.price_input, run.currency) == (judge_endpoint.price_input, "USD")


def test_a_worker_takes_a_run_once_and_a_second_delivery_does_nothing(demo, judge_endpoint, broker, django_capture_on_commit_callbacks):
    run = _request(django_capture_on_commit_callbacks)
    held = claim_run(run_id=run.pk, holder="worker A")
    assert held is not None and held.status == "running" and held.locked_until > timezone.now()
    assert claim_run(run_id=run.pk, holder="worker B") is None  # held by a live worker
    outcome = execute_run(held)
    assert outcome.status == "finished" and outcome.finished == 6
    assert claim_run(run_id=run.pk, holder="worker B") is None  # finished


def test_a_run_whose_worker_died_is_swept_and_continued_without_judging_a_question_twice(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks
):
    run = _request(django_capture_on_commit_callbacks, selection=Selection())
    # The worker judged two questions, then was killed: its lease runs out.
    held = claim_run(run_id=run.pk, holder="worker A")
    first_two = list(held.questions.order_by("item__position")[:2])
    outcome = runs.RunOutcome(held)
    work = runs._prepare(held, first_two)
    holder = runs._Holder(held)
    client = runs.ChatClient(runs.EndpointConfig.of(judge_endpoint))
    for w in work:
        runs._record(held, runs.judge_question(client, w), holder, outcome)
    assert outcome.finished == 2
    asked = len(fake.requests)
    _expire(held)
    broker.clear()
    assert runs.sweep_endpoint_runs() == 1 and broker == [("heartbench_core.judging.tasks.run_endpoint_run", run.pk)]
    # The next worker continues with the four questions left.
    again = claim_run(run_id=run.pk, holder="worker B")
    assert again.attempts == 2 and again.holder == "worker B"
    outcome = execute_run(again)
    assert outcome.finished == 4 and len(fake.requests) == asked + 4
    assert JudgeVerdict.objects.filter(run=again.judge_run).count() == sum(i.criteria.count() for i in demo.items.all())
    assert not runs.sweep_endpoint_runs()


def test_a_worker_that_lost_its_lease_writes_nothing(demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks):
    run = _request(django_capture_on_commit_callbacks)
    slow = claim_run(run_id=run.pk, holder="worker A")
    holder = runs._Holder(slow)
    _expire(slow)
    claim_run(run_id=run.pk, holder="worker B")  # took it over
    work = runs._prepare(slow, list(slow.questions.all()[:1]))[0]
    outcome = runs.RunOutcome(slow)
    runs._record(slow, runs.judge_question(runs.ChatClient(runs.EndpointConfig.of(judge_endpoint)), work), holder, outcome)
    assert holder.lost and outcome.finished == 0
    assert not JudgeVerdict.objects.exists() and not RunQuestion.objects.filter(status="done").exists()


def test_a_deadline_hands_the_rest_of_the_run_to_the_next_worker(demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks):
    run = _request(django_capture_on_commit_callbacks)
    broker.clear()
    with django_capture_on_commit_callbacks(execute=True):
        outcome = execute_run(claim_run(run_id=run.pk, holder="w"), deadline=time.monotonic())
    run.refresh_from_db()
    assert outcome.status == "pending" and run.status == "pending" and run.locked_until is None
    assert broker == [("heartbench_core.judging.tasks.run_endpoint_run", run.pk)]


def test_a_run_taken_again_and_again_without_progress_is_stopped_with_the_reason(
    demo, judge_endpoint, broker, django_capture_on_commit_callbacks
):
    run = _request(django_capture_on_commit_callbacks)
    for _ in range(runs.MAX_STALLS):
        assert claim_run(run_id=run.pk, holder="dies at once") is not None
        _expire(run)
    assert claim_run(run_id=run.pk, holder="w") is None
    run.refresh_from_db()
    assert run.status == "failed" and "without finishing a question" in run.last_error


def test_cancelling_a_waiting_run_stops_it_at_once_and_a_running_one_within_a_heartbeat(
    demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks, monkeypatch
):
    run = _request(django_capture_on_commit_callbacks)
    runs.cancel_run(run=run)
    run.refresh_from_db()
    assert run.status == "cancelled" and claim_run(run_id=run.pk, holder="w") is None
    with django_capture_on_commit_callbacks(execute=True):
        runs.resume_run(run=run)
    held = claim_run(run_id=run.pk, holder="w")
    runs.cancel_run(run=held)
    monkeypatch.setattr(runs, "HEARTBEAT_SECONDS", 0.0)
    outcome = execute_run(held)
    assert outcome.status == "cancelled" and outcome.finished == 0
    assert RunQuestion.objects.filter(run=run, status="pending").count() == 6


def test_retrying_failed_questions_hands_the_run_to_a_worker(demo, fake, judge_endpoint, broker, django_capture_on_commit_callbacks):
    from tests.runner import scenarios as s

    fake.behaviour = s.by_question(demo, {"dm0002": [s.wrong_length]})
    run = _request(django_capture_on_commit_callbacks)
    execute_run(claim_run(run_id=run.pk, holder="w"))
    assert RunQuestion.objects.filter(run=run, status="failed").count() == 1
    fake.behaviour = s.by_question(demo, {})
    broker.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.retry_failed(run=run) == 1
    assert broker == [("heartbench_core.judging.tasks.run_endpoint_run", run.pk)]
    execute_run(claim_run(run_id=run.pk, holder="w"))
    assert RunQuestion.objects.filter(run=run, status="done").count() == 6
    with pytest.raises(Exception, match="no failed question"):
        runs.retry_failed(run=run)
