"""One bulk pass fills every open slot some eligible expert can take, and says why the rest stay open."""

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Assignment, CampaignResponse, ExpertProfile
from annotation.services.assignment import bulk_assign

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def roomy():
    ExpertProfile.objects.update(capacity=100)


def released_work(campaign, expert, n: int) -> list[int]:
    """Give the expert `n` responses they then gave back: load in this campaign, no live slot."""
    first = list(CampaignResponse.objects.filter(campaign=campaign).order_by("-order_key").values_list("pk", flat=True)[:n])
    Assignment.objects.bulk_create([Assignment(campaign_response_id=pk, expert=expert, status=Assignment.Status.RELEASED) for pk in first])
    return first


@pytest.fixture
def lopsided(cast):
    """Three experts, k = 3, and one of them three responses ahead of the others in load.

    The old rule took candidates only within two of the lightest load, so the first response
    it filled got two experts, not three, and a second run added the missing one.
    """
    campaign = demo_campaign(cast)
    roomy()
    given_back = released_work(campaign, cast.experts[2], 3)
    return campaign, given_back


def test_one_pass_fills_every_slot_an_expert_beyond_the_slack_can_take(lopsided):
    campaign, given_back = lopsided
    result = bulk_assign(campaign=campaign)
    assert result.made == 18 * 3 - 3
    assert bulk_assign(campaign=campaign).made == 0  # a second run finds nothing left to fill
    live = Counter(Assignment.objects.filter(status=Assignment.Status.RESERVED).values_list("campaign_response_id", flat=True))
    assert {pk for pk, n in live.items() if n < 3} == set(given_back)


def test_a_slot_only_an_expert_who_had_the_response_could_take_is_reported_with_its_reason(lopsided):
    campaign, given_back = lopsided
    result = bulk_assign(campaign=campaign)
    assert sorted(slot.campaign_response_id for slot in result.unfilled) == sorted(given_back)
    assert {(slot.need, slot.reason) for slot in result.unfilled} == {(1, "already_has_it")}
    assert result.unfilled_slots == 3 and result.by_reason() == {"already_has_it": 3}
    assert all(slot.question_id.startswith("dm") for slot in result.unfilled)


def test_hard_items_with_no_expert_of_the_tier_are_reported_as_such(cast):
    campaign = demo_campaign(cast, overlap=1, min_tier_for_hard=2)
    roomy()
    result = bulk_assign(campaign=campaign)
    hard = CampaignResponse.objects.filter(campaign=campaign, item__difficulty="hard").count()
    assert hard and result.made == 18 - hard
    assert result.by_reason() == {"tier": hard}
    assert "tier 2" in result.unfilled[0].detail


def test_slots_left_when_everyone_is_at_capacity_say_so(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=4)
    result = bulk_assign(campaign=campaign)
    assert result.made == 3 * 4
    assert result.by_reason() == {"capacity": 18 * 3 - 12}


def test_the_command_the_page_and_the_api_show_the_unfilled_slots(lopsided, cast, client_for):
    campaign, given_back = lopsided
    out = StringIO()
    call_command("assign_campaign", campaign.name, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == str(18 * 3 - 3)
    assert sum(line.startswith("unfilled: response #") for line in lines) == 3 and "already has it" in lines[1]
    Assignment.objects.filter(status=Assignment.Status.RESERVED).delete()
    page = client_for(cast.admin).post(reverse("annotation:campaign_bulk_assign", args=[campaign.pk]), follow=True).content.decode()
    assert "3 open slots of 3 responses stay unfilled: every eligible expert already has it" in page
    Assignment.objects.filter(status=Assignment.Status.RESERVED).delete()
    body = client_for(cast.admin).post(f"{API}/manage/campaigns/{campaign.pk}/bulk-assign/").json()
    assert body["assigned"] == 18 * 3 - 3 and body["unfilled_slots"] == 3
    assert {row["campaign_response"] for row in body["unfilled"]} == set(given_back)
    assert {row["reason"] for row in body["unfilled"]} == {"already_has_it"}


def test_an_admin_who_is_an_expert_of_the_campaign_learns_only_how_many_slots_stay_open(lopsided, cast, client_for):
    from django.contrib.auth.models import Group

    campaign, given_back = lopsided
    cast.admin.groups.add(Group.objects.get(name="expert"))
    campaign.experts.add(cast.admin)
    # Not qualified for it, so bulk assignment leaves them out: the figures stay those of the three.
    body = client_for(cast.admin).post(f"{API}/manage/campaigns/{campaign.pk}/bulk-assign/").json()
    assert body["unfilled_slots"] == 3 and body["unfilled"] == []
    Assignment.objects.filter(status=Assignment.Status.RESERVED).delete()
    page = client_for(cast.admin).post(reverse("annotation:campaign_bulk_assign", args=[campaign.pk]), follow=True).content.decode()
    assert "3 open slots of 3 responses stay unfilled" in page
    assert not any(f"(#{pk})" in page for pk in given_back)


def test_a_slot_left_open_because_a_staff_view_showed_the_response_says_so(cast):
    from heartbench_core.models import StaffExposure

    campaign = demo_campaign(cast)
    roomy()
    entry = CampaignResponse.objects.filter(campaign=campaign).order_by("order_key").first()
    StaffExposure.objects.create(user=cast.experts[0], response_id=entry.response_id, via="adjudication")
    result = bulk_assign(campaign=campaign)
    assert result.made == 18 * 3 - 1
    assert [(slot.campaign_response_id, slot.need, slot.reason) for slot in result.unfilled] == [(entry.pk, 1, "staff_view")]


def test_a_dimension_no_expert_is_qualified_for_is_named(cast):
    from annotation.models import Qualification

    campaign = demo_campaign(cast, requires_qualification=True, qualification_per_dimension=True)
    # Qualified for one dimension only: every rubric also asks for others, so no response has a taker.
    Qualification.objects.filter(expert__in=cast.experts).update(dimension="Emotion")
    roomy()
    result = bulk_assign(campaign=campaign)
    assert result.unfilled and {slot.reason for slot in result.unfilled} == {"qualification"}
    assert all("no expert qualified for" in slot.detail and "Emotion" not in slot.detail for slot in result.unfilled)
    assert result.made + result.unfilled_slots == 18 * 3
