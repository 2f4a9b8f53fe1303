"""Pausing, closing and reactivating a campaign, and releasing an assignment, ask for a confirmation; a pause or close says why."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from annotation.models import Assignment, Campaign, ExpertProfile
from annotation.services.assignment import bulk_assign

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def test_a_pause_asks_first_needs_a_reason_and_keeps_it_for_the_experts(cast, client_for):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=2)
    bulk_assign(campaign=campaign)
    c = client_for(cast.admin)
    url = reverse("annotation:campaign_status", args=[campaign.pk])
    asked = c.post(url, {"status": "paused"})
    html = asked.content.decode()
    assert asked.status_code == 200 and "Active → Paused?" in html and "6 open responses" in html
    assert Campaign.objects.get(pk=campaign.pk).status == "active"
    no_reason = c.post(url, {"status": "paused", "confirm": "True", "reason": "  "})
    assert no_reason.status_code == 400 and "Say why" in no_reason.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).status == "active"
    c.post(url, {"status": "paused", "confirm": "True", "reason": "Rubric fix under way; back on Monday"})
    campaign.refresh_from_db()
    assert (campaign.status, campaign.status_reason) == ("paused", "Rubric fix under way; back on Monday")
    assert "Rubric fix under way" in c.get(reverse("annotation:campaign", args=[campaign.pk])).content.decode()
    entry = LogEntry.objects.get(object_id=str(campaign.pk))
    assert entry.user == cast.admin and "active → paused" in entry.change_message and "Rubric fix" in entry.change_message
    # Reactivating asks too, needs no reason, and clears the old one.
    assert "Paused → Active?" in c.post(url, {"status": "active"}).content.decode()
    c.post(url, {"status": "active", "confirm": "True"})
    campaign.refresh_from_db()
    assert (campaign.status, campaign.status_reason) == ("active", "")


def test_the_api_needs_a_reason_to_close(cast, client_for):
    campaign = demo_campaign(cast)
    c = client_for(cast.admin)
    url = f"{API}/manage/campaigns/{campaign.pk}/status/"
    r = c.post(url, {"status": "closed"}, content_type="application/json")
    assert r.status_code == 400 and "reason" in str(r.json())
    r = c.post(url, {"status": "closed", "reason": "Enough judgments"}, content_type="application/json")
    assert r.status_code == 200 and r.json()["status_reason"] == "Enough judgments"
    assert c.post(url, {"status": "bogus"}, content_type="application/json").status_code == 400


def test_a_release_asks_first_and_says_what_the_expert_loses(cast, client_for):
    campaign = demo_campaign(cast, overlap=1)
    bulk_assign(campaign=campaign)
    a = Assignment.objects.select_related("campaign_response__item").first()
    c = client_for(cast.admin)
    url = reverse("annotation:assignment_release", args=[a.public_id])
    asked = c.post(url)
    assert asked.status_code == 200 and a.campaign_response.item.question_id in asked.content.decode()
    a.refresh_from_db()
    assert a.status == "reserved"
    c.post(url, {"confirm": "yes"})
    a.refresh_from_db()
    assert a.status == "released"
