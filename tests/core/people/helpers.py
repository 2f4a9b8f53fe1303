"""Shared pieces of the People tests: an invitation's link out of the sent e-mail, and open work of an expert."""

import re
from datetime import timedelta

from django.core import mail
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse
from annotation.services.campaigns import create_campaign
from tests.factories import demo_responses, demo_version

MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


def link_in(message) -> str:
    """The invitation path (without the host) in a sent e-mail."""
    found = re.search(r"https?://[^/\s]+(/accounts/invite/[^\s]+/)", message.body)
    assert found, message.body
    return found.group(1)


def last_link() -> str:
    return link_in(mail.outbox[-1])


def campaign_with_open_work(cast):
    """A campaign where the first expert holds one open reservation and one submitted-like (released) row is absent."""
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Spring blind test",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
    ).campaign
    entries = list(CampaignResponse.objects.filter(campaign=campaign).order_by("order_key")[:3])
    now = timezone.now()
    open_ = Assignment.objects.create(campaign_response=entries[0], expert=cast.expert, expires_at=now + timedelta(hours=2))
    preassigned = Assignment.objects.create(campaign_response=entries[1], expert=cast.expert, expires_at=None)
    expired = Assignment.objects.create(campaign_response=entries[2], expert=cast.expert, expires_at=now - timedelta(minutes=1))
    others = Assignment.objects.create(campaign_response=entries[0], expert=cast.experts[1], expires_at=now + timedelta(hours=2))
    return campaign, [open_, preassigned], expired, others
