"""Runs of an endpoint over a dataset version: judging a model's responses, or generating a model's answers.

A run is durable by the platform's one mechanism for background work (heartbench_core/services/leases.py):

1. **Recorded.** The run and one `RunQuestion` per question are rows, written in one transaction.
   A page or API request hands the run's id to the broker after commit; a command runs it in the
   foreground, holding it from the moment it is created.
2. **Held under a lease.** A process takes a run (`leases.take`, a row lock that skips locked rows) when it is
   waiting, or running under a lease that expired; it counts the attempt and writes a lease of
   `RUN_LEASE_SECONDS`, renewed every few seconds while it works.
3. **One question, one commit.** The endpoint is called from a thread pool (the endpoint's
   concurrency); each answer is written by the holding process in a transaction of its own: the
   verdicts (or the answer) and the question's `done`, together. A question is taken only while
   pending, so no question is judged twice; a failed one keeps every raw answer and is retried
   when the run is resumed. Each taking of a question counts as an attempt: one whose result cannot
   be stored (the database refuses it, or the process dies holding it) fails after
   MAX_QUESTION_ATTEMPTS, like any other failure, instead of being asked forever.
4. **Swept every minute.** `sweep_endpoint_runs` (a django-q2 schedule) hands a run whose lease
   expired (its process died) or whose message was lost to a worker again; it continues with the
   questions still pending. A worker works for at most 80% of django-q2's timeout, then hands the
   rest of the run to the next worker.
5. **Let go.** A command interrupted with Ctrl-C leaves its run cancelled, never waiting for a
   worker (`execute_run`'s `interrupt`). A holder is "kind host:pid" (`holder_name`): a run held by
   a process of this host that is gone (`holder_is_gone`) is taken over at once by a rerun, Resume
   or Cancel, whatever is left of its lease.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Aggregate, Count, F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from heartbench_core.judging import endpoint_policy
from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplateRevision, RunQuestion
from heartbench_core.judging.services.endpoints import resolve_template
from heartbench_core.judging.services.llm import ChatClient, ChatError, ChatReply, EndpointConfig
from heartbench_core.lib.judge_answer import EMPTY, TRUNCATED, Problem, Verdicts, parse_answer
from heartbench_core.lib.judge_prompt import (
    PromptCriterion,
    PromptTemplate,
    build_answer_messages,
    build_judge_messages,
    build_repair_messages,
    new_fence_token,
    section_headers,
)
from heartbench_core.lib.prompt_injection import injection_signals
from heartbench_core.models import Criterion, DatasetVersion, Item, JudgeRun, JudgeVerdict, LanguageModel, ModelResponse
from heartbench_core.names import validate_model_name
from heartbench_core.services import leases
from heartbench_core.services.datasets import get_version
from heartbench_core.services.stored_scores import forget_scores

if TYPE_CHECKING:
    from heartbench_core.models import User

logger = logging.getLogger(__name__)

RUN_TASK = "heartbench_core.judging.tasks.run_endpoint_run"
MAX_STALLS = 3  # a run taken this often in a row without writing a question is stopped, with the reason
MAX_QUESTION_ATTEMPTS = 3  # a question taken this often without its result being stored fails, with the reason
NOT_STORED = "not_stored"  # attempts: the question's result could not be stored that many times (the log says why)
HEARTBEAT_SECONDS = 5.0
DIFFICULTIES = ("hard", "normal")
RECORD_BATCH = 32  # answers written in one transaction at most
SKIPPED = "skipped"  # a question a thread did not ask because the run was stopping (never stored)


# --- which questions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which questions of the version a run covers: all, a subset, explicit ids, or those changed since a judge run."""

    difficulty: str = ""
    scene: str = ""
    ability: str = ""
    questions: tuple[str, ...] = ()
    changed_since: int | None = None  # a JudgeRun id

    def as_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if v}

    @classmethod
    def parse_ids(cls, text: str | None) -> tuple[str, ...]:
        """Question ids from "ID,ID,…" (blanks and repeats dropped, order kept)."""
        return tuple(dict.fromkeys(q.strip() for q in (text or "").split(",") if q.strip()))


def select_items(version: DatasetVersion, selection: Selection) -> list[Item]:
    """The version's items the selection names, in file order; ValidationError naming what is wrong."""
    items = version.items.order_by("position")
    errors: dict[str, str] = {}
    if selection.difficulty:
        if selection.difficulty not in DIFFICULTIES:
            errors["difficulty"] = _("must be one of %(choices)s") % {"choices": ", ".join(DIFFICULTIES)}
        items = items.filter(difficulty=selection.difficulty)
    if selection.scene:
        items = items.filter(primary_scene=selection.scene)
    if selection.ability:
        items = items.filter(criteria__ability=selection.ability).distinct()
    if selection.questions:
        known = set(version.items.filter(question_id__in=selection.questions).values_list("question_id", flat=True))
        unknown = [q for q in selection.questions if q not in known]
        if unknown:
            errors["questions"] = _("unknown question ids in %(version)s: %(ids)s") % {"version": version, "ids": ", ".join(unknown[:20])}
        items = items.filter(question_id__in=selection.questions)
    if selection.changed_since is not None:
        changed = _changed_since(version, selection.changed_since, errors)
        items = items.filter(question_id__in=changed)
    if errors:
        raise ValidationError(errors)
    return list(items)


def _changed_since(version: DatasetVersion, run_id: int, errors: dict[str, str]) -> set[str]:
    """Questions of the version whose criteria (lineage and revision) differ from those judge run X judged, or that X did not judge."""
    run = JudgeRun.objects.filter(pk=run_id, version__dataset_id=version.dataset_id).first()
    if run is None:
        errors["changed_since"] = _("no judge run %(id)s on dataset %(dataset)s") % {"id": run_id, "dataset": version.dataset.name}
        return set()
    judged: dict[str, set[tuple[str, int]]] = {}
    for qid, lineage, revision in run.verdicts.values_list("criterion__item__question_id", "criterion__lineage_id", "criterion__revision"):
        judged.setdefault(qid, set()).add((str(lineage), revision))
    now: dict[str, set[tuple[str, int]]] = {q: set() for q in version.items.values_list("question_id", flat=True)}
    for qid, lineage, revision in Criterion.objects.filter(item__version=version).values_list(
        "item__question_id", "lineage_id", "revision"
    ):
        now[qid].add((str(lineage), revision))
    return {q for q, criteria in now.items() if judged.get(q) != criteria}


