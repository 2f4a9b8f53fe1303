"""Background jobs of the validation app (django-q2): thin wrappers around services."""

from django.contrib.auth import get_user_model

from annotation.models import Campaign
from validation.services.reports import create_agreement_report


def compute_agreement_report(campaign_id: int, *, requested_by_id: int | None = None, trigger: str = "schedule", **options) -> int:
    """Compute and store one agreement report; returns its id (recorded as the task's result)."""
    campaign = Campaign.objects.select_related("version__dataset").get(pk=campaign_id)
    user = get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id else None
    return create_agreement_report(campaign=campaign, requested_by=user, trigger=trigger, **options).pk
