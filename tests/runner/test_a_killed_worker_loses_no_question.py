"""A django-q2 worker SIGKILLed in the middle of a judge run: the questions it had committed stay done, the run is left
running under its lease, and a new worker continues with the questions still pending — none judged twice (PostgreSQL,
a real `manage.py qcluster` on the ORM broker)."""

import signal
import time
import uuid

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services.runs import request_judge_run
from heartbench_core.models import JudgeVerdict
from tests.conftest import postgres_only
from tests.fake_openai import judge
from tests.reliability.test_worker_killed_mid_report import cluster_env, own_broker, start_cluster, stop, wait_for

pytestmark = [postgres_only(), pytest.mark.django_db(transaction=True)]


def test_a_worker_killed_mid_run_leaves_its_done_questions_and_another_worker_finishes_the_rest_once(
    demo, fake, judge_endpoint, tmp_path, monkeypatch
):
    from django_q.models import Schedule

    assert "orm" in settings.Q_CLUSTER, "this test process needs the ORM broker (unset REDIS_URL)"
    fake.behaviour = judge(delay=1.0)
    judge_endpoint.concurrency = 1
    judge_endpoint.save()
    name = f"hbtest-{uuid.uuid4().hex[:12]}"
    own_broker(monkeypatch, name, None)  # the run's id goes to this test's queue, which its clusters read
    # The worker processes read their settings from the environment: they too must be allowed the fake server's address.
    env = {**cluster_env(name, None), "RUN_LEASE_SECONDS": "4", "ENDPOINT_ALLOWED_HOSTS": "127.0.0.1"}
    run = request_judge_run(dataset_name="demo", model_name="demo-model-aurora", endpoint_name="judge-a", trigger="api").run
    log = tmp_path / "qcluster.log"  # read it when this test fails

    first = start_cluster(env, log)
    try:
        wait_for(lambda: RunQuestion.objects.filter(run=run, status="done").count() >= 2, 90, "the worker to judge two questions")
    finally:
        stop(first)  # SIGKILL mid-run: a request in flight, no release
    connection.close()
    run.refresh_from_db()
    done_before = set(RunQuestion.objects.filter(run=run, status="done").values_list("item__question_id", flat=True))
    assert 2 <= len(done_before) < 6
    assert run.status == "running" and run.attempts == 1  # left under its lease
    verdicts_before = JudgeVerdict.objects.filter(run=run.judge_run).count()
    asked_before = len(fake.requests)

    Schedule.objects.update_or_create(
        func="heartbench_core.tasks.sweep_endpoint_runs",
        defaults={"name": "sweep endpoint runs", "schedule_type": "I", "minutes": 1, "repeats": -1, "next_run": timezone.now()},
    )
    second = start_cluster(env, log)
    try:
        wait_for(lambda: EndpointRun.objects.filter(pk=run.pk, status="finished").exists(), 150, "the run to be finished by a new worker")
        time.sleep(2)  # a duplicate delivery would have a moment to judge something again
    finally:
        stop(second, signal.SIGTERM)
    run.refresh_from_db()
    questions = RunQuestion.objects.filter(run=run)
    assert questions.filter(status="done").count() == 6 and run.attempts >= 2
    judge_run = run.judge_run
    judge_run.refresh_from_db()
    total = sum(i.criteria.count() for i in demo.items.all())
    assert JudgeVerdict.objects.filter(run=judge_run).count() == judge_run.verdict_count == total
    assert judge_run.question_count == 6 and verdicts_before < total
    # The questions committed before the kill were not asked again; at most the one in flight was.
    asked_after = fake.requests[asked_before:]
    markers = {i.question_id: i.dialogue[0]["content"][:40] for i in demo.items.all()}
    again = {q for q, m in markers.items() if any(m in b["messages"][-1]["content"] for b in asked_after)}
    assert not (again & done_before)
    assert len(asked_after) <= 6 - len(done_before) + 1