# --- creating and resuming runs ---------------------------------------------------------------------


@dataclass(frozen=True)
class RunRequest:
    """What became of a request to judge or to generate: the run (None when there was nothing to do) and what was added."""

    run: EndpointRun | None
    created: bool
    added: int  # questions added to the run
    retried: int  # failed questions set to run again
    left_out: dict[str, int] = field(default_factory=dict)  # questions not taken, by reason
    taken_over_from: str = ""  # the holder, known to be dead, whose lease the request took over


def _endpoint(name: str) -> Endpoint:
    """The named endpoint, when it may be used (its key variable and address obey endpoint_policy, as far as is known unresolved)."""
    endpoint = Endpoint.objects.filter(name=name).first()
    if endpoint is None:
        known = ", ".join(Endpoint.objects.values_list("name", flat=True)[:20]) or _("none yet (add one with add_endpoint)")
        raise ValidationError({"endpoint": _("no endpoint named %(name)r; known: %(known)s") % {"name": name, "known": known}})
    refused = endpoint_policy.refusals(endpoint)
    if refused:
        raise ValidationError(
            {"endpoint": [_("endpoint %(name)s cannot be used: %(why)s") % {"name": name, "why": r.text()} for r in refused]}
        )
    return endpoint


def _lease() -> timedelta:
    return timedelta(seconds=max(1, int(settings.RUN_LEASE_SECONDS)))


def holder_name(kind: str = "worker") -> str:
    """Who holds a run: the kind of process, its host and pid."""
    return f"{kind} {socket.gethostname()}:{os.getpid()}"[:100]


_HOLDER = re.compile(r"\S+ (?P<host>\S+):(?P<pid>\d{1,10})")


def holder_is_gone(holder: str) -> bool:
    """Whether the process a run's holder names (`holder_name`) is known to be dead: it ran on this host and its pid is gone.

    Its lease is then dead too, whatever its time. A holder on another host, one whose process lives
    (or is not ours to signal), and one not in that form keep their lease until it runs out.
    """
    match = _HOLDER.fullmatch(holder or "")
    if match is None or match["host"] != socket.gethostname():
        return False
    pid = int(match["pid"])
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):  # another user's process lives there; or no such pid can exist
        return False
    return False


def _held_by_a_live_process(run: EndpointRun, now: datetime) -> bool:
    """The run is running under a lease that has not run out, and its holder is not known to be dead."""
    return (
        run.status == EndpointRun.Status.RUNNING
        and run.locked_until is not None
        and run.locked_until > now
        and not holder_is_gone(run.holder)
    )


def request_judge_run(
    *,
    dataset_name: str,
    model_name: str,
    endpoint_name: str,
    run_label: str | None = None,
    version_label: str | None = None,
    template_name: str | None = None,
    selection: Selection | None = None,
    requested_by: User | None = None,
    trigger: str = "page",
    hold_as: str | None = None,
) -> RunRequest:
    """Judge a model's responses with the endpoint's model as judge: a new run, or the run of the same label resumed.

    The run's label defaults to the template and its revision (e.g. "heartbench-zh-r2"). Resuming
    adds the questions asked for that the run does not hold yet and sets its failed questions to
    run again. With `hold_as`, the run is held by the calling process (a command in the
    foreground); otherwise it is handed to a worker after commit.
    """
    selection = selection or Selection()
    version = get_version(dataset_name, version_label)
    endpoint = _endpoint(endpoint_name)
    model = LanguageModel.objects.filter(name=(model_name or "").strip()).first()
    if model is None:
        raise ValidationError({"model": _("no model named %(model)r has responses") % {"model": model_name}})
    revision = resolve_template(template_name, by=requested_by)
    label = (run_label or "").strip() or f"{revision.template.name}-r{revision.revision}"
    validate_model_name(label, field="run", max_length=JudgeRun._meta.get_field("label").max_length)
    items = select_items(version, selection)
    answered = set(ModelResponse.objects.filter(dataset=version.dataset, model=model).values_list("question_id", flat=True))
    without = [i.question_id for i in items if i.question_id not in answered]
    if without and selection.questions:
        raise ValidationError(
            {
                "questions": _("model %(model)r has no response to: %(ids)s (import or generate its answers first)")
                % {"model": model.name, "ids": ", ".join(without[:20])}
            }
        )
    items = [i for i in items if i.question_id in answered]
    left_out = {"no_response": len(without)} if without else {}
    with transaction.atomic():
        existing = (
            JudgeRun.objects.select_for_update(of=("self",))
            .filter(version=version, model=model, judge=endpoint.model, label=label)
            .select_related("endpoint_run")
            .first()
        )
        if existing is not None:
            run = _resumable(existing, endpoint, revision)
            added, retried = _add_questions(run, items)
            created = False
        else:
            if not items:
                raise ValidationError(
                    {"questions": _("no question to judge: the selection holds none with a response of %(model)r") % {"model": model.name}}
                )
            try:
                with transaction.atomic():
                    judge_run = JudgeRun.objects.create(
                        version=version,
                        model=model,
                        judge=endpoint.model,
                        label=label,
                        created_by=requested_by,
                        source=f"endpoint {endpoint.name}"[:200],
                        note=_("Judged on the platform by endpoint %(endpoint)s with template %(template)s r%(revision)d.")
                        % {"endpoint": endpoint.name, "template": revision.template.name, "revision": revision.revision},
                    )
            except IntegrityError:  # the same label was requested at the same moment by another process
                raise ValidationError(
                    {"run": _("judge run %(run)r was created a moment ago by another request; resume it instead") % {"run": label}}
                ) from None
            run = _new_run(
                EndpointRun.Kind.JUDGE,
                version,
                model,
                endpoint,
                selection,
                requested_by,
                trigger,
                judge_run=judge_run,
                template_revision=revision,
            )
            added, retried = _add_questions(run, items)
            created = True
        taken_over_from = _start(run, hold_as)
    return RunRequest(run, created, added, retried, left_out, taken_over_from)


