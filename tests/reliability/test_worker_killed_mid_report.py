"""A django-q2 worker killed in the middle of an agreement report leaves no partial report,
and the job completes when a worker picks it up again (PostgreSQL, ORM broker: un-acknowledged
tasks are handed out again after Q_RETRY seconds)."""

import os
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import postgres_only
from tests.security.world import build_world

pytestmark = [postgres_only(), pytest.mark.django_db(transaction=True)]


def start_cluster(env):
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"], cwd=settings.BASE_DIR, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def stop(proc, sig=signal.SIGKILL):
    """Signal the cluster's whole process group (only processes this test started)."""
    for s in (sig, signal.SIGKILL):
        try:
            os.killpg(proc.pid, s)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_for(condition, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def test_a_killed_worker_leaves_no_partial_report_and_the_retry_completes_it(cast, tmp_path):
    from django_q.models import OrmQ
    from django_q.tasks import async_task

    from validation.models import AgreementReport, ReleaseGate

    world = build_world(cast)
    campaign = world.objects["campaign"]
    ReleaseGate.objects.all().delete()
    AgreementReport.objects.all().delete()
    marker = tmp_path / "in-the-middle"
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "Q_WORKERS": "1",
        "Q_TIMEOUT": "8",
        "Q_RETRY": "10",
        "LOG_LEVEL": "ERROR",
    }
    for name in ("REDIS_URL", "Q_SYNC"):
        env.pop(name, None)
    assert "orm" in settings.Q_CLUSTER, "this test needs the ORM broker (unset REDIS_URL)"

    async_task("tests.reliability.fault_tasks.slow_agreement_report", campaign.pk, str(marker), 30.0)
    assert OrmQ.objects.count() == 1
    first = start_cluster(env)
    try:
        wait_for(marker.exists, 60, "the worker to reach the middle of the report")
    finally:
        stop(first)  # SIGKILL the whole cluster: no cleanup, no acknowledgement
    connection.close()
    assert AgreementReport.objects.count() == 0 and ReleaseGate.objects.count() == 0  # nothing half-written
    assert OrmQ.objects.count() == 1  # the job is still queued

    second = start_cluster(env)
    try:
        wait_for(lambda: AgreementReport.objects.filter(campaign=campaign).exists(), 120, "the retried job to store its report")
        wait_for(lambda: not OrmQ.objects.exists(), 30, "the job to be acknowledged")
    finally:
        stop(second, signal.SIGTERM)
    assert AgreementReport.objects.filter(campaign=campaign).count() == 1
    assert ReleaseGate.objects.filter(campaign=campaign).count() == 1
