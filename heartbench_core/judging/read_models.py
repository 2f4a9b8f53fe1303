"""Read models of the judging pages and API: endpoints, templates, runs with their progress, and imported judge runs.

A run of a model on a dataset whose responses an open campaign of the viewer judges is left out
of every list, and refused by id with the reason (`Viewer`): its verdicts, reasons and raw answers
are the judge's output on responses the viewer rates blind. Each read takes a fixed number of
queries; the page and the API of a screen read through the same function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, QuerySet

from heartbench_core.blindness import CLOSED_MODEL
from heartbench_core.judging import endpoint_policy
from heartbench_core.judging.filters import EndpointRunFilters, JudgeRunFilters, RunQuestionFilters
from heartbench_core.judging.models import (
    SUSPECTED_INJECTION,
    Endpoint,
    EndpointRun,
    JudgeTemplate,
    JudgeTemplateRevision,
    RunQuestion,
    RunQuestionQuerySet,
)
from heartbench_core.judging.run_display import describe_signal, estimated_cost, problem_parts
from heartbench_core.judging.services.runs import Progress, progress_counts
from heartbench_core.models import Dataset, JudgeRun, LanguageModel
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import Role

RUN_RELATIONS = ("version__dataset", "model", "endpoint", "template_revision__template", "judge_run", "requested_by")


def _refuse_run(viewer: Viewer, run: EndpointRun) -> None:
    """403 with the reason when the run's dataset is closed to the viewer (by dataset: which models a campaign holds stays hidden)."""
    if viewer.scope.hides_model_on(run.version.dataset_id, run.model_id):
        raise PermissionDenied(CLOSED_MODEL)


# --- runs of an endpoint -----------------------------------------------------------------------------


@read_model
def runs(viewer: Viewer, params: Mapping[str, Any] | None = None, *, by_id: bool = False) -> QuerySet[EndpointRun]:
    """Every run the viewer may see, newest first (by creation, or `by_id`), with what a list shows (one query), filtered by `EndpointRunFilters`."""
    qs = EndpointRun.objects.select_related(*RUN_RELATIONS).order_by(*(("-id",) if by_id else ("-created_at", "-id")))
    return viewer.visible_on_datasets(EndpointRunFilters(params).check().narrow(qs), "version__dataset_id")


@read_model
def run(viewer: Viewer, pk: int) -> EndpointRun:
    """One run (404 when there is none; 403, with the reason, when it is closed to the viewer)."""
    found = one(EndpointRun.objects.select_related(*RUN_RELATIONS), pk=pk)
    _refuse_run(viewer, found)
    return found


@read_model
def refuse_run_request(viewer: Viewer, *, dataset: str, model: str) -> None:
    """403 with the reason when the viewer asks for a run of a model on a dataset closed to them (the form and the API's POST)."""
    found_dataset = Dataset.objects.filter(name=dataset).first()
    found_model = LanguageModel.objects.filter(name=model.strip()).first()
    if found_dataset is not None and found_model is not None and viewer.scope.hides_model_on(found_dataset.pk, found_model.pk):
        raise PermissionDenied(CLOSED_MODEL)


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


@read_model
def run_rows(viewer: Viewer, runs: list[EndpointRun]) -> list[RunRow]:
    """Runs read through `runs` or `run`, with their counts (one more query for all of them)."""
    for each in runs:
        _refuse_run(viewer, each)
    ids = [r.pk for r in runs]
    rows = {
        row["run_id"]: row
        for row in RunQuestion.objects.filter(run_id__in=ids)
        .values("run_id")
        .annotate(**progress_counts(), suspected=Count("id", filter=SUSPECTED_INJECTION))
        .order_by()
    }
    progress = {each.pk: Progress.of(rows.get(each.pk, {})) for each in runs}
    return [RunRow(r, progress[r.pk], estimated_cost(r, progress[r.pk]), rows.get(r.pk, {}).get("suspected", 0)) for r in runs]


@dataclass(frozen=True)
class QuestionRow:
    """A question of a run as its page lists it."""

    question: RunQuestion
    why: str  # the problem, in the reader's language
    detail: str = ""  # the endpoint's own words about it (data)


def _questions(run: EndpointRun, *, status: str | None = None) -> RunQuestionQuerySet:
    qs = RunQuestion.objects.filter(run=run).select_related("item", "response").order_by("item__position")
    return qs.filter(status=status) if status else qs