def _resumable(existing: JudgeRun, endpoint: Endpoint, revision: JudgeTemplateRevision) -> EndpointRun:
    """The platform run behind a judge run of the same label, when it was made with this endpoint and template revision."""
    run = getattr(existing, "endpoint_run", None)
    if run is None:
        raise ValidationError(
            {
                "run": _("judge run %(judge)s/%(run)s was imported from a file; choose another --run label")
                % {"judge": existing.judge, "run": existing.label}
            }
        )
    if run.endpoint_id != endpoint.pk or run.template_revision_id != revision.pk:
        made = run.template_revision
        raise ValidationError(
            {
                "run": _(
                    "run %(run)r was made with endpoint %(endpoint)s and template %(template)s r%(revision)s; "
                    "resume it with those, or choose another --run label"
                )
                % {
                    "run": existing.label,
                    "endpoint": run.endpoint.name,
                    "template": made.template.name if made else "—",
                    "revision": made.revision if made else "—",
                }
            }
        )
    return EndpointRun.objects.select_for_update().get(pk=run.pk)


def request_answers(
    *,
    dataset_name: str,
    model_name: str,
    endpoint_name: str,
    version_label: str | None = None,
    selection: Selection | None = None,
    requested_by: User | None = None,
    trigger: str = "page",
    hold_as: str | None = None,
) -> RunRequest:
    """Ask the endpoint for MODEL's answers to the questions MODEL has no response to (a rerun fills only what is missing).

    An unfinished generation run of the same model, endpoint and version is resumed (its failed
    questions run again) rather than a second one started.
    """
    selection = selection or Selection()
    version = get_version(dataset_name, version_label)
    endpoint = _endpoint(endpoint_name)
    model_name = (model_name or "").strip()
    if not model_name:
        raise ValidationError({"model": _("a model name is required")})
    model = LanguageModel.objects.filter(name=model_name).first()
    if model is None:
        validate_model_name(model_name)
    items = select_items(version, selection)
    answered = (
        set(ModelResponse.objects.filter(dataset=version.dataset, model=model).values_list("question_id", flat=True)) if model else set()
    )
    missing = [i for i in items if i.question_id not in answered]
    left_out = {"answered": len(items) - len(missing)} if len(items) != len(missing) else {}
    with transaction.atomic():
        if model is None:
            model, _created = LanguageModel.objects.get_or_create(name=model_name)
        unfinished = (
            EndpointRun.objects.filter(kind=EndpointRun.Kind.GENERATE, version=version, model=model, endpoint=endpoint)
            .filter(~Q(status=EndpointRun.Status.FINISHED) | Q(questions__status=RunQuestion.Status.FAILED))
            .order_by("-created_at", "-id")
            .values_list("pk", flat=True)
            .first()
        )
        run = EndpointRun.objects.select_for_update().get(pk=unfinished) if unfinished else None
        if run is None and not missing:
            return RunRequest(None, False, 0, 0, left_out)
        created = run is None
        if run is None:
            run = _new_run(EndpointRun.Kind.GENERATE, version, model, endpoint, selection, requested_by, trigger)
        added, retried = _add_questions(run, missing)
        taken_over_from = _start(run, hold_as)
    return RunRequest(run, created, added, retried, left_out, taken_over_from)


def request_run(
    *,
    kind: str,
    dataset: str,
    model: str,
    endpoint: str,
    version: str | None = None,
    run: str | None = None,
    template: str | None = None,
    difficulty: str | None = None,
    scene: str | None = None,
    ability: str | None = None,
    questions: Iterable[str] = (),
    changed_since: int | None = None,
    requested_by: User | None,
    trigger: str,
) -> RunRequest:
    """A page's or the API's request, field by field: judge a model's responses (`kind` judge) or generate its answers.

    Blank fields are left out; the question ids are stripped, without blanks or repeats, in their order.
    """
    judges = kind == EndpointRun.Kind.JUDGE
    selection = Selection(
        difficulty=difficulty or "",
        scene=(scene or "").strip(),
        ability=(ability or "").strip(),
        questions=tuple(dict.fromkeys(q.strip() for q in questions if q.strip())),
        changed_since=changed_since if judges else None,
    )
    common: dict[str, Any] = {
        "dataset_name": dataset,
        "model_name": model,
        "endpoint_name": endpoint,
        "version_label": (version or "").strip() or None,
        "selection": selection,
        "requested_by": requested_by,
        "trigger": trigger,
    }
    if judges:
        return request_judge_run(run_label=(run or "").strip() or None, template_name=template or None, **common)
    return request_answers(**common)


def _new_run(
    kind: str,
    version: DatasetVersion,
    model: LanguageModel,
    endpoint: Endpoint,
    selection: Selection,
    requested_by: User | None,
    trigger: str,
    **extra: Any,
) -> EndpointRun:
    return EndpointRun.objects.create(
        kind=kind,
        version=version,
        model=model,
        endpoint=endpoint,
        selection=selection.as_dict(),
        price_input=endpoint.price_input,
        price_output=endpoint.price_output,
        currency=endpoint.currency,
        requested_by=requested_by,
        trigger=trigger,
        **extra,
    )


