"""What the judge and generate_answers commands share: running an endpoint run in the foreground, with a progress bar."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandError
from django.utils.translation import gettext

from heartbench_core.management.commands._base import ImportCommand
from heartbench_core.models import EndpointRun, RunQuestion
from heartbench_core.run_display import cost_of, describe_problem
from heartbench_core.services.runs import Progress, RunOutcome, execute_run, release_held, run_progress

BAR = 30


class RunCommand(ImportCommand):
    """Runs a held run to its end in the foreground; prints the counts and names every failed question."""

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

    def run_held(self, run: EndpointRun, *, verb: str) -> None:
        """Work on the run until nothing is pending; Ctrl-C leaves it cancelled, to be continued by the same command."""
        if run.status != EndpointRun.Status.RUNNING:  # nothing was left to do: the run was not taken
            self.report(RunOutcome(run, status=run.status), verb=verb)
            return
        self.show(run_progress(run))
        try:
            outcome = execute_run(run, progress=self.show)
        except KeyboardInterrupt:
            release_held(run=run, reason=gettext("Interrupted in the foreground."))
            if sys.stderr.isatty():
                self.stderr.write("")
            raise CommandError(gettext("interrupted: rerun the same command to continue where it stopped"), returncode=130) from None
        if sys.stderr.isatty():
            self.stderr.write("")
        self.report(outcome, verb=verb)

    def report(self, outcome: RunOutcome, *, verb: str) -> None:
        run = outcome.run
        progress = run_progress(run)
        facts: dict[str, Any] = {
            "now": outcome.finished,
            "failed_now": len(outcome.failed),
            "done": progress.done,
            "total": progress.total,
            "failed": progress.failed,
            "remaining": progress.remaining,
            "tin": progress.tokens_in,
            "tout": progress.tokens_out,
        }
        self.stdout.write(
            (
                gettext("%(now)d questions judged now, %(failed_now)d failed")
                if verb == "judge"
                else gettext("%(now)d answers stored now, %(failed_now)d failed")
            )
            % facts
        )
        self.stdout.write(
            gettext(
                "the run holds %(done)d of %(total)d questions done, %(failed)d failed, %(remaining)d remaining; tokens %(tin)d in, %(tout)d out"
            )
            % facts
            + (f" · {cost}" if (cost := cost_of(run, progress)) else "")
        )
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
