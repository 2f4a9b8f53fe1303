"""Pausing or closing a campaign, or an expert being paused or away, stops their pre-assigned work; work submitted meanwhile is marked."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.models import Assignment, Campaign, ExpertProfile, Judgment
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import set_campaign_status
from annotation.services.experts import set_own_availability
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


def submit(assignment: Assignment) -> Assignment:
    """Judge every criterion and submit through the workspace's services, as the judging page does."""
    criteria = assignment.campaign_response.item.criteria.order_by("position")
    entries = [DraftEntry(criterion_id=c.pk, rationale=f"A considered rationale #{c.position}", hit=True) for c in criteria]
    save_draft(assignment=assignment, expert=assignment.expert, entries=entries)
    return submit_assignment(assignment=assignment, expert=assignment.expert)


@pytest.fixture
def preassigned(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=3)
    bulk_assign(campaign=campaign)
    assert Assignment.objects.filter(expert=cast.expert, expires_at__isnull=True).count() == 3
    return campaign


@pytest.mark.parametrize("status", [Campaign.Status.PAUSED, Campaign.Status.CLOSED])
def test_a_paused_or_closed_campaign_serves_no_pre_assigned_work(preassigned, cast, status):
    set_campaign_status(campaign=preassigned, status=status, reason="because", by=cast.admin)
    assert assign_next_response(expert=cast.expert, campaign=preassigned) is None
    set_campaign_status(campaign=preassigned, status=Campaign.Status.ACTIVE, by=cast.admin)
    served = assign_next_response(expert=cast.expert, campaign=preassigned)
    assert served is not None and served.expires_at is None


@pytest.mark.parametrize("availability", ["paused", "away"])
def test_an_expert_paused_or_away_is_served_none_of_their_pre_assigned_work(preassigned, cast, availability):
    ExpertProfile.objects.filter(user=cast.expert).update(availability=availability)
    assert assign_next_response(expert=cast.expert, campaign=preassigned) is None
    ExpertProfile.objects.filter(user=cast.expert).update(availability="active")
    assert assign_next_response(expert=cast.expert, campaign=preassigned) is not None


def test_a_reservation_already_pulled_may_still_be_finished_after_a_pause(cast):
    campaign = demo_campaign(cast)
    pulled = assign_next_response(expert=cast.expert, campaign=campaign)
    assert pulled.expires_at is not None
    set_campaign_status(campaign=campaign, status=Campaign.Status.PAUSED, reason="audit")
    assert assign_next_response(expert=cast.expert, campaign=campaign) == pulled


def test_pre_assigned_work_on_hold_is_not_submitted_and_its_draft_is_kept(preassigned, cast):
    mine = list(Assignment.objects.filter(expert=cast.expert).select_related("campaign_response__campaign", "expert"))
    assert not submit(mine[0]).submitted_while_paused
    set_own_availability(user=cast.expert, availability="away", reason="holiday")
    with pytest.raises(ValidationError) as refused:
        submit(mine[1])
    assert "on hold" in str(refused.value) and "holiday" in str(refused.value)
    # The draft it wrote is kept, and submits once the expert is back.
    assert Judgment.objects.filter(assignment=mine[1]).exclude(rationale="").count() == mine[1].campaign_response.item.criteria.count()
    set_own_availability(user=cast.expert, availability="active")
    assert not submit(mine[1]).submitted_while_paused
    set_campaign_status(campaign=preassigned, status=Campaign.Status.PAUSED, reason="rubric fix")
    with pytest.raises(ValidationError, match="rubric fix"):
        submit(mine[2])
    assert Assignment.objects.get(pk=mine[2].pk).status == Assignment.Status.RESERVED


def test_a_pulled_reservation_submitted_while_away_or_while_the_campaign_is_paused_is_marked(cast):
    campaign = demo_campaign(cast)
    first = assign_next_response(expert=cast.expert, campaign=campaign)
    assert not submit(first).submitted_while_paused
    pulled = assign_next_response(expert=cast.expert, campaign=campaign)
    set_own_availability(user=cast.expert, availability="away", reason="holiday")
    assert submit(pulled).submitted_while_paused
    set_own_availability(user=cast.expert, availability="active")
    again = assign_next_response(expert=cast.expert, campaign=campaign)
    set_campaign_status(campaign=campaign, status=Campaign.Status.PAUSED, reason="rubric fix")
    assert submit(again).submitted_while_paused
    flags = dict(Assignment.objects.filter(expert=cast.expert).values_list("pk", "submitted_while_paused"))
    assert flags == {first.pk: False, pulled.pk: True, again.pk: True}


def test_the_home_and_the_judging_page_say_why_pre_assigned_work_waits(preassigned, cast, client_for):
    mine = Assignment.objects.filter(expert=cast.expert).first()
    set_campaign_status(campaign=preassigned, status=Campaign.Status.PAUSED, reason="rubric fix")
    client = client_for(cast.expert)
    home = client.get(reverse("annotation:home")).content.decode()
    assert "on hold" in home and "rubric fix" in home
    page = client.get(reverse("annotation:judge", args=[mine.public_id])).content.decode()
    assert "This work is on hold" in page and "rubric fix" in page
    assert 'class="primary ws-submit" disabled' in page
    api = client.get(f"/api/v1/annotation/assignments/{mine.public_id}/").json()
    assert "rubric fix" in api["on_hold"]
    set_campaign_status(campaign=preassigned, status=Campaign.Status.ACTIVE, by=cast.admin)
    assert "on hold" not in client.get(reverse("annotation:home")).content.decode()
    assert client.get(f"/api/v1/annotation/assignments/{mine.public_id}/").json()["on_hold"] == ""
