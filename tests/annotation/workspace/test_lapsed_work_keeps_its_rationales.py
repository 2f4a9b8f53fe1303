"""A rationale written on a reservation that lapsed is never lost: the expert takes the response back while its slot is open, or reads their text."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign, Judgment
from annotation.services.assignment import expire_reservations
from annotation.services.workspace import DraftEntry, save_draft

pytestmark = pytest.mark.django_db


def lapsed_draft(workspace, expert, question_id="dm0001", text="My careful rationale"):
    """A draft with one rationale whose reservation then expired (and was swept)."""
    assignment = workspace.reserve(expert, question_id)
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    save_draft(assignment=assignment, expert=expert, entries=[DraftEntry(criterion_id=criterion.pk, rationale=text, hit=True)])
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    expire_reservations()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXPIRED
    return assignment


def fill_slots(assignment, experts):
    for other in experts:
        Assignment.objects.create(
            campaign_response=assignment.campaign_response, expert=other, status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
        )


def test_the_home_page_lists_lapsed_work_with_its_rationales(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    text = client_for(cast.expert).get(reverse("annotation:home")).content.decode()
    assert "Work whose reservation lapsed" in text
    assert reverse("annotation:judge", args=[assignment.public_id]) in text
    assert "1 rationale written" in text


def test_lapsed_work_without_any_text_is_not_listed(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0002")
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.EXPIRED)
    assert "Work whose reservation lapsed" not in client_for(cast.expert).get(reverse("annotation:home")).content.decode()


def test_the_old_link_offers_to_take_it_back_and_the_draft_comes_back(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    client = client_for(cast.expert)
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "Your reservation of this response lapsed" in page
    assert "My careful rationale" in page
    assert reverse("annotation:judge_reclaim", args=[assignment.public_id]) in page
    response = client.post(reverse("annotation:judge_reclaim", args=[assignment.public_id]), follow=True)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED and assignment.expires_at > timezone.now()
    page = response.content.decode()
    assert "The response is yours again, with your draft." in page
    assert "My careful rationale" in page
    assert "Your reservation of this response lapsed" not in page
    assert 'data-lapsed="0"' in page
    judgment = Judgment.objects.get(assignment=assignment)
    assert (judgment.rationale, judgment.hit) == ("My careful rationale", True)


def test_when_the_slot_went_to_others_the_text_stays_readable_and_nobody_is_named(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    fill_slots(assignment, [*cast.experts[1:3], cast.admin])
    client = client_for(cast.expert)
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "It went to other experts meanwhile" in page
    assert "My careful rationale" in page
    assert "readonly" in page and 'hx-post="' + reverse("annotation:judge_draft", args=[assignment.public_id]) not in page
    for name in (cast.experts[1].username, cast.experts[2].username, cast.admin.username):
        assert name not in page
    response = client.post(reverse("annotation:judge_reclaim", args=[assignment.public_id]), follow=True)
    assert "This response went to other experts meanwhile." in response.content.decode()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXPIRED
    api = client.post(reverse("api-ws-reclaim", args=[assignment.public_id]))
    assert api.status_code == 409


def test_a_paused_campaign_refuses_the_take_back_with_its_reason(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    Campaign.objects.filter(pk=workspace.campaign.pk).update(status=Campaign.Status.PAUSED)
    response = client_for(cast.expert).post(reverse("api-ws-reclaim", args=[assignment.public_id]))
    assert response.status_code == 400
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXPIRED


def test_the_api_takes_it_back_and_shows_the_draft(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    client = client_for(cast.expert)
    detail = client.get(reverse("api-ws-assignment", args=[assignment.public_id])).json()
    assert detail["lapsed"] is True and detail["slot_open"] is True
    body = client.post(reverse("api-ws-reclaim", args=[assignment.public_id])).json()
    assert body["lapsed"] is False and body["status"] == "reserved"
    assert body["judgments"][0]["rationale"] == "My careful rationale"


def test_another_expert_cannot_open_or_take_back_lapsed_work(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    client = client_for(cast.experts[1])
    assert client.get(reverse("annotation:judge", args=[assignment.public_id])).status_code == 404
    assert client.post(reverse("annotation:judge_reclaim", args=[assignment.public_id])).status_code == 404
    assert client.post(reverse("api-ws-reclaim", args=[assignment.public_id])).status_code == 404
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXPIRED


def test_lapsed_work_still_refuses_drafts_until_taken_back(workspace, cast, client_for):
    assignment = lapsed_draft(workspace, cast.expert)
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    response = client_for(cast.expert).post(
        reverse("annotation:judge_draft", args=[assignment.public_id]), {f"rationale-{criterion.pk}": "overwrite"}
    )
    assert response.status_code == 404
    assert Judgment.objects.get(assignment=assignment).rationale == "My careful rationale"


def test_taking_back_a_hidden_gold_check_follows_the_same_rule_as_any_response(cast, client_for):
    """Taking back a gold check is refused exactly when an ordinary response's would be."""
    from django.contrib.auth.models import Group

    from annotation.services.campaigns import create_campaign
    from heartbench_core.roles import Role
    from tests.annotation.manage.helpers import gold_set, more_experts, qualify
    from tests.factories import demo_responses, demo_version

    version = demo_version()
    demo_responses()
    dual = cast.expert
    dual.groups.add(Group.objects.get_or_create(name=Role.ADMIN.value)[0])
    others = more_experts(2)
    qualify(dual, *others)
    campaign = create_campaign(
        name="Blind C",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=2,
        gold_source=gold_set(version, picks=[("dm0001", "demo-model-aurora")]),
        gold_rate=0.5,
        expert_usernames=[dual.username, *(o.username for o in others)],
    ).campaign
    gold = campaign.responses.get(is_gold=True)
    ordinary = campaign.responses.filter(is_gold=False).first()
    client = client_for(dual)
    pages = {}
    for cr in (gold, ordinary):
        mine = Assignment.objects.create(campaign_response=cr, expert=dual, status=Assignment.Status.EXPIRED)
        criterion = cr.item.criteria.order_by("position").first()
        Judgment.objects.create(assignment=mine, criterion=criterion, rationale="Kept text", hit=None)
        fill_slots(mine, others)
        response = client.post(reverse("api-ws-reclaim", args=[mine.public_id]))
        page = client.get(reverse("annotation:judge", args=[mine.public_id])).content.decode()
        pages[cr.is_gold] = (response.status_code, response.json(), "It went to other experts meanwhile" in page, "Kept text" in page)
    assert pages[True] == pages[False]
    assert pages[True][0] == 409 and pages[True][2] and pages[True][3]