def _add_questions(run: EndpointRun, items: list[Item]) -> tuple[int, int]:
    """Add the items the run does not hold yet, and set its failed questions to run again; (added, retried)."""
    held = set(run.questions.values_list("item_id", flat=True))
    new = [RunQuestion(run=run, item=i) for i in items if i.pk not in held]
    RunQuestion.objects.bulk_create(new, ignore_conflicts=True)
    retried = run.questions.filter(status=RunQuestion.Status.FAILED).update(status=RunQuestion.Status.PENDING, attempts=0)
    return len(new), retried


def _start(run: EndpointRun, hold_as: str | None) -> str:
    """Make the run waiting (or held by the calling process) when it has questions to do, and hand it to a worker after commit.

    A run held by a process known to be dead (`holder_is_gone`: this host, its pid gone) is taken over at
    once, whatever its lease; returns that holder ("" when none was taken over).
    """
    pending = run.questions.filter(status=RunQuestion.Status.PENDING).exists()
    now = timezone.now()
    live = _held_by_a_live_process(run, now)
    dead = run.holder if run.status == EndpointRun.Status.RUNNING and not live and run.locked_until and run.locked_until > now else ""
    if not pending:
        if not live:
            run.status, run.finished_at, run.locked_until, run.holder = EndpointRun.Status.FINISHED, run.finished_at or now, None, ""
            run.save(update_fields=["status", "finished_at", "locked_until", "holder"])
        return dead
    if live:
        if hold_as:
            raise ValidationError(
                {
                    "run": _(
                        "run %(id)s is being worked on by %(holder)s (its lease runs until %(until)s); wait for it, or cancel it first"
                    )
                    % {"id": run.pk, "holder": run.holder or "?", "until": timezone.localtime(run.locked_until).strftime("%H:%M:%S")}
                }
            )
        return ""  # the holder re-reads the pending questions before it finishes
    run.cancel_requested, run.last_error, run.stalls = False, "", 0
    if hold_as:
        run.status, run.locked_until, run.holder, run.attempts = EndpointRun.Status.RUNNING, now + _lease(), hold_as, run.attempts + 1
        run.started_at = run.started_at or now
    else:
        run.status, run.locked_until, run.holder = EndpointRun.Status.PENDING, None, ""
    run.finished_at = None
    run.save(
        update_fields=[
            "status",
            "locked_until",
            "holder",
            "attempts",
            "started_at",
            "cancel_requested",
            "last_error",
            "stalls",
            "finished_at",
        ]
    )
    if not hold_as:
        enqueue(run)
    return dead


def enqueue(run: EndpointRun) -> None:
    """Hand the run's id to the broker once the current transaction commits (the sweep retries if this is lost)."""
    leases.send_after_commit(EndpointRun.objects.all(), run.pk, task=RUN_TASK, task_name=f"endpoint-run-{run.pk}")


def retry_failed(*, run: EndpointRun, by: User | None = None) -> int:
    """Set the run's failed questions to run again and hand it to a worker; returns how many."""
    with transaction.atomic():
        run = EndpointRun.objects.select_for_update().get(pk=run.pk)
        _added, retried = _add_questions(run, [])
        if not retried:
            raise ValidationError({"run": _("the run has no failed question")})
        _start(run, None)
    return retried


def resume_run(*, run: EndpointRun, by: User | None = None) -> EndpointRun:
    """Hand a cancelled or stopped run to a worker again (its failed questions too)."""
    with transaction.atomic():
        run = EndpointRun.objects.select_for_update().get(pk=run.pk)
        if _held_by_a_live_process(run, timezone.now()):
            raise ValidationError({"run": _("the run is running")})
        _add_questions(run, [])
        if not run.questions.filter(status=RunQuestion.Status.PENDING).exists():
            raise ValidationError({"run": _("the run has no question left to do")})
        _start(run, None)
    return run


def cancel_run(*, run: EndpointRun, by: User | None = None) -> EndpointRun:
    """Stop the run: at once when no process holds it, else its holder stops within seconds (answers in flight are kept)."""
    with transaction.atomic():
        run = EndpointRun.objects.select_for_update().get(pk=run.pk)
        if not run.is_active:
            raise ValidationError({"run": _("the run is not running or waiting")})
        now = timezone.now()
        if _held_by_a_live_process(run, now):
            run.cancel_requested = True
            run.save(update_fields=["cancel_requested"])
        else:
            _finish(run, EndpointRun.Status.CANCELLED, run.last_error)
    return run


# --- taking a run, and running it ------------------------------------------------------------------


def claim_run(*, run_id: int, holder: str) -> EndpointRun | None:
    """Take a waiting run, or one whose lease expired, for this process; None when done, cancelled or held by a live process."""
    now = timezone.now()
    with transaction.atomic():
        run = leases.take(EndpointRun.objects.all(), run_id, now)
        if run is None:
            return None
        if run.cancel_requested:
            _finish(run, EndpointRun.Status.CANCELLED)
            return None
        if run.stalls >= MAX_STALLS:
            _finish(
                run,
                EndpointRun.Status.FAILED,
                _(
                    "Stopped: taken %(n)d times in a row without finishing a question "
                    "(the process running it keeps dying or breaking off; the server's log says why)."
                )
                % {"n": run.stalls},
            )
            return None
        run.status, run.attempts, run.stalls = EndpointRun.Status.RUNNING, run.attempts + 1, run.stalls + 1
        run.locked_until, run.holder, run.started_at = now + _lease(), holder, run.started_at or now
        run.save(update_fields=["status", "attempts", "stalls", "locked_until", "holder", "started_at"])
    return run


def _finish(run: EndpointRun, status: str, error: str = "") -> None:
    run.status, run.last_error, run.locked_until, run.holder, run.finished_at = status, error, None, "", timezone.now()
    run.cancel_requested = False
    run.save(update_fields=["status", "last_error", "locked_until", "holder", "finished_at", "cancel_requested"])


