"""A run's holder is recorded as "kind host:pid". When that host is this one and the pid is gone, the lease is dead:
a rerun of the command (or Resume, or Cancel) takes the run over at once instead of refusing it until the lease runs
out. A holder on another host, or whose process lives (or is another user's), keeps its lease."""

import os
import signal
import socket
import subprocess
import sys
import uuid
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services import runs
from heartbench_core.judging.services.runs import holder_is_gone, request_judge_run
from heartbench_core.models import JudgeVerdict
from tests.fake_openai import judge
from tests.runner.processes import command_environment, wait_for

JUDGE = ["judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a"]


def _dead_pid() -> int:
    """The pid of a process of this host that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _held_by(holder: str) -> EndpointRun:
    """A run held by `holder` under a fresh lease, as a command leaves it when it dies."""
    return request_judge_run(
        dataset_name="demo", model_name="demo-model-aurora", endpoint_name="judge-a", trigger="command", hold_as=holder
    ).run


@pytest.mark.django_db
def test_a_rerun_takes_over_at_once_the_run_of_a_command_of_this_host_whose_process_is_gone(demo, fake, judge_endpoint):
    holder = f"command {socket.gethostname()}:{_dead_pid()}"
    run = _held_by(holder)
    out = StringIO()
    call_command(*JUDGE, stdout=out)
    run.refresh_from_db()
    assert (run.status, run.attempts, run.holder) == ("finished", 2, "")
    assert f"run {run.pk} was held by {holder}, which is no longer running: taken over" in out.getvalue()


@pytest.mark.django_db
def test_a_holder_on_another_host_keeps_its_lease(demo, fake, judge_endpoint):
    run = _held_by(f"command elsewhere.example:{_dead_pid()}")
    with pytest.raises(CommandError, match="being worked on by command elsewhere.example"):
        call_command(*JUDGE)
    run.refresh_from_db()
    assert run.status == "running" and run.attempts == 1


@pytest.mark.django_db
def test_a_holder_of_this_host_whose_process_lives_keeps_its_lease(demo, fake, judge_endpoint):
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _held_by(f"command {socket.gethostname()}:{alive.pid}")
        with pytest.raises(CommandError, match=f"being worked on by command {socket.gethostname()}:{alive.pid}"):
            call_command(*JUDGE)
    finally:
        alive.kill()
        alive.wait()


def test_whether_a_holder_is_gone_is_asked_of_this_host_only(monkeypatch):
    host, dead = socket.gethostname(), _dead_pid()
    assert holder_is_gone(f"command {host}:{dead}") and holder_is_gone(f"worker {host}:{dead}")
    assert not holder_is_gone(f"command {host}:{os.getpid()}")  # this very process
    assert not holder_is_gone(f"command elsewhere.example:{dead}")
    for unknown in ("", "worker A", f"command {host}:", f"command {host}:0", f"command {host}:99999999999"):
        assert not holder_is_gone(unknown), unknown

    def not_ours(pid, sig):
        raise PermissionError(1, "Operation not permitted")  # another user's process: it lives

    monkeypatch.setattr(os, "kill", not_ours)
    assert not holder_is_gone(f"command {host}:{dead}")


@pytest.mark.django_db
def test_resume_and_cancel_take_a_run_whose_holder_is_gone_at_once(
    demo, fake, judge_endpoint, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: sent.append(args))
    run = _held_by(f"command {socket.gethostname()}:{_dead_pid()}")
    runs.cancel_run(run=run)
    run.refresh_from_db()
    assert run.status == "cancelled" and not run.cancel_requested  # at once, not at the end of the lease
    run = _held_by(f"command {socket.gethostname()}:{_dead_pid()}")
    with django_capture_on_commit_callbacks(execute=True):
        runs.resume_run(run=run)
    run.refresh_from_db()
    assert run.status == "pending" and sent == [("heartbench_core.judging.tasks.run_endpoint_run", run.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_rerun_right_after_the_command_was_killed_continues_at_once_judging_no_question_twice(demo, fake, judge_endpoint):
    fake.behaviour = judge(delay=0.5)
    judge_endpoint.concurrency = 1
    judge_endpoint.save()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", *JUDGE],
        cwd=settings.BASE_DIR,
        env=command_environment(f"hbtest-{uuid.uuid4().hex[:12]}"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: RunQuestion.objects.filter(status="done").exists(), 60, "the command to finish a question")
    finally:
        proc.send_signal(signal.SIGKILL)  # a crash: no release
        proc.wait()
    connection.close()
    run = EndpointRun.objects.get()
    assert run.status == "running" and run.holder == f"command {socket.gethostname()}:{proc.pid}"
    fake.behaviour = judge()
    out = StringIO()
    call_command(*JUDGE, stdout=out)
    assert "no longer running: taken over" in out.getvalue()
    run.refresh_from_db()
    assert run.status == "finished" and RunQuestion.objects.filter(run=run, status="done").count() == 6
    total = sum(i.criteria.count() for i in demo.items.all())
    assert JudgeVerdict.objects.filter(run=run.judge_run).count() == total  # none judged twice (unique per criterion)
