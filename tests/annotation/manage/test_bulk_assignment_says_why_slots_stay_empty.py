"""Bulk pre-assignment says how many open slots it left empty and why, per reason; unknown specialties are refused by name."""

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.models import Assignment, ExpertProfile
from annotation.services.assignment import bulk_assign

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def test_the_summary_counts_the_empty_slots_per_reason_largest_first(cast):
    campaign = demo_campaign(cast, requires_qualification=True, qualification_per_dimension=True)
    ExpertProfile.objects.update(capacity=4)
    result = bulk_assign(campaign=campaign)
    assert result.open_slots == 18 * 3
    assert result.made == 3 * 4 and result.unfilled_slots == 18 * 3 - 12
    assert (
        result.summary() == f"{18 * 3 - 12} of {18 * 3} open slots were left empty: {18 * 3 - 12} with every eligible expert at capacity."
    )


def test_two_reasons_are_counted_apart(cast):
    from annotation.models import CampaignResponse

    campaign = demo_campaign(cast, overlap=1, min_tier_for_hard=2)
    ExpertProfile.objects.update(capacity=1)
    hard = CampaignResponse.objects.filter(campaign=campaign, item__difficulty="hard").count()
    result = bulk_assign(campaign=campaign)
    assert hard and result.made == 3
    assert result.by_reason() == {"tier": hard, "capacity": 18 - hard - 3}
    parts = sorted(
        [(hard, "of hard items with no expert of the tier needed"), (15 - hard, "with every eligible expert at capacity")],
        key=lambda p: -p[0],
    )
    assert result.summary() == f"15 of 18 open slots were left empty: {parts[0][0]} {parts[0][1]}, {parts[1][0]} {parts[1][1]}."


def test_every_slot_filled_leaves_no_summary(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=100)
    result = bulk_assign(campaign=campaign)
    assert result.unfilled_slots == 0 and result.summary() == ""


def test_unknown_specialties_are_refused_naming_the_expert_and_the_value(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.filter(user=cast.experts[1]).update(specialties=["Emotion", "Grief counseling", "情绪理解"])
    with pytest.raises(ValidationError) as exc:
        bulk_assign(campaign=campaign)
    message = exc.value.message_dict["specialties"][0]
    assert f"{cast.experts[1].username}: Grief counseling." in message and "情绪理解" not in message
    assert not Assignment.objects.exists()


def test_a_scene_of_the_version_an_english_ability_name_and_a_dimension_are_known(cast):
    from heartbench_core.models import Item

    campaign = demo_campaign(cast)
    scene = Item.objects.filter(version=campaign.version).exclude(primary_scene="").values_list("primary_scene", flat=True).first()
    ExpertProfile.objects.filter(user=cast.experts[1]).update(specialties=[scene, "Warmth", "Morality", "温暖"])
    assert bulk_assign(campaign=campaign).made > 0


def test_the_command_the_page_and_the_api_give_the_summary(cast, client_for):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=4)
    expected = "42 of 54 open slots were left empty: 42 with every eligible expert at capacity."
    out = StringIO()
    call_command("assign_campaign", campaign.name, stdout=out)
    assert out.getvalue().splitlines()[-1] == expected
    Assignment.objects.all().delete()
    page = client_for(cast.admin).post(reverse("annotation:campaign_bulk_assign", args=[campaign.pk]), follow=True).content.decode()
    assert expected in page
    Assignment.objects.all().delete()
    body = client_for(cast.admin).post(f"{API}/manage/campaigns/{campaign.pk}/bulk-assign/").json()
    assert (body["summary"], body["open_slots"], body["unfilled_slots"]) == (expected, 54, 42)


def test_the_command_refuses_unknown_specialties_with_the_message(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.filter(user=cast.expert).update(specialties=["Emotoin"])
    with pytest.raises(CommandError, match="specialties: .*Emotoin"):
        call_command("assign_campaign", campaign.name, stdout=StringIO())


def test_an_admin_cannot_save_an_unknown_specialty_on_a_profile(cast, client_for):
    from heartbench_core.models import Item

    demo_campaign(cast)
    scene = Item.objects.exclude(primary_scene="").values_list("primary_scene", flat=True).first()
    c = client_for(cast.admin)
    url = f"{API}/profiles/{cast.expert.username}/"
    r = c.patch(url, {"specialties": ["Emotion", "Emotoin", scene]}, content_type="application/json")
    assert r.status_code == 400 and "Emotoin" in str(r.json()["errors"]["specialties"]) and scene not in str(r.json())
    assert c.patch(url, {"specialties": ["Emotion", scene, "warmth"]}, content_type="application/json").json()["specialties"] == [
        "Emotion",
        scene,
        "温暖",
    ]