@dataclass
class Progress:
    """Where a run stands: questions done, failed and remaining; tokens in and out."""

    total: int
    done: int
    failed: int
    remaining: int
    tokens_in: int
    tokens_out: int

    @classmethod
    def of(cls, counted: Mapping[str, Any]) -> Progress:
        """The progress from the `progress_counts` of a run's questions (none counted: an empty run)."""
        total, done, failed = counted.get("total", 0), counted.get("done", 0), counted.get("failed", 0)
        return cls(total, done, failed, total - done - failed, counted.get("tokens_in") or 0, counted.get("tokens_out") or 0)


def progress_counts() -> dict[str, Aggregate]:
    """What `Progress.of` reads, as aggregates over a run's questions."""
    return {
        "total": Count("id"),
        "done": Count("id", filter=Q(status=RunQuestion.Status.DONE)),
        "failed": Count("id", filter=Q(status=RunQuestion.Status.FAILED)),
        "tokens_in": Sum("tokens_in"),
        "tokens_out": Sum("tokens_out"),
    }


def run_progress(run: EndpointRun) -> Progress:
    """The run's counts (one query)."""
    return Progress.of(run.questions.aggregate(**progress_counts()))


@dataclass(frozen=True)
class QuestionWork:
    """What a thread needs to ask the endpoint about one question (plain data: no ORM in threads)."""

    question: int  # RunQuestion id
    question_id: str
    messages: list[dict[str, str]]
    criteria: tuple[int, ...] = ()  # Criterion ids in rubric order (judging)
    response_id: int | None = None  # the judged response
    injection: list[dict[str, str]] | None = None  # what in the judged response looked like prompt injection (judging)


@dataclass
class QuestionResult:
    """What the endpoint gave for one question."""

    work: QuestionWork
    verdicts: Verdicts | None = None
    answer: str | None = None  # generation
    problem: dict[str, Any] | None = None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    duration_ms: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None


def _ask(
    client: ChatClient,
    work: QuestionWork,
    read: Callable[[ChatReply], tuple[dict[str, Any] | None, Any]],
    again: Callable[[ChatReply, Any], list[dict[str, str]]] | None = None,
) -> QuestionResult:
    """Ask until `read` finds an answer usable ((None, what it read)), up to the endpoint's retries.

    An unusable answer ((its problem, what `again` needs)) is asked again: with the messages `again` builds, else the same.
    """
    started = time.monotonic()
    result = QuestionResult(work)
    messages = work.messages
    for _attempt in range(client.config.max_retries + 1):
        try:
            reply = client.complete(messages)
        except ChatError as exc:
            result.requests += exc.requests
            # A failed request as a question's problem: its kind, message, HTTP status and parameters.
            result.problem = {"code": exc.kind, "message": exc.message, **({"status": exc.status} if exc.status else {}), **exc.params}
            break
        result.requests += reply.requests
        result.tokens_in += reply.tokens_in
        result.tokens_out += reply.tokens_out
        result.problem, found = read(reply)
        result.outputs.append({"answer": reply.text, "finish_reason": reply.finish_reason, "problem": result.problem})
        if result.problem is None:
            result.verdicts, result.answer = (found, None) if isinstance(found, Verdicts) else (None, found)
            break
        messages = again(reply, found) if again else messages
    result.duration_ms = int((time.monotonic() - started) * 1000)
    return result


def judge_question(client: ChatClient, work: QuestionWork) -> QuestionResult:
    """Ask the judge; an unusable answer gets a repair prompt saying what was wrong, up to the endpoint's retries."""
    count = len(work.criteria)

    def read(reply: ChatReply) -> tuple[dict[str, Any] | None, Verdicts | Problem]:
        parsed = parse_answer(reply.text, count, truncated=reply.finish_reason == "length")
        return (parsed.as_dict() if isinstance(parsed, Problem) else None), parsed

    def again(reply: ChatReply, problem: Problem) -> list[dict[str, str]]:
        return build_repair_messages(work.messages, answer=reply.text, problem=problem, count=count)

    return _ask(client, work, read, again)


def answer_question(client: ChatClient, work: QuestionWork) -> QuestionResult:
    """Ask a model under test for its answer; an empty or cut-off answer is asked again, up to the endpoint's retries."""

    def read(reply: ChatReply) -> tuple[dict[str, Any] | None, str]:
        if reply.finish_reason == "length":
            return {"code": TRUNCATED}, reply.text
        return ({"code": EMPTY} if not reply.text.strip() else None), reply.text

    return _ask(client, work, read)


def _prepare(run: EndpointRun, questions: list[RunQuestion]) -> list[QuestionWork | QuestionResult]:
    """The work of each question (or, when it cannot be asked, its failed result), built in the holding process."""
    items = [q.item for q in questions]
    criteria: dict[int, list[Criterion]] = {}
    for c in Criterion.objects.filter(item__in=items).order_by("item_id", "position"):
        criteria.setdefault(c.item_id, []).append(c)
    out: list[QuestionWork | QuestionResult] = []
    if run.kind == EndpointRun.Kind.GENERATE:
        return [QuestionWork(q.pk, q.item.question_id, build_answer_messages(q.item.dialogue)) for q in questions]
    responses = {
        r.question_id: r
        for r in ModelResponse.objects.filter(
            dataset_id=run.version.dataset_id, model_id=run.model_id, question_id__in=[i.question_id for i in items]
        )
    }
    revision = run.template_revision
    assert revision is not None  # a judge run has one (a database constraint)
    template = PromptTemplate(revision.system, revision.user)
    headers = section_headers(template)
    for q in questions:
        item_criteria = criteria.get(q.item_id, [])
        response = responses.get(q.item.question_id)
        if response is None:
            work = QuestionWork(q.pk, q.item.question_id, [])
            out.append(QuestionResult(work, problem={"code": "no_response"}))
            continue
        messages = build_judge_messages(
            template,
            dialogue=q.item.dialogue,
            response=response.text,
            criteria=[PromptCriterion(c.text, c.ability, c.weight, c.catastrophic) for c in item_criteria],
            draw_token=new_fence_token,
        )
        signals = [s.as_dict() for s in injection_signals(response.text, headers=headers)]
        out.append(QuestionWork(q.pk, q.item.question_id, messages, tuple(c.pk for c in item_criteria), response.pk, signals))
    return out


