"""Reads of the judging pages and API: endpoints, templates, runs with their progress, each in a fixed number of queries.

A run of a model on a dataset whose responses an open campaign of the reader judges is left out
of every list, and refused by name (`heartbench_core.blindness`): its verdicts, reasons and raw
answers are the judge's output on responses the reader rates blind.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, Q, QuerySet, Sum
from django.shortcuts import get_object_or_404

from heartbench_core import endpoint_policy
from heartbench_core.blindness import CLOSED_MODEL, blind_scope
from heartbench_core.models import SUSPECTED_INJECTION, Endpoint, EndpointRun, JudgeTemplate, RunQuestion
from heartbench_core.run_display import describe_signal, estimated_cost, problem_parts
from heartbench_core.services.runs import Progress

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from heartbench_core.models import User


def visible_runs(user: User | AnonymousUser) -> QuerySet[EndpointRun]:
    """Every run the user may see, newest first, with what a list shows (one query)."""
    qs = EndpointRun.objects.select_related(
        "version__dataset", "model", "endpoint", "template_revision__template", "judge_run", "requested_by"
    ).order_by("-created_at", "-id")
    return blind_scope(user).visible_on_datasets(qs, "version__dataset_id")


def run_for(user: User | AnonymousUser, pk: int) -> EndpointRun:
    """One run (404 when there is none; 403, with the reason, when it is closed to the user)."""
    run = get_object_or_404(
        EndpointRun.objects.select_related(
            "version__dataset", "model", "endpoint", "template_revision__template", "judge_run", "requested_by"
        ),
        pk=pk,
    )
    if blind_scope(user).hides_model_on(run.version.dataset_id, run.model_id):
        raise PermissionDenied(CLOSED_MODEL)
    return run


@dataclass(frozen=True)
class RunRow:
    """A run with its progress and estimated cost."""

    run: EndpointRun
    progress: Progress
    cost: Decimal | None
    suspected: int = 0  # questions whose judged response looked like prompt injection

    @property
    def percent_done(self) -> int:
        return round(100 * self.progress.done / self.progress.total) if self.progress.total else 0

    @property
    def percent_failed(self) -> int:
        return round(100 * self.progress.failed / self.progress.total) if self.progress.total else 0


def with_progress(runs: list[EndpointRun]) -> list[RunRow]:
    """The runs with their counts (one more query for all of them)."""
    ids = [r.pk for r in runs]
    rows = {
        row["run_id"]: row
        for row in RunQuestion.objects.filter(run_id__in=ids)
        .values("run_id")
        .annotate(
            total=Count("id"),
            done=Count("id", filter=Q(status=RunQuestion.Status.DONE)),
            failed=Count("id", filter=Q(status=RunQuestion.Status.FAILED)),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
            suspected=Count("id", filter=SUSPECTED_INJECTION),
        )
        .order_by()
    }
    out = []
    for run in runs:
        r = rows.get(run.pk, {})
        total, done, failed = r.get("total", 0), r.get("done", 0), r.get("failed", 0)
        progress = Progress(total, done, failed, total - done - failed, r.get("tokens_in") or 0, r.get("tokens_out") or 0)
        out.append(RunRow(run, progress, estimated_cost(run, progress), r.get("suspected", 0)))
    return out


@dataclass(frozen=True)
class QuestionRow:
    """A question of a run as its page lists it."""

    question: RunQuestion
    why: str  # the problem, in the reader's language
    detail: str = ""  # the endpoint's own words about it (data)


def questions_of(run: EndpointRun, *, status: str | None = None) -> list[QuestionRow]:
    """The run's questions (of one status), in file order, with why each failed (one query)."""
    qs = run.questions.select_related("item", "response").order_by("item__position")
    if status:
        qs = qs.filter(status=status)
    return [QuestionRow(q, *problem_parts(q.problem)) for q in qs]


@dataclass(frozen=True)
class SuspectRow:
    """A question whose judged response looked like prompt injection, with each sign: (what, the text that matched)."""

    question: RunQuestion
    signals: list[tuple[str, str]]


def suspected_injections(run: EndpointRun) -> list[SuspectRow]:
    """The run's questions whose judged response looked like an attempt to instruct the judge, in file order (one query)."""
    qs = RunQuestion.objects.filter(run=run).suspected_injection().select_related("item").order_by("item__position")
    return [SuspectRow(q, [(describe_signal(s), str(s.get("text", ""))) for s in q.injection_signals or []]) for q in qs]


def endpoints_with_counts() -> QuerySet[Endpoint]:
    """Every endpoint with how many runs it made and when the last one started."""
    return Endpoint.objects.annotate(run_count=Count("runs"), last_run=Max("runs__created_at")).order_by("name")


@dataclass(frozen=True)
class EndpointRow:
    """An endpoint with why it cannot be used (endpoint_policy, in the reader's language; empty: usable as far as is known)."""

    endpoint: Endpoint
    refusals: list[str]


def refusals_of(endpoint: Endpoint) -> list[str]:
    """Why requests to the endpoint would be refused, as far as can be told without resolving its host."""
    return [refused.text() for refused in endpoint_policy.refusals(endpoint)]


def endpoint_rows() -> list[EndpointRow]:
    """Every endpoint with its counts and refusals (one query)."""
    return [EndpointRow(e, refusals_of(e)) for e in endpoints_with_counts()]


def templates_with_revisions() -> QuerySet[JudgeTemplate]:
    """Every template with its newest revision number and how many runs used it."""
    return JudgeTemplate.objects.annotate(newest=Max("revisions__revision"), run_count=Count("revisions__runs")).order_by("name")
