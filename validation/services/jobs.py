"""Background work of the validation app: agreement reports and golden-label refreshes.

Each is a `BackgroundJob` row, durable by the platform's one mechanism for background work
(heartbench_core/services/leases.py): recorded in the request's transaction and sent to the broker
after commit, taken under a lease (longer than django-q2's task timeout), finished once, swept every
minute. A worker keeps the row locked until the result and the job's completion are committed
together, so a report is stored once however often its id is delivered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Campaign
from heartbench_core.services import leases
from validation.models import BackgroundJob

if TYPE_CHECKING:
    from heartbench_core.models import User

logger = logging.getLogger(__name__)

RUN_TASK = "validation.tasks.run_background_job"
MAX_ATTEMPTS = 3  # a job whose worker dies this often is failed rather than retried for ever
KEEP_FINISHED_REFRESHES = timedelta(days=7)


def lease() -> timedelta:
    """How long a worker holds a job: django-q2 stops a task after its timeout, so a lease past it is never cut short."""
    timeout = settings.Q_CLUSTER.get("timeout", 600)
    if not isinstance(timeout, int | str):  # the settings parse Q_TIMEOUT as a whole number of seconds
        raise ImproperlyConfigured(f"Q_CLUSTER['timeout'] must be a number of seconds, not {timeout!r}")
    return timedelta(seconds=int(timeout) + 10)


def enqueue(job: BackgroundJob) -> None:
    """Hand the job's id to the broker once the current transaction commits (the sweep retries if this is lost)."""
    leases.send_after_commit(BackgroundJob.objects.all(), job.pk, task=RUN_TASK, task_name=f"{job.kind}-{job.campaign_id}-{job.pk}")


def record_job(
    *, kind: str, campaign: Campaign, parameters: dict[str, Any] | None = None, requested_by: User | None = None, trigger: str = "page"
) -> BackgroundJob:
    """Record a job in the current transaction and queue it after commit."""
    job = BackgroundJob.objects.create(
        kind=kind, campaign=campaign, parameters=parameters or {}, requested_by=requested_by, trigger=trigger
    )
    enqueue(job)
    return job


def request_golden_refresh(*, campaign: Campaign, trigger: str = "submission") -> BackgroundJob | None:
    """Record one refresh of a campaign's golden labels, unless one is already waiting (None then)."""
    kind = BackgroundJob.Kind.GOLDEN_REFRESH
    if BackgroundJob.objects.filter(campaign=campaign, kind=kind, status=BackgroundJob.Status.PENDING).exists():
        return None
    try:
        with transaction.atomic():
            return record_job(kind=kind, campaign=campaign, trigger=trigger)
    except IntegrityError:  # another process recorded the waiting refresh between the check and the insert
        return None


def _run_agreement_report(job: BackgroundJob) -> None:
    from validation.services.agreement_reports import create_agreement_report

    job.report = create_agreement_report(campaign=job.campaign, requested_by=job.requested_by, trigger=job.trigger, **job.parameters)


def _run_golden_refresh(job: BackgroundJob) -> None:
    from validation.models import QueueSummary
    from validation.services.golden import refresh_golden_labels
    from validation.services.queue_summary import store_queue_summary

    refresh_golden_labels(campaign=job.campaign)
    if QueueSummary.objects.filter(campaign=job.campaign).exists():  # the dashboard's queue figures, once it has been opened
        store_queue_summary(campaign=job.campaign)


RUNNERS: dict[str, Callable[[BackgroundJob], None]] = {
    BackgroundJob.Kind.AGREEMENT_REPORT: _run_agreement_report,
    BackgroundJob.Kind.GOLDEN_REFRESH: _run_golden_refresh,
}


def _finish(job: BackgroundJob, status: str, error: str = "") -> None:
    job.status, job.last_error, job.locked_until, job.finished_at = status, error, None, timezone.now()
    job.save(update_fields=["status", "last_error", "locked_until", "finished_at", "report"])


def describe(error: ValidationError) -> str:
    """A validation error as one line naming each field."""
    if hasattr(error, "error_dict"):
        return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items())
    return " ".join(error.messages)


def claim_job(*, job_id: int) -> BackgroundJob | None:
    """Take a pending job, or one whose worker's lease expired, under a new lease; None if done or held by a live worker."""
    now = timezone.now()
    with transaction.atomic():
        job = leases.take(BackgroundJob.objects.all(), job_id, now)
        if job is None:
            return None
        if job.attempts >= MAX_ATTEMPTS:
            _finish(
                job,
                BackgroundJob.Status.FAILED,
                job.last_error or _("The worker stopped before finishing %(n)d times; request it again.") % {"n": job.attempts},
            )
            return None
        job.status, job.attempts, job.locked_until, job.started_at = BackgroundJob.Status.RUNNING, job.attempts + 1, now + lease(), now
        job.save(update_fields=["status", "attempts", "locked_until", "started_at"])
    return job


def run_background_job(*, job_id: int) -> BackgroundJob | None:
    """Run one job to completion, exactly once; returns it, or None when there was nothing to do."""
    job = claim_job(job_id=job_id)
    if job is None:
        return None
    attempt = job.attempts
    try:
        with transaction.atomic():
            # Held until the result and the job's completion commit together: while this worker lives
            # no other takes the job, and if it dies the database drops the lock and the work with it.
            job = (
                BackgroundJob.objects.select_for_update(of=("self",))
                .select_related("campaign__version__dataset", "requested_by")
                .get(pk=job_id)
            )
            if job.status != BackgroundJob.Status.RUNNING or job.attempts != attempt:
                return None  # taken again after this worker's lease expired
            RUNNERS[job.kind](job)
            _finish(job, BackgroundJob.Status.DONE)
    except ValidationError as exc:  # the request cannot succeed as it stands (no judge verdicts, a bad parameter)
        job.refresh_from_db()
        _finish(job, BackgroundJob.Status.FAILED, describe(exc))
    except Exception as exc:  # anything else may be passing (a dropped connection): retry up to MAX_ATTEMPTS
        logger.exception("background job %s failed", job_id)
        job.refresh_from_db()
        error = f"{type(exc).__name__}: {exc}"
        if job.attempts >= MAX_ATTEMPTS:
            _finish(job, BackgroundJob.Status.FAILED, error)
        else:
            # Not sent: the next sweep (within a minute) sends it again.
            job.status, job.last_error, job.locked_until, job.enqueued_at = BackgroundJob.Status.PENDING, error, None, None
            job.save(update_fields=["status", "last_error", "locked_until", "enqueued_at"])
    return job


def sweep_background_jobs() -> int:
    """Queue again every job a worker should be running but is not; returns how many were queued."""
    ids = leases.sweep(BackgroundJob.objects.all(), task=RUN_TASK, lease=lease(), task_name=lambda pk: f"swept-job-{pk}")
    BackgroundJob.objects.filter(
        kind=BackgroundJob.Kind.GOLDEN_REFRESH, status=BackgroundJob.Status.DONE, finished_at__lt=timezone.now() - KEEP_FINISHED_REFRESHES
    ).delete()
    return len(ids)