@dataclass
class RunOutcome:
    """How a taking of a run ended."""

    run: EndpointRun
    finished: int = 0  # questions done in this taking
    failed: list[str] = field(default_factory=list)  # question ids that failed in this taking
    status: str = ""
    lost: bool = False  # another process took the run (this one's lease expired)
    interrupted: bool = False  # the person running it in the foreground pressed Ctrl-C: the run was cancelled


class _Holder:
    """The holding process's view of its lease: renews it, and sees a cancellation or a loss of the lease."""

    def __init__(self, run: EndpointRun) -> None:
        self.run_id, self.attempt, self.last = run.pk, run.attempts, 0.0
        self.cancelled = self.lost = False

    def beat(self, *, force: bool = False) -> None:
        now = time.monotonic()
        every = min(HEARTBEAT_SECONDS, _lease().total_seconds() / 3)
        if not force and now - self.last < every:
            return
        self.last = now
        held = EndpointRun.objects.filter(pk=self.run_id, attempts=self.attempt, status=EndpointRun.Status.RUNNING)
        if not held.update(locked_until=timezone.now() + _lease()):
            self.lost = True
            return
        self.cancelled = bool(held.values_list("cancel_requested", flat=True).first())


def execute_run(
    run: EndpointRun,
    *,
    deadline: float | None = None,
    progress: Callable[[Progress], None] | None = None,
    client: ChatClient | None = None,
    interrupt: threading.Event | None = None,
    interrupt_reason: str = "",
) -> RunOutcome:
    """Work on a run this process holds (see `claim_run`) until no question is pending, it is cancelled, or `deadline` (monotonic) passes.

    `concurrency` threads take questions from a queue and call the endpoint; this thread prepares
    the questions ahead, writes each answer as it comes and renews the lease, so the endpoint is
    kept busy whatever the database's pace. Returns how it ended; the run is released (finished,
    cancelled, or waiting for the next worker).

    `interrupt` is set by a command whose user pressed Ctrl-C (or a KeyboardInterrupt arrives): no
    question is asked any more, the answers already come in are written, those still in flight are
    not waited for (they stay to do, their attempt given back), and the run is left cancelled with
    `interrupt_reason` — never handed to a worker.
    """
    run = EndpointRun.objects.select_related("endpoint", "version", "template_revision__template", "judge_run", "model").get(pk=run.pk)
    outcome = RunOutcome(run)
    holder = _Holder(run)
    config = EndpointConfig.of(run.endpoint)
    own_client = client is None
    chat = client or ChatClient(config)
    ask = judge_question if run.kind == EndpointRun.Kind.JUDGE else answer_question
    todo: queue.Queue[QuestionWork | None] = queue.Queue()
    results: queue.Queue[QuestionResult] = queue.Queue()
    stop = threading.Event()

    def work() -> None:
        while (item := todo.get()) is not None:
            if stop.is_set():
                results.put(QuestionResult(item, problem={"code": SKIPPED}))
                continue
            try:
                results.put(ask(chat, item))
            except Exception as exc:  # never lose a question to a bug in a thread: it fails with the reason
                logger.exception("run %s: asking about %s failed", run.pk, item.question_id)
                results.put(QuestionResult(item, problem={"code": "bad_reply", "message": f"{type(exc).__name__}: {exc}"}))

    threads = [threading.Thread(target=work, name=f"run{run.pk}-{i}", daemon=True) for i in range(config.concurrency)]
    for thread in threads:
        thread.start()
    attempted: set[int] = set()
    in_flight: set[int] = set()  # handed to a thread, no result back yet
    outstanding, exhausted, shown = 0, False, 0.0
    ahead = max(64, config.concurrency * 4)

    def write(came: list[QuestionResult]) -> None:
        # A question a thread skipped because the run was stopping was never asked: it stays pending for the next
        # taking, and this taking was no attempt of it.
        skipped = [r.work.question for r in came if r.problem and r.problem.get("code") == SKIPPED]
        if skipped and not holder.lost:
            RunQuestion.objects.filter(pk__in=skipped, status=RunQuestion.Status.PENDING, attempts__gt=0).update(attempts=F("attempts") - 1)
        _record_many(run, [r for r in came if r.work.question not in skipped], holder, outcome)
        in_flight.difference_update(r.work.question for r in came)

    try:
        while True:
            holder.beat()
            if interrupt is not None and interrupt.is_set():
                # Ctrl-C: stop spending at once. What has come in is written; what is in flight is not waited for.
                outcome.interrupted = True
                stop.set()
                write(_drain(results))
                break
            stopping = holder.cancelled or holder.lost or (deadline is not None and time.monotonic() >= deadline)
            if stopping:
                stop.set()
            elif not exhausted and todo.qsize() < config.concurrency * 2:
                batch = list(
                    run.questions.filter(status=RunQuestion.Status.PENDING)
                    .exclude(pk__in=attempted)
                    .select_related("item")
                    .order_by("item__position")[:ahead]
                )
                exhausted = not batch
                for prepared in _take(run, batch):
                    if isinstance(prepared, QuestionResult):
                        attempted.add(prepared.work.question)
                        _record(run, prepared, holder, outcome)
                    else:
                        attempted.add(prepared.question)
                        in_flight.add(prepared.question)
                        todo.put(prepared)
                        outstanding += 1
            if outstanding == 0 and (stopping or exhausted):
                break
            try:
                came = [results.get(timeout=0.5)]
            except queue.Empty:
                continue
            came += _drain(results, RECORD_BATCH - 1)  # what else has come meanwhile is written in the same transaction
            outstanding -= len(came)
            write(came)
            if progress and (time.monotonic() - shown >= 0.25 or outstanding == 0):
                shown = time.monotonic()
                progress(run_progress(run))
    except KeyboardInterrupt:  # a Ctrl-C the command did not turn into `interrupt` (a second one): the same, at once
        outcome.interrupted = True
        raise
    finally:
        stop.set()
        for _thread in threads:
            todo.put(None)
        if not outcome.interrupted:  # interrupted: the answers in flight are not waited for (the threads are daemons)
            for thread in threads:
                thread.join(timeout=config.timeout_seconds * (config.max_retries + 2))
        if own_client:
            chat.close()
        _release(run, holder, outcome, unanswered=in_flight, reason=interrupt_reason)
    return outcome


