"""What the judge and generate_answers commands share: running an endpoint run in the foreground, with a progress bar.

Ctrl-C stops the spending: the first one sets an event the runner looks at twice a second (it asks
nothing more, writes what has come in and leaves the run cancelled, never handed to a worker); a
second one interrupts at once, with the same end. The command then says how to continue.
"""

from __future__ import annotations

import getpass
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.run_display import cost_of, describe_problem
from heartbench_core.judging.services.runs import Progress, RunOutcome, RunRequest, Selection, execute_run, release_held, run_progress
from heartbench_core.management.commands._base import ImportCommand

BAR = 30


@contextmanager
def ctrl_c_sets(event: threading.Event) -> Iterator[None]:
    """While inside, the first Ctrl-C (SIGINT) sets `event` instead of raising; the second raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():  # signals reach only the main thread
        yield
        return

    def first(signum: int, frame: FrameType | None) -> None:
        event.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def resume_command(run: EndpointRun) -> str:
    """The command that continues the run where it stopped: the same run, over the same questions."""
    common = ["--dataset", run.version.dataset.name, "--version", run.version.label, "--model", run.model.name]
    common += ["--endpoint", run.endpoint.name]
    selection = run.selection or {}
    if run.kind == EndpointRun.Kind.JUDGE:
        assert run.judge_run is not None and run.template_revision is not None
        words = ["judge", *common, "--run", run.judge_run.label, "--template", run.template_revision.template.name]
        options: tuple[str, ...] = ("difficulty", "scene", "ability", "questions", "changed_since")
    else:
        words = ["generate_answers", *common]
        options = ("difficulty", "scene", "questions")
    for option in options:
        value = selection.get(option)
        if value in (None, "", []):
            continue
        words += [f"--{option.replace('_', '-')}", ",".join(value) if isinstance(value, list) else str(value)]
    return shlex.join(["python", "manage.py", *words])


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name, and none in the environment
        return "?"


class RunCommand(ImportCommand):
    """Runs a held run to its end in the foreground; prints the counts and names every failed question."""

    interrupt: threading.Event | None = None  # set by the first Ctrl-C (see `execute`)

    def add_run_arguments(self, parser: CommandParser, *, model_help: str, endpoint_help: str) -> None:
        """The arguments every run takes: what to run on, with which endpoint, over which questions."""
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--model", required=True, help=model_help)
        parser.add_argument("--endpoint", required=True, help=endpoint_help)
        parser.add_argument("--version", dest="label", help=gettext("Dataset version (default: the latest)."))
        parser.add_argument("--questions", help=gettext("Only these question ids, comma-separated."))
        parser.add_argument("--difficulty", choices=("hard", "normal"), help=gettext("Only questions of this difficulty."))
        parser.add_argument("--scene", help=gettext("Only questions of this primary scene."))

    def selection(self, opts: dict[str, Any]) -> Selection:
        """The questions asked for; `--ability` and `--changed-since` are the judge's only."""
        return Selection(
            difficulty=opts["difficulty"] or "",
            scene=opts["scene"] or "",
            ability=opts.get("ability") or "",
            questions=Selection.parse_ids(opts["questions"]),
            changed_since=opts.get("changed_since"),
        )

    def execute(self, *args: Any, **options: Any) -> Any:
        self.interrupt = threading.Event()
        with ctrl_c_sets(self.interrupt):
            return super().execute(*args, **options)

    def show(self, progress: Progress) -> None:
        if not (sys.stderr.isatty() or self.verbosity > 1):
            return
        filled = BAR * (progress.done + progress.failed) // max(1, progress.total)
        line = gettext("[%(bar)s] %(done)d done · %(failed)d failed · %(remaining)d remaining · tokens %(tin)d in, %(tout)d out") % {
            "bar": "#" * filled + "." * (BAR - filled),
            "done": progress.done,
            "failed": progress.failed,
            "remaining": progress.remaining,
            "tin": progress.tokens_in,
            "tout": progress.tokens_out,
        }
        self.stderr.write(line, ending="\r" if sys.stderr.isatty() else "\n")

    def note_taken_over(self, request: RunRequest) -> None:
        """Say so when the run was held by a process of this host that is gone, and was taken over at once."""
        if request.taken_over_from and request.run is not None:
            self.stdout.write(
                gettext("run %(id)d was held by %(holder)s, which is no longer running: taken over")
                % {"id": request.run.pk, "holder": request.taken_over_from}
            )

    def run_held(self, run: EndpointRun, *, verb: str) -> None:
        """Work on the run until nothing is pending; Ctrl-C leaves it cancelled and says how to continue."""
        if run.status != EndpointRun.Status.RUNNING:  # nothing was left to do: the run was not taken
            self.report(RunOutcome(run, status=run.status), verb=verb)
            return
        interrupt = self.interrupt or threading.Event()
        reason = gettext("Cancelled with Ctrl-C by %(holder)s (user %(user)s); what was done is kept.") % {
            "holder": run.holder,
            "user": _user(),
        }
        if interrupt.is_set():  # pressed while the run was being set up
            release_held(run=run, reason=reason)
            self.stop_interrupted(run)
        self.show(run_progress(run))
        try:
            outcome = execute_run(run, progress=self.show, interrupt=interrupt, interrupt_reason=reason)
        except KeyboardInterrupt:  # a second Ctrl-C: the runner released the run as cancelled; make sure of it
            release_held(run=run, reason=reason)
            self.stop_interrupted(run)
        if sys.stderr.isatty():
            self.stderr.write("")
        if outcome.interrupted and outcome.status != EndpointRun.Status.FINISHED:
            self.stop_interrupted(outcome.run)
        self.report(outcome, verb=verb)

    def stop_interrupted(self, run: EndpointRun) -> NoReturn:
        """After Ctrl-C: what the run holds, that it is cancelled, and the command that continues it; exit 130."""
        if sys.stderr.isatty():
            self.stderr.write("")
        run.refresh_from_db()
        progress = self.write_holdings(run)
        raise CommandError(
            gettext(
                "interrupted: run %(id)d is cancelled and asks nothing more; the %(done)d questions done are kept.\n"
                "To continue where it stopped: %(command)s"
            )
            % {"id": run.pk, "done": progress.done, "command": resume_command(run)},
            returncode=130,
        )

    def write_holdings(self, run: EndpointRun) -> Progress:
        """Print what the run holds (done, failed, remaining, tokens and cost) and return its progress."""
        progress = run_progress(run)
        self.stdout.write(
            gettext(
                "the run holds %(done)d of %(total)d questions done, %(failed)d failed, %(remaining)d remaining; tokens %(tin)d in, %(tout)d out"
            )
            % {
                "done": progress.done,
                "total": progress.total,
                "failed": progress.failed,
                "remaining": progress.remaining,
                "tin": progress.tokens_in,
                "tout": progress.tokens_out,
            }
            + (f" · {cost}" if (cost := cost_of(run, progress)) else "")
        )
        return progress

    def report(self, outcome: RunOutcome, *, verb: str) -> None:
        run = outcome.run
        facts = {"now": outcome.finished, "failed_now": len(outcome.failed)}
        self.stdout.write(
            (
                gettext("%(now)d questions judged now, %(failed_now)d failed")
                if verb == "judge"
                else gettext("%(now)d answers stored now, %(failed_now)d failed")
            )
            % facts
        )
        progress = self.write_holdings(run)
        failed = run.questions.filter(status=RunQuestion.Status.FAILED).select_related("item").order_by("item__position")
        for q in failed:
            self.stdout.write(
                gettext("failed: %(question)s — %(why)s") % {"question": q.item.question_id, "why": describe_problem(q.problem)}
            )
        if outcome.lost:
            raise CommandError(gettext("another process took the run over (this one stopped renewing its lease in time)"))
        if run.status == EndpointRun.Status.CANCELLED:
            raise CommandError(gettext("the run was cancelled; rerun the same command to continue"), returncode=1)
        if progress.failed:
            raise CommandError(
                gettext("%(n)d questions failed; rerun the same command to try them again") % {"n": progress.failed}, returncode=1
            )
