"""Ctrl-C on `judge` or `generate_answers` stops the spending: the run is left cancelled, recorded as cancelled by
that command, with what was done kept; no worker ever picks it up; and the command prints the exact command that
continues it. A real `manage.py` process, sent SIGINT while a slow fake endpoint answers (SQLite and PostgreSQL)."""

import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services import runs
from heartbench_core.models import JudgeVerdict, ModelResponse
from tests.fake_openai import answerer, judge
from tests.runner.processes import command_environment, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

KINDS = {
    "judge": (["judge", "--model", "demo-model-aurora"], judge),
    "generate": (["generate_answers", "--model", "new-model"], answerer),
}


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_leaves_the_run_cancelled_with_its_work_kept_and_prints_the_command_that_continues_it(
    kind, demo, fake, judge_endpoint, monkeypatch
):
    words, behaviour = KINDS[kind]
    fake.behaviour = behaviour(delay=1.0)
    judge_endpoint.concurrency = 1
    judge_endpoint.save()
    queue_name = f"hbtest-{uuid.uuid4().hex[:12]}"
    command = [sys.executable, "manage.py", *words, "--dataset", "demo", "--endpoint", "judge-a"]
    proc = subprocess.Popen(
        command, cwd=settings.BASE_DIR, env=command_environment(queue_name), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(lambda: RunQuestion.objects.filter(status="done").exists(), 60, "the command to finish a question")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    connection.close()  # SQLite: see what the process wrote

    assert proc.returncode == 130, (out, err)
    run = EndpointRun.objects.get()
    assert run.status == "cancelled" and run.locked_until is None and not run.cancel_requested
    assert f"Ctrl-C by command {socket.gethostname()}:{proc.pid}" in run.last_error
    done = RunQuestion.objects.filter(run=run, status="done").count()
    assert 1 <= done < 6 and RunQuestion.objects.filter(run=run, status="pending").count() == 6 - done
    # What was done is kept: the verdicts (or answers) of every question done.
    if kind == "judge":
        done_items = RunQuestion.objects.filter(run=run, status="done").values("item")
        assert JudgeVerdict.objects.filter(run=run.judge_run).count() == sum(
            i.criteria.count() for i in demo.items.filter(pk__in=done_items)
        )
    else:
        assert ModelResponse.objects.filter(model__name="new-model").count() == done
    # No question was left counted as an attempt it never had: the next taking may ask each of them in full.
    assert not RunQuestion.objects.filter(run=run, status="pending", attempts__gt=0).exists()

    # Nothing hands it to a worker: no message was sent, the sweep leaves it, and a worker given its id does nothing.
    from django_q.models import OrmQ

    assert not OrmQ.objects.filter(key=queue_name).exists()
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: sent.append(args))
    assert runs.sweep_endpoint_runs() == 0 and sent == []
    assert runs.run_in_worker(run_id=run.pk) is None
    asked = len(fake.requests)
    time.sleep(1.5)
    assert len(fake.requests) == asked  # nothing asks the endpoint any more

    # The command says so, and gives the exact command that continues the run.
    assert "interrupted" in err and f"run {run.pk} is cancelled" in err
    line = next(x for x in err.splitlines() if x.startswith("To continue where it stopped: "))
    resume = shlex.split(line.removeprefix("To continue where it stopped: "))
    assert resume[:2] == ["python", "manage.py"] and resume[2] == words[0]
    fake.behaviour = behaviour()
    call_command(*resume[2:], verbosity=0)
    run.refresh_from_db()
    assert run.status == "finished" and RunQuestion.objects.filter(run=run, status="done").count() == 6
    assert EndpointRun.objects.count() == 1  # continued, not started again


def test_the_command_that_continues_a_run_names_it_and_its_questions(demo, judge_endpoint):
    from heartbench_core.judging.services.runs import Selection, release_held, request_judge_run
    from heartbench_core.management.commands._runs import resume_command

    run = request_judge_run(
        dataset_name="demo",
        model_name="demo-model-aurora",
        endpoint_name="judge-a",
        run_label="my run",
        selection=Selection(difficulty="hard", questions=("dm0001", "dm0002")),
        hold_as="command test",
    ).run
    release_held(run=run)
    assert resume_command(run) == (
        "python manage.py judge --dataset demo --version v1 --model demo-model-aurora --endpoint judge-a "
        "--run 'my run' --template heartbench-zh --difficulty hard --questions dm0001,dm0002"
    )


def test_a_second_ctrl_c_in_the_middle_of_writing_still_leaves_the_run_cancelled_not_waiting_for_a_worker(
    demo, fake, judge_endpoint, monkeypatch, django_capture_on_commit_callbacks
):
    from heartbench_core.judging.services.runs import claim_run, execute_run, request_judge_run

    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: sent.append(args))
    run = request_judge_run(
        dataset_name="demo", model_name="demo-model-aurora", endpoint_name="judge-a", trigger="command", hold_as="command here:1"
    ).run

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "_record_many", interrupted)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(KeyboardInterrupt):
        execute_run(run, interrupt_reason="Cancelled with Ctrl-C.")
    run.refresh_from_db()
    assert (run.status, run.last_error, sent) == ("cancelled", "Cancelled with Ctrl-C.", [])
    assert claim_run(run_id=run.pk, holder="worker") is None
    assert not RunQuestion.objects.filter(run=run, status="pending", attempts__gt=0).exists()
