"""Background jobs of the validation app (django-q2): thin wrappers around services."""

from __future__ import annotations

from typing import Any, Unpack

from django.contrib.auth import get_user_model

from annotation.models import Assignment, Campaign
from validation.services.agreement_reports import ReportOptions, create_agreement_report


def compute_agreement_report(
    campaign_id: int, *, requested_by_id: int | None = None, trigger: str = "schedule", **options: Unpack[ReportOptions]
) -> int:
    """Compute and store one agreement report now; returns its id (requests go through `run_background_job`)."""
    campaign = Campaign.objects.select_related("version__dataset").get(pk=campaign_id)
    user = get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id else None
    return create_agreement_report(campaign=campaign, requested_by=user, trigger=trigger, **options).pk


def run_background_job(job_id: int) -> str | None:
    """Run one recorded job (a requested report, a golden-label refresh); returns its final status."""
    from validation.services.jobs import run_background_job as run

    job = run(job_id=job_id)
    return job.status if job else None


def sweep_background_jobs() -> int:
    """Scheduled every minute: queue again the jobs whose worker died or whose message was lost."""
    from validation.services.jobs import sweep_background_jobs as sweep

    return sweep()


def refresh_golden_standard(campaign_id: int) -> int:
    """Bring one campaign's golden labels up to date; returns how many labels changed (kept for messages queued before jobs were recorded)."""
    from validation.services.golden import refresh_golden_labels

    campaign = Campaign.objects.select_related("version__dataset").get(pk=campaign_id)
    outcome = refresh_golden_labels(campaign=campaign)
    return outcome.created + outcome.updated + outcome.deleted


def forget_campaign_scores(sender: object, instance: Campaign, **kwargs: Any) -> int:
    """A deleted campaign's consensus scores go with it (its id could come back with a restored archive)."""
    from heartbench_core.services.stored_scores import forget_scores

    return forget_scores(campaigns=[instance.pk])


def queue_golden_refresh(sender: object, assignment: Assignment, **kwargs: Any) -> bool:
    """On a submission that completes a response (k judgments), record one refresh of its campaign's golden labels.

    At most one refresh per campaign waits at a time (a database constraint), so a burst of
    submissions costs one campaign-wide refresh, not one each.
    """
    from validation.services.jobs import request_golden_refresh

    entry = assignment.campaign_response
    campaign = entry.campaign
    if campaign.kind != Campaign.Kind.BLIND_TEST:
        return False
    submitted = Assignment.objects.filter(campaign_response_id=entry.pk, status=Assignment.Status.SUBMITTED).count()
    if submitted < campaign.overlap:
        return False
    from validation.models import QueueSummary

    QueueSummary.objects.filter(campaign=campaign).update(stale=True)  # the refresh recomputes it
    return request_golden_refresh(campaign=campaign) is not None
