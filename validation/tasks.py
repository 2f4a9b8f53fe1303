"""Background jobs of the validation app (django-q2): thin wrappers around services."""

from django.contrib.auth import get_user_model

from annotation.models import Campaign
from validation.services.reports import create_agreement_report


def compute_agreement_report(campaign_id: int, *, requested_by_id: int | None = None, trigger: str = "schedule", **options) -> int:
    """Compute and store one agreement report; returns its id (recorded as the task's result)."""
    campaign = Campaign.objects.select_related("version__dataset").get(pk=campaign_id)
    user = get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id else None
    return create_agreement_report(campaign=campaign, requested_by=user, trigger=trigger, **options).pk


GOLDEN_REFRESH_KEY = "validation:golden-refresh-pending:{}"


def refresh_golden_standard(campaign_id: int) -> int:
    """Bring one campaign's golden labels up to date; returns how many labels changed."""
    from django.core.cache import cache

    from validation.services.golden import refresh_golden_labels

    # Clear the pending mark first: a submission arriving during the refresh queues another one.
    cache.delete(GOLDEN_REFRESH_KEY.format(campaign_id))
    campaign = Campaign.objects.select_related("version__dataset").get(pk=campaign_id)
    outcome = refresh_golden_labels(campaign=campaign)
    return outcome.created + outcome.updated + outcome.deleted


def queue_golden_refresh(sender, assignment, **kwargs) -> bool:
    """On a submission that completes a response (k judgments), queue one refresh of its campaign's golden labels.

    At most one refresh per campaign waits in the queue at a time, so a burst of submissions
    costs one campaign-wide refresh, not one each.
    """
    from django.core.cache import cache
    from django_q.tasks import async_task

    from annotation.models import Assignment

    entry = assignment.campaign_response
    campaign = entry.campaign
    if campaign.kind != Campaign.Kind.BLIND_TEST:
        return False
    submitted = Assignment.objects.filter(campaign_response_id=entry.pk, status=Assignment.Status.SUBMITTED).count()
    if submitted < campaign.overlap:
        return False
    if not cache.add(GOLDEN_REFRESH_KEY.format(campaign.pk), 1, timeout=600):
        return False
    async_task("validation.tasks.refresh_golden_standard", campaign.pk, task_name=f"golden-refresh-{campaign.pk}")
    return True