def _question_rows(questions: RunQuestionQuerySet) -> list[QuestionRow]:
    return [QuestionRow(q, *problem_parts(q.problem)) for q in questions]


@dataclass(frozen=True)
class SuspectRow:
    """A question whose judged response looked like prompt injection, with each sign: (what, the text that matched)."""

    question: RunQuestion
    signals: list[tuple[str, str]]


def _suspected_injections(run: EndpointRun) -> list[SuspectRow]:
    """The run's questions whose judged response looked like an attempt to instruct the judge, in file order (one query)."""
    qs = RunQuestion.objects.filter(run=run).suspected_injection().select_related("item").order_by("item__position")
    return [SuspectRow(q, [(describe_signal(s), str(s.get("text", ""))) for s in q.injection_signals or []]) for q in qs]


@dataclass(frozen=True)
class RunPage:
    """What a run's page shows below its progress."""

    failed: list[QuestionRow]
    suspected: list[SuspectRow]
    done: Page[QuestionRow]  # answered questions, 50 a page


@read_model
def run_page(viewer: Viewer, run: EndpointRun, *, page_number: str | None) -> RunPage:
    """A run read through `run`: its failed questions with why, those that looked like prompt injection, a page of the done ones."""
    _refuse_run(viewer, run)
    failed = _question_rows(_questions(run, status=RunQuestion.Status.FAILED))
    suspected = _suspected_injections(run)
    done = Paginator(_question_rows(_questions(run, status=RunQuestion.Status.DONE)), 50).get_page(page_number)
    return RunPage(failed, suspected, done)


@read_model
def run_questions(viewer: Viewer, run: EndpointRun, params: Mapping[str, Any]) -> list[RunQuestion]:
    """A run's questions in file order, filtered by `RunQuestionFilters` (a bad value: `InvalidFilters`), for the API (one query)."""
    _refuse_run(viewer, run)
    return list(RunQuestionFilters(params).check().narrow(_questions(run)))


# --- endpoints ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EndpointRow:
    """An endpoint with why it cannot be used (endpoint_policy, in the reader's language; empty: usable as far as is known)."""

    endpoint: Endpoint
    refusals: list[str]


def refusals_of(endpoint: Endpoint) -> list[str]:
    """Why requests to the endpoint would be refused, as far as can be told without resolving its host (no query)."""
    return [refused.text() for refused in endpoint_policy.refusals(endpoint)]


@read_model
def endpoints(viewer: Viewer) -> QuerySet[Endpoint]:
    """Every endpoint by name (the API)."""
    viewer.require(Role.ADMIN)
    return Endpoint.objects.order_by("name")


@read_model
def endpoint_exists(viewer: Viewer, name: str) -> bool:
    """Whether an endpoint has this name (a new one may not take it: page and API)."""
    viewer.require(Role.ADMIN)
    return bool(name) and Endpoint.objects.filter(name=name).exists()


@read_model
def endpoint(viewer: Viewer, name: str) -> EndpointRow:
    """One endpoint by name (404) with why it cannot be used."""
    viewer.require(Role.ADMIN)
    found = one(Endpoint.objects.all(), name=name)
    return EndpointRow(found, refusals_of(found))


@read_model
def endpoint_runs(viewer: Viewer, endpoint: Endpoint) -> list[RunRow]:
    """The endpoint's 20 newest runs the viewer may see, with their progress."""
    return run_rows(viewer, list(runs(viewer).filter(endpoint=endpoint)[:20]))


# --- templates ---------------------------------------------------------------------------------------


@read_model
def templates(viewer: Viewer) -> QuerySet[JudgeTemplate]:
    """Every template with every revision and its author, by name (the API)."""
    viewer.require(Role.ADMIN)
    return JudgeTemplate.objects.prefetch_related("revisions__created_by").order_by("name")


@read_model
def template(viewer: Viewer, name: str) -> JudgeTemplate:
    """One template by name with every revision and its author (404)."""
    return one(templates(viewer), name=name)


@read_model
def template_exists(viewer: Viewer, name: str) -> bool:
    """Whether a template has this name (a new one may not take it: page and API)."""
    viewer.require(Role.ADMIN)
    return JudgeTemplate.objects.filter(name=name.strip()).exists()


