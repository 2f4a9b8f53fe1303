"""A hidden gold check's discussion behaves exactly like an ordinary one: one thread per cohort of k submitters."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.models import CampaignResponse
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import cast_vote, post_comment
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

from .conftest import MODELS, Workspace, judge_fully

GOLD, ORDINARY = "demo-model-aurora", "demo-model-borealis"


@pytest.fixture
def pair_workspace(cast) -> Workspace:
    """A k = 2 blind test whose dm0001 response by aurora is a hidden gold check, judged by more than k experts as campaigns
    created while gold sat outside k could have it (cohorts hold for any response with more than k submitters)."""
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Blind test pairs",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=2,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    workspace = Workspace(campaign=campaign)
    CampaignResponse.objects.filter(pk=workspace.response_of("dm0001", GOLD).pk).update(is_gold=True)
    return workspace


@pytest.fixture
def fourth_expert(db):
    return make_user("erin_expert4", Role.EXPERT)


def _first_criterion(assignment):
    return assignment.campaign_response.item.criteria.order_by("position").first()


def _thread(client, assignment) -> dict:
    response = client.get(reverse("api-ws-discussion", args=[assignment.public_id]))
    assert response.status_code == 200
    return response.json()


def _participants(payload: dict) -> int:
    """The most stances any criterion has: everyone who took part in the thread took a stance on criterion 1 here."""
    return max(s["hit"] + s["miss"] for s in payload["stances"])


def test_a_gold_check_judged_by_three_experts_at_k_two_shows_each_open_thread_exactly_two_participants(pair_workspace, cast, client_for):
    gold = [judge_fully(pair_workspace.reserve(e, "dm0001", GOLD)) for e in cast.experts]
    criterion = _first_criterion(gold[0])
    for assignment, expert in zip(gold[:2], cast.experts[:2]):
        cast_vote(assignment=assignment, expert=expert, criterion_id=criterion.pk, hit=True)
        post_comment(assignment=assignment, expert=expert, body=f"note from {expert.username}")

    for assignment, expert in zip(gold[:2], cast.experts[:2]):
        client = client_for(expert)
        payload = _thread(client, assignment)
        assert _participants(payload) == 2
        assert {c["author"] for c in payload["comments"]} == {"You", "Expert 1" if expert == cast.experts[1] else "Expert 2"}
        page = client.get(reverse("annotation:discussion", args=[assignment.public_id])).content.decode()
        assert "Expert 3" not in page

    # The third submitter's cohort has one of its two raters: their thread waits, like an ordinary response's.
    third = client_for(cast.experts[2])
    assert third.get(reverse("annotation:discussion", args=[gold[2].public_id])).status_code == 404
    assert third.get(reverse("api-ws-discussion", args=[gold[2].public_id])).status_code == 404
    assert "Open the discussion" not in third.get(reverse("annotation:judge", args=[gold[2].public_id])).content.decode()
    assert third.get(reverse("api-ws-assignment", args=[gold[2].public_id])).json()["discussion_open"] is False
    assert "after all judgments are in" in third.get(reverse("annotation:home")).content.decode()
    with pytest.raises(ValidationError, match="opens once"):
        cast_vote(assignment=gold[2], expert=cast.experts[2], criterion_id=criterion.pk, hit=False)


def test_the_next_cohort_opens_at_k_submissions_and_sees_only_its_own_stances_and_comments(pair_workspace, cast, fourth_expert, client_for):
    experts = [*cast.experts, fourth_expert]
    gold = [judge_fully(pair_workspace.reserve(e, "dm0001", GOLD)) for e in experts]
    criterion = _first_criterion(gold[0])
    for assignment, expert, hit in zip(gold, experts, (True, True, False, False)):
        cast_vote(assignment=assignment, expert=expert, criterion_id=criterion.pk, hit=hit)
        post_comment(assignment=assignment, expert=expert, body=f"note from {expert.username}")

    first_cohort = _thread(client_for(experts[0]), gold[0])
    second_cohort = _thread(client_for(experts[3]), gold[3])
    assert (first_cohort["stances"][0]["hit"], first_cohort["stances"][0]["miss"]) == (2, 0)
    assert (second_cohort["stances"][0]["hit"], second_cohort["stances"][0]["miss"]) == (0, 2)
    assert {c["body"] for c in first_cohort["comments"]} == {"note from erin_expert1", "note from erin_expert2"}
    assert {c["body"] for c in second_cohort["comments"]} == {"note from erin_expert3", "note from erin_expert4"}
    assert {c["author"] for c in second_cohort["comments"]} == {"Expert 1", "You"}


def test_a_gold_thread_has_the_same_shape_as_an_ordinary_one(pair_workspace, cast, client_for):
    ordinary = [judge_fully(pair_workspace.reserve(e, "dm0001", ORDINARY)) for e in cast.experts[:2]]
    gold = [judge_fully(pair_workspace.reserve(e, "dm0001", GOLD)) for e in cast.experts]
    criterion = _first_criterion(gold[0])
    for pair in (ordinary, gold[:2]):
        for assignment, expert in zip(pair, cast.experts[:2]):
            cast_vote(assignment=assignment, expert=expert, criterion_id=criterion.pk, hit=expert == cast.experts[0])
            post_comment(assignment=assignment, expert=expert, body="same words", criterion_id=criterion.pk)
    # The third gold submitter tries to join the thread: a waiting thread refuses, so it cannot grow past k.
    third = client_for(cast.experts[2])
    vote = {"criterion": criterion.pk, "hit": True}
    assert (
        third.post(reverse("api-ws-discussion-votes", args=[gold[2].public_id]), vote, content_type="application/json").status_code == 404
    )
    comment = {"body": "a third voice", "criterion": criterion.pk}
    assert third.post(reverse("api-ws-discussion", args=[gold[2].public_id]), comment, content_type="application/json").status_code == 404

    client = client_for(cast.experts[1])
    plain, hidden = _thread(client, ordinary[1]), _thread(client, gold[1])
    for payload in (plain, hidden):
        for comment in payload["comments"]:
            comment.pop("created_at")
        for stance in payload["stances"]:
            stance.pop("criterion")  # the same item, so the same criteria: only ids could differ
    assert plain == hidden
    detail = dict(client.get(reverse("api-ws-assignment", args=[gold[1].public_id])).json().items())
    assert set(detail) == set(client.get(reverse("api-ws-assignment", args=[ordinary[1].public_id])).json())
    assert detail["discussion_open"] is True


def test_once_the_campaign_closes_every_short_cohort_opens_among_whoever_judged(pair_workspace, cast, client_for):
    """A thread that never opened would mark a gold check's last cohort: at close, short threads open alike."""
    from annotation.models import Campaign
    from annotation.services.campaigns import set_campaign_status

    gold = [judge_fully(pair_workspace.reserve(e, "dm0001", GOLD)) for e in cast.experts]
    criterion = _first_criterion(gold[0])
    for assignment, expert in zip(gold[:2], cast.experts[:2]):
        cast_vote(assignment=assignment, expert=expert, criterion_id=criterion.pk, hit=True)
    lone = judge_fully(pair_workspace.reserve(cast.experts[2], "dm0001", ORDINARY))
    third = client_for(cast.experts[2])
    for waiting in (gold[2], lone):
        assert third.get(reverse("api-ws-discussion", args=[waiting.public_id])).status_code == 404

    set_campaign_status(campaign=pair_workspace.campaign, status=Campaign.Status.CLOSED)
    shapes = []
    for waiting in (gold[2], lone):
        payload = _thread(third, waiting)
        assert _participants(payload) == 0 and payload["comments"] == []  # nobody else, and nothing said yet
        assert third.get(reverse("api-ws-assignment", args=[waiting.public_id])).json()["discussion_open"] is True
        for stance in payload["stances"]:
            stance.pop("criterion")
        shapes.append(payload)
    assert shapes[0] == shapes[1]
    # The full first cohort keeps its two participants, and the late cohort does not see them.
    assert _participants(_thread(client_for(cast.experts[0]), gold[0])) == 2
