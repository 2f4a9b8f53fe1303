"""A django-q2 worker killed in the middle of a requested agreement report leaves no partial
report, and the report is computed exactly once when another worker starts — on the ORM broker,
which hands the unacknowledged message out again, and on Redis, which loses the message with the
worker: the job's row in the database and the sweep schedule bring it back (PostgreSQL)."""

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from tests.conftest import postgres_only
from tests.security.world import build_world

pytestmark = [
    postgres_only(),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def own_redis_keys(redis_db):
    """A Redis database of its own and a key prefix; deletes only the keys under it afterwards."""
    url, client = redis_db
    name = f"hbtest-{uuid.uuid4().hex[:12]}"
    yield url, name, client
    for pattern in (f"django_q:{name}:*", f"{name}:*"):  # the queue and stats, then the cache
        for key in client.scan_iter(match=pattern, count=500):
            client.delete(key)


def start_cluster(env, log=None):
    """Start `manage.py qcluster` in a session of its own; its output goes to `log` (a path) if given."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child process inherits it; closed below
    try:
        return subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=settings.BASE_DIR,
            env=env,
            start_new_session=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    finally:
        if log:
            out.close()


def stop(proc, sig=signal.SIGKILL):
    """Signal the cluster's whole process group (only processes this test started), then make sure none of it is left.

    The parent can exit before its workers do; a worker left behind would hold a database
    session and keep the test database from being dropped at the end of the run.
    """
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    proc.wait(timeout=10)
    _end_sessions_of_killed_workers()


# The workers these tests start name their database sessions (libpq reads PGAPPNAME), so only theirs are ended.
WORKER_APPLICATION_NAME = "heartbench-test-worker"


def _end_sessions_of_killed_workers():
    """PostgreSQL ends a killed client's session only when it notices; end the killed workers' sessions now.

    Only theirs: the test run's own sessions (a live server's thread among them) stay open for the tests that follow.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
            [WORKER_APPLICATION_NAME],
        )


def wait_for(condition, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def cluster_env(name: str, redis_url: str | None) -> dict:
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "Q_NAME": name,
        "CACHE_KEY_PREFIX": name,
        "Q_WORKERS": "1",
        "Q_TIMEOUT": "8",  # the job's lease: 18 s
        "Q_RETRY": "10",
        "LOG_LEVEL": "WARNING",
        "PGAPPNAME": WORKER_APPLICATION_NAME,
    }
    for inherited in ("Q_SYNC", "Q_CLUSTER_NAME", "REDIS_URL"):
        env.pop(inherited, None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def own_broker(monkeypatch, name: str, redis_url: str | None):
    """The broker the test's clusters read: their queue name and signing salt, on Redis or the database."""
    from django_q.brokers import get_broker
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "PREFIX", name)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    if redis_url:
        monkeypatch.setattr(Conf, "ORM", None)
        monkeypatch.setattr(Conf, "DJANGO_REDIS", None)
        monkeypatch.setattr(Conf, "REDIS", redis_url)
    return get_broker(name)


def kill_mid_report_then_restart(cast, tmp_path, *, name: str, redis_url: str | None, broker, queued) -> bool:
    """Request a report, SIGKILL the worker computing it, start another; assert it is stored exactly once."""
    from django_q.models import Schedule
    from django_q.tasks import async_task

    from validation.models import AgreementReport, BackgroundJob, ReleaseGate

    world = build_world(cast)
    # Building the world queues its own follow-up work (the library's quote fingerprints) on the test's queue;
    # the subject here is the one report message.
    broker.purge_queue()
    assert queued() == 0
    campaign = world.objects["campaign"]
    ReleaseGate.objects.all().delete()
    AgreementReport.objects.all().delete()
    marker = tmp_path / "in-the-middle"
    env = cluster_env(name, redis_url)
    # The release policy's parameters: an official report, which also writes the version's gate.
    job = BackgroundJob.objects.create(
        kind="agreement_report", campaign=campaign, requested_by=cast.admin, trigger="api", parameters={}, enqueued_at=timezone.now()
    )
    async_task("tests.reliability.fault_tasks.slow_background_job", job.pk, str(marker), 30.0, broker=broker)
    assert queued() == 1

    log = tmp_path / "qcluster.log"  # read it when this test fails
    first = start_cluster(env, log)
    try:
        wait_for(marker.exists, 60, "the worker to reach the middle of the report")
    finally:
        stop(first)  # SIGKILL the whole cluster: no cleanup, no acknowledgement
    connection.close()
    assert AgreementReport.objects.count() == 0 and ReleaseGate.objects.count() == 0  # nothing half-written
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1) and job.locked_until > timezone.now()  # left under its lease
    lost = queued() == 0

    # The sweep runs from the new cluster's first scheduler pass (30 s in), by then past the lease.
    Schedule.objects.update_or_create(
        func="validation.tasks.sweep_background_jobs",
        defaults={"name": "sweep background jobs", "schedule_type": "I", "minutes": 1, "repeats": -1, "next_run": timezone.now()},
    )
    second = start_cluster(env, log)
    try:
        wait_for(lambda: BackgroundJob.objects.filter(pk=job.pk, status="done").exists(), 150, "the job to be done by the new worker")
        wait_for(lambda: queued() == 0, 30, "every message to be taken and acknowledged")
        time.sleep(3)  # a duplicate delivery would have a moment to store a second report
    finally:
        stop(second, signal.SIGTERM)
    job.refresh_from_db()
    report = AgreementReport.objects.get(campaign=campaign)  # exactly one
    assert job.report == report and job.attempts == 2 and job.last_error == ""
    assert ReleaseGate.objects.filter(campaign=campaign).count() == 1
    assert (report.requested_by, report.trigger) == (cast.admin, "api")
    return lost


def test_a_worker_killed_mid_report_on_the_orm_broker_leaves_no_partial_report_and_the_report_is_stored_once(cast, tmp_path, monkeypatch):
    from django_q.models import OrmQ

    assert "orm" in settings.Q_CLUSTER, "this test process needs the ORM broker (unset REDIS_URL)"
    name = f"hbtest-{uuid.uuid4().hex[:12]}"
    broker = own_broker(monkeypatch, name, None)
    lost = kill_mid_report_then_restart(
        cast,
        tmp_path,
        name=name,
        redis_url=None,
        broker=broker,
        queued=lambda: OrmQ.objects.filter(key=name).count(),
    )
    assert not lost  # the ORM broker kept the unacknowledged message


def test_a_worker_killed_mid_report_on_redis_loses_the_message_but_the_sweep_stores_the_report_once(
    cast, tmp_path, own_redis_keys, monkeypatch
):
    url, name, client = own_redis_keys
    broker = own_broker(monkeypatch, name, url)
    lost = kill_mid_report_then_restart(
        cast,
        tmp_path,
        name=name,
        redis_url=url,
        broker=broker,
        queued=lambda: client.llen(f"django_q:{name}:q"),
    )
    assert lost  # Redis popped the message when the killed worker took it: only the database still knew the job