@read_model
def newest_revision(viewer: Viewer, template: JudgeTemplate) -> JudgeTemplateRevision | None:
    """The template's newest revision (what a new template starts from)."""
    viewer.require(Role.ADMIN)
    return template.revisions.order_by("-revision").first()


@dataclass(frozen=True)
class TemplatePage:
    template: JudgeTemplate
    revisions: list[JudgeTemplateRevision]  # newest first

    @property
    def newest(self) -> JudgeTemplateRevision | None:
        return self.revisions[0] if self.revisions else None


@read_model
def template_page(viewer: Viewer, name: str) -> TemplatePage:
    """A template by name (404) with every revision, newest first."""
    viewer.require(Role.ADMIN)
    found = one(JudgeTemplate.objects.all(), name=name)
    return TemplatePage(found, list(found.revisions.select_related("created_by").order_by("-revision")))


@dataclass(frozen=True)
class RevisionPage:
    template: JudgeTemplate
    revision: JudgeTemplateRevision
    previous: JudgeTemplateRevision | None


@read_model
def template_revision(viewer: Viewer, name: str, revision: int) -> RevisionPage:
    """One revision of a template (404 when either is missing), with the one before it."""
    viewer.require(Role.ADMIN)
    found = one(JudgeTemplate.objects.all(), name=name)
    shown = one(found.revisions.select_related("created_by"), revision=revision)
    previous = found.revisions.filter(revision__lt=revision).order_by("-revision").first()
    return RevisionPage(found, shown, previous)


# --- the judging page ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgingIndex:
    endpoints: list[EndpointRow]
    templates: QuerySet[JudgeTemplate]  # with their newest revision number and how many runs used them
    page: Page[EndpointRun]
    rows: list[RunRow]  # the page's runs with their progress
    datasets: QuerySet[Dataset]


@read_model
def index(viewer: Viewer, *, page_number: str | None, per_page: int) -> JudgingIndex:
    """The judging page: every endpoint with its counts and refusals, every template, a page of the runs the viewer may see."""
    page = Paginator(runs(viewer), per_page).get_page(page_number)
    endpoint_list = Endpoint.objects.annotate(run_count=Count("runs"), last_run=Max("runs__created_at")).order_by("name")
    return JudgingIndex(
        endpoints=[EndpointRow(e, refusals_of(e)) for e in endpoint_list],
        templates=JudgeTemplate.objects.annotate(newest=Max("revisions__revision"), run_count=Count("revisions__runs")).order_by("name"),
        page=page,
        rows=run_rows(viewer, list(page.object_list)),
        datasets=Dataset.objects.order_by("name"),
    )


# --- imported judge runs ------------------------------------------------------------------------------


def _judge_runs() -> QuerySet[JudgeRun]:
    return JudgeRun.objects.select_related("version__dataset", "model", "created_by")


@read_model
def judge_runs(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[JudgeRun]:
    """Imported judge runs by id, filtered by `JudgeRunFilters`; runs on a dataset closed to the viewer are left out whole until it opens."""
    return JudgeRunFilters(params).check().narrow(viewer.visible_on_datasets(_judge_runs().order_by("id"), "version__dataset_id"))


@read_model
def judge_run(viewer: Viewer, pk: Any, params: Mapping[str, Any] | None = None) -> JudgeRun:
    """One judge run (404; of the list's filters), refused with the reason (403) when its dataset is closed to the viewer: not hidden."""
    if not viewer.scope:
        return one(judge_runs(viewer, params), pk=pk)
    found = one(_judge_runs(), pk=pk)
    if viewer.scope.hides_model_on(found.version.dataset_id, found.model_id):
        raise PermissionDenied(CLOSED_MODEL)
    return found


@read_model
def judge_run_verdicts(viewer: Viewer, run: JudgeRun) -> Sequence[Mapping[str, Any]]:
    """Every verdict of a judge run read through `judge_run(s)`, in question and criterion order; recorded as shown."""
    rows = list(
        run.verdicts.order_by("criterion__item__position", "criterion__position").values(
            "response_id",
            "criterion_id",
            "criterion__item__question_id",
            "criterion__position",
            "criterion__revision",
            "hit",
            "rationale",
        )
    )
    viewer.shown({r["response_id"] for r in rows}, via="api-judge-verdicts")
    return rows
