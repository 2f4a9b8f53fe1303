"""When a campaign gives an expert no work, the page and the API say the real reason and what to do, never giving gold checks away."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, CalibrationResult, Campaign, CampaignResponse, CampaignSettings, ExpertProfile
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_campaign
from annotation.workspace.selectors import NO_WORK_CODES, why_no_work
from heartbench_core.roles import Role
from tests.annotation.manage.helpers import gold_set, more_experts, qualify
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db


def next_then_home(client, campaign) -> str:
    """Press "Next response" and follow to the home page; its text."""
    response = client.post(reverse("annotation:next_response", args=[campaign.pk]), follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_work_available_has_no_reason(workspace, cast):
    assert why_no_work(cast.expert, workspace.campaign) is None


def test_a_campaign_paused_by_an_admin_gives_their_reason(workspace, cast, client_for):
    Campaign.objects.filter(pk=workspace.campaign.pk).update(status=Campaign.Status.PAUSED, status_reason="Rubric fix under way")
    workspace.campaign.refresh_from_db()
    reason = why_no_work(cast.expert, workspace.campaign)
    assert reason.code == "campaign_paused"
    assert "Paused by an admin: Rubric fix under way" in reason.message
    # The home card says it without pressing anything.
    assert "Rubric fix under way" in client_for(cast.expert).get(reverse("annotation:home")).content.decode()


def test_a_closed_campaign_says_it_is_finished(workspace, cast):
    Campaign.objects.filter(pk=workspace.campaign.pk).update(status=Campaign.Status.CLOSED)
    workspace.campaign.refresh_from_db()
    assert why_no_work(cast.expert, workspace.campaign).code == "campaign_closed"


def test_an_expert_paused_by_an_admin_reads_the_reason(workspace, cast, client_for):
    ExpertProfile.objects.update_or_create(
        user=cast.expert,
        defaults={"availability": ExpertProfile.Availability.PAUSED, "availability_reason": "Please re-read the guidelines"},
    )
    text = next_then_home(client_for(cast.expert), workspace.campaign)
    assert "Your work is paused by an admin: Please re-read the guidelines" in text
    assert "Nothing more to judge" not in text


def test_an_away_expert_is_pointed_to_their_profile(workspace, cast):
    ExpertProfile.objects.update_or_create(user=cast.expert, defaults={"availability": ExpertProfile.Availability.AWAY})
    reason = why_no_work(cast.expert, workspace.campaign)
    assert reason.code == "expert_away"
    assert reason.action_url == reverse("annotation:profile")


def test_an_expert_at_capacity_is_told_how_many_responses_to_finish(workspace, cast, client_for):
    ExpertProfile.objects.update_or_create(user=cast.expert, defaults={"capacity": 2})
    first = workspace.reserve(cast.expert, "dm0001")
    workspace.reserve(cast.expert, "dm0002")
    other = create_campaign(
        name="Second test",
        dataset_name="demo",
        model_names=["demo-model-aurora"],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username],
        requires_qualification=False,
    ).campaign
    reason = why_no_work(cast.expert, other)
    assert reason.code == "at_capacity"
    assert "finish your 2 open responses" in reason.message
    assert reason.action_url == reverse("annotation:judge", args=[first.public_id])
    text = next_then_home(client_for(cast.expert), other)
    assert "finish your 2 open responses" in text


def test_an_unqualified_expert_is_sent_to_the_calibration(cast, client_for):
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Qualified only",
        dataset_name="demo",
        model_names=["demo-model-aurora"],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username],
        requires_qualification=False,
    ).campaign
    CampaignSettings.objects.filter(campaign=campaign).update(requires_qualification=True)
    campaign.refresh_from_db()
    calibration = Campaign.objects.create(name="Calibration A", kind=Campaign.Kind.CALIBRATION, version=campaign.version)
    reason = why_no_work(cast.expert, campaign)
    assert reason.code == "calibration_required"
    assert reason.calibration == calibration
    text = next_then_home(client_for(cast.expert), campaign)
    assert "Calibration required" in text
    assert reverse("annotation:next_response", args=[calibration.pk]) in text


def test_a_failed_calibration_says_from_when_a_retake_is_possible(workspace, cast):
    calibration = Campaign.objects.create(name="Calibration B", kind=Campaign.Kind.CALIBRATION, version=workspace.campaign.version)
    CalibrationResult.objects.create(campaign=calibration, expert=cast.expert, attempt=1, score=0.5, threshold=0.8, passed=False)
    reason = why_no_work(cast.expert, calibration)
    assert reason.code == "retake_later"
    assert reason.available_from > timezone.now() + timedelta(hours=23)
    assert "A retake is possible from" in reason.message


def test_a_campaign_whose_responses_all_have_their_raters_says_so(workspace, cast, client_for):
    Campaign.objects.filter(pk=workspace.campaign.pk).update(overlap=1, deadline=timezone.now() - timedelta(days=1))
    workspace.campaign.refresh_from_db()
    for cr in CampaignResponse.objects.filter(campaign=workspace.campaign):
        Assignment.objects.create(
            campaign_response=cr, expert=cast.experts[1], status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
        )
    reason = why_no_work(cast.expert, workspace.campaign)
    assert reason.code == "all_rated"
    assert reason.deadline_passed
    text = next_then_home(client_for(cast.expert), workspace.campaign)
    assert "Every response open to you has its 1 rater," in text
    assert "deadline has passed" in text
    assert "Nothing more to judge" not in text


def test_the_api_gives_the_same_reason_and_the_guidelines(workspace, cast, client_for):
    Campaign.objects.filter(pk=workspace.campaign.pk).update(status=Campaign.Status.PAUSED, status_reason="Back on Monday")
    body = client_for(cast.expert).get(reverse("api-ws-campaign", args=[workspace.campaign.pk])).json()
    assert body["no_work"]["code"] == "campaign_paused"
    assert "Back on Monday" in body["no_work"]["message"]
    assert body["guidelines"] is None
    assert body["rationale_min_chars"] == 10


def test_every_reason_code_is_declared():
    assert {"campaign_paused", "all_rated", "calibration_required", "at_capacity", "retake_later"} <= set(NO_WORK_CODES)


def test_a_reason_never_reveals_that_only_gold_checks_are_left(cast, client_for):
    """Gold checks are work like any other: all taken, the reason is the ordinary one, word for word; one left is offered like
    an ordinary response left (never "nothing left" while a gold check waits, never a gold check once work ran out)."""
    version = demo_version()
    demo_responses()
    dual = cast.expert
    dual.groups.add(Group.objects.get_or_create(name=Role.ADMIN.value)[0])  # also an admin: no wider view
    others = more_experts(2)
    qualify(dual, *others)
    with_gold = create_campaign(
        name="Blind A",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=1,
        gold_source=gold_set(version, picks=[("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-aurora")]),
        gold_rate=0.5,
        expert_usernames=[dual.username, *(o.username for o in others)],
    ).campaign
    without_gold = create_campaign(
        name="Blind B",
        dataset_name="demo",
        model_names=["demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[dual.username, *(o.username for o in others)],
    ).campaign
    assert with_gold.responses.filter(is_gold=True).exists()
    for campaign in (with_gold, without_gold):
        for cr in campaign.responses.all():
            Assignment.objects.create(
                campaign_response=cr, expert=others[0], status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
            )
    gold_left, plain = why_no_work(dual, with_gold), why_no_work(dual, without_gold)
    assert gold_left.code == plain.code == "all_rated"
    assert gold_left.message == plain.message
    freed = {}
    for campaign, gold in ((with_gold, True), (without_gold, False)):
        freed[gold] = campaign.responses.filter(is_gold=gold).first()
        Assignment.objects.filter(campaign_response=freed[gold]).delete()
        assert why_no_work(dual, campaign) is None
        assert assign_next_response(expert=dual, campaign=campaign).campaign_response == freed[gold]
        Assignment.objects.filter(campaign_response=freed[gold]).delete()
        Assignment.objects.create(
            campaign_response=freed[gold], expert=others[0], status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
        )
    client = client_for(dual)
    for campaign in (with_gold, without_gold):
        text = next_then_home(client, campaign).lower()
        api = client.get(reverse("api-ws-campaign", args=[campaign.pk])).content.decode().lower()
        for word in ("gold", "quality check", "known answer"):
            assert word not in text.split("<main")[1]
            assert word not in api