def _drain(results: queue.Queue[QuestionResult], limit: int | None = None) -> list[QuestionResult]:
    """The results already in the queue (`limit` at most), without waiting for more."""
    came: list[QuestionResult] = []
    while limit is None or len(came) < limit:
        try:
            came.append(results.get_nowait())
        except queue.Empty:
            break
    return came


def _take(run: EndpointRun, questions: list[RunQuestion]) -> list[QuestionWork | QuestionResult]:
    """The work of each question, counted as an attempt of it; a question out of attempts fails instead of being asked again."""
    spent = [q for q in questions if q.attempts >= MAX_QUESTION_ATTEMPTS]
    prepared = _prepare(run, [q for q in questions if q.attempts < MAX_QUESTION_ATTEMPTS])
    asked = [p.question for p in prepared if isinstance(p, QuestionWork)]
    if asked:  # committed before any request: a process that dies holding them has used an attempt
        RunQuestion.objects.filter(pk__in=asked).update(attempts=F("attempts") + 1)
    failed: list[QuestionWork | QuestionResult] = [
        QuestionResult(QuestionWork(q.pk, q.item.question_id, []), problem={"code": NOT_STORED, "attempts": q.attempts}) for q in spent
    ]
    return failed + prepared


QUESTION_FIELDS = [
    "requests",
    "tokens_in",
    "tokens_out",
    "outputs",
    "duration_ms",
    "finished_at",
    "status",
    "problem",
    "response",
    "injection_signals",
]


def _record(run: EndpointRun, result: QuestionResult, holder: _Holder, outcome: RunOutcome) -> None:
    """Write one question's result (see `_record_many`)."""
    _record_many(run, [result], holder, outcome)


def _record_many(run: EndpointRun, results: list[QuestionResult], holder: _Holder, outcome: RunOutcome) -> None:
    """Write the results that came in together, in one transaction: each question with its verdicts (or answer), or failed.

    Nothing is written when another process took the run; a question no longer pending is left as it is.
    """
    if not results:
        return
    now = timezone.now()
    written: list[QuestionResult] = []
    try:
        with transaction.atomic():
            held = EndpointRun.objects.filter(pk=run.pk, attempts=holder.attempt, status=EndpointRun.Status.RUNNING)
            # The holder's check, and the end of a stall (a question is written), in one statement.
            if not held.update(stalls=0):
                holder.lost = True
                return
            questions = {
                q.pk: q
                for q in RunQuestion.objects.select_for_update(of=("self",))
                .select_related("item")
                .filter(pk__in=[r.work.question for r in results], status=RunQuestion.Status.PENDING)
            }
            verdicts: list[JudgeVerdict] = []
            changed: list[RunQuestion] = []
            for result in results:
                q = questions.pop(result.work.question, None)
                if q is None:
                    continue  # done meanwhile (another process), or asked twice in this batch
                q.requests += result.requests
                q.tokens_in += result.tokens_in
                q.tokens_out += result.tokens_out
                q.outputs = [*q.outputs, *result.outputs]
                q.duration_ms, q.finished_at = result.duration_ms, now
                if result.work.injection is not None:
                    q.injection_signals = result.work.injection
                if result.ok:
                    if run.kind == EndpointRun.Kind.JUDGE:
                        verdicts += _verdicts_of(run, result)
                    else:
                        q.response = _store_answer(run, q, result)
                    q.status, q.problem = RunQuestion.Status.DONE, None
                else:
                    q.status, q.problem = RunQuestion.Status.FAILED, result.problem
                changed.append(q)
                written.append(result)
            JudgeVerdict.objects.bulk_create(verdicts)
            done = [r for r in written if r.ok]
            if run.judge_run is not None and done:
                JudgeRun.objects.filter(pk=run.judge_run.pk).update(
                    question_count=F("question_count") + len(done), verdict_count=F("verdict_count") + len(verdicts)
                )
                forget_scores(runs=[run.judge_run.pk])  # the run's stored scores miss these verdicts
            RunQuestion.objects.bulk_update(changed, QUESTION_FIELDS)
    except Exception as exc:  # a collision, or a result the database refused (a number out of range, a character it cannot hold…)
        if len(results) > 1:  # find the one it refused; the others are written
            for result in results:
                _record_many(run, [result], holder, outcome)
        elif isinstance(exc, IntegrityError):
            # Its verdicts or answer were stored meanwhile by another process: the question is that one's, done.
            logger.warning("run %s: question %s was stored by another process", run.pk, results[0].work.question_id)
        else:
            _record_unstorable(run, results[0], holder, outcome, exc)
        return
    for result in written:
        if result.ok:
            outcome.finished += 1
        else:
            outcome.failed.append(result.work.question_id)


def _record_unstorable(run: EndpointRun, result: QuestionResult, holder: _Holder, outcome: RunOutcome, error: Exception) -> None:
    """A result the database refused: its requests are counted, and at MAX_QUESTION_ATTEMPTS the question fails with the reason.

    Before the limit it stays pending, for the next taking of the run. What was refused goes to the log, not to the page.
    """
    logger.error("run %s: the result of question %s could not be stored", run.pk, result.work.question_id, exc_info=error)
    try:
        with transaction.atomic():
            held = EndpointRun.objects.filter(pk=run.pk, attempts=holder.attempt, status=EndpointRun.Status.RUNNING)
            if not held.exists():
                holder.lost = True
                return
            q = RunQuestion.objects.select_for_update().filter(pk=result.work.question, status=RunQuestion.Status.PENDING).first()
            if q is None:
                return
            q.requests += result.requests
            fields = ["requests"]
            if q.attempts >= MAX_QUESTION_ATTEMPTS:
                q.status, q.problem = RunQuestion.Status.FAILED, {"code": NOT_STORED, "attempts": q.attempts}
                q.duration_ms, q.finished_at = result.duration_ms, timezone.now()
                fields += ["status", "problem", "duration_ms", "finished_at"]
                held.update(stalls=0)
            q.save(update_fields=fields)
    except Exception:  # the database itself is failing: the question stays pending, its attempt counted
        logger.exception("run %s: question %s could not be marked either", run.pk, result.work.question_id)
        return
    if q.status == RunQuestion.Status.FAILED:
        outcome.failed.append(result.work.question_id)


def _verdicts_of(run: EndpointRun, result: QuestionResult) -> list[JudgeVerdict]:
    """One verdict per criterion, in rubric order, with the judge's reason and what it was made with."""
    verdicts, response_id = result.verdicts, result.work.response_id
    assert verdicts is not None and response_id is not None and run.judge_run is not None and run.template_revision is not None
    revision = run.template_revision
    common = {
        "endpoint": run.endpoint.name,
        "judge_model": run.endpoint.model,
        "template": revision.template.name,
        "template_revision": revision.revision,
        "shape": verdicts.shape,
        "requests": result.requests,
    }
    return [
        JudgeVerdict(
            run=run.judge_run,
            response_id=response_id,
            criterion_id=criterion_id,
            hit=bool(hit),
            rationale=reason,
            raw={"index": i, "value": hit, **common},
        )
        for i, (criterion_id, hit, reason) in enumerate(zip(result.work.criteria, verdicts.hits, verdicts.reasons))
    ]


def _store_answer(run: EndpointRun, q: RunQuestion, result: QuestionResult) -> ModelResponse:
    """Store the answer as the model's response, as an import would; a response stored meanwhile (an import) is kept instead."""
    assert result.answer is not None
    existing = ModelResponse.objects.filter(dataset_id=run.version.dataset_id, model=run.model, question_id=q.item.question_id).first()
    if existing is not None:
        return existing
    last = result.outputs[-1] if result.outputs else {}
    return ModelResponse.objects.create(
        dataset_id=run.version.dataset_id,
        question_id=q.item.question_id,
        model=run.model,
        text=result.answer,
        metadata={
            "generated_by": run.endpoint.name,
            "endpoint_model": run.endpoint.model,
            "run": run.pk,
            "finish_reason": last.get("finish_reason", ""),
            "tokens_in": result.tokens_in,
            "tokens_out": result.tokens_out,
        },
        imported_for=run.version,
    )


def _release(
    run: EndpointRun, holder: _Holder, outcome: RunOutcome, *, unanswered: set[int] | frozenset[int] = frozenset(), reason: str = ""
) -> None:
    """Leave the run finished, cancelled, or waiting for the next worker (nothing when another process took it).

    An interrupted taking (Ctrl-C) leaves it cancelled with `reason`, and gives back the attempt of each question
    it asked without waiting for the answer (`unanswered`): it was not a failure to store it.
    """
    with transaction.atomic():
        current = (
            EndpointRun.objects.select_for_update().filter(pk=run.pk, attempts=holder.attempt, status=EndpointRun.Status.RUNNING).first()
        )
        if current is None:
            outcome.lost = True
            outcome.status = EndpointRun.objects.filter(pk=run.pk).values_list("status", flat=True).first() or ""
            return
        if outcome.interrupted and unanswered:
            current.questions.filter(pk__in=unanswered, status=RunQuestion.Status.PENDING, attempts__gt=0).update(
                attempts=F("attempts") - 1
            )
        pending = current.questions.filter(status=RunQuestion.Status.PENDING).exists()
        if current.cancel_requested:
            _finish(current, EndpointRun.Status.CANCELLED)
        elif not pending:
            _finish(current, EndpointRun.Status.FINISHED)
        elif outcome.interrupted:
            _finish(current, EndpointRun.Status.CANCELLED, reason)
        else:  # the deadline of this taking, or it broke off: the next worker continues
            # Its stalls stay as they are: only a written question ends a stall, so a taking that keeps breaking
            # off stops the run after MAX_STALLS instead of handing it out forever.
            current.status, current.locked_until, current.holder = EndpointRun.Status.PENDING, None, ""
            current.save(update_fields=["status", "locked_until", "holder"])
            enqueue(current)
        outcome.status = current.status
        outcome.run = current


def run_in_worker(*, run_id: int) -> RunOutcome | None:
    """The django-q2 task: take the run and work on it for at most 80% of the task timeout."""
    run = claim_run(run_id=run_id, holder=holder_name("worker"))
    if run is None:
        return None
    timeout = float(str(settings.Q_CLUSTER.get("timeout") or 600))
    return execute_run(run, deadline=time.monotonic() + max(5.0, timeout * 0.8))


def release_held(*, run: EndpointRun, reason: str = "") -> None:
    """A foreground command that is interrupted leaves the run it holds cancelled (rerun the command to continue)."""
    with transaction.atomic():
        current = (
            EndpointRun.objects.select_for_update().filter(pk=run.pk, attempts=run.attempts, status=EndpointRun.Status.RUNNING).first()
        )
        if current is not None:
            _finish(current, EndpointRun.Status.CANCELLED, reason)


def sweep_endpoint_runs() -> int:
    """Hand again to the broker every run a worker should be running but is not; returns how many."""
    return len(leases.sweep(EndpointRun.objects.all(), task=RUN_TASK, lease=_lease(), task_name=lambda pk: f"swept-endpoint-run-{pk}"))
