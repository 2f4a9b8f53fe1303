"""The discussion of a response opens to the experts who judged it once all k judgments are in, never before."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.models import DiscussionComment, DiscussionVote
from annotation.services.workspace import cast_vote, post_comment

from .conftest import judge_fully


@pytest.fixture
def judged_by_all(workspace, cast):
    """dm0001's first response judged by all three experts (k = 3)."""
    return [judge_fully(workspace.reserve(e, "dm0001", "demo-model-aurora"), hit=(i != 1)) for i, e in enumerate(cast.experts)]


def test_the_thread_stays_closed_until_every_judgment_is_in(workspace, cast, client_for):
    first = judge_fully(workspace.reserve(cast.experts[0], "dm0001", "demo-model-aurora"))
    judge_fully(workspace.reserve(cast.experts[1], "dm0001", "demo-model-aurora"))
    workspace.reserve(cast.experts[2], "dm0001", "demo-model-aurora")  # still a draft
    client = client_for(cast.experts[0])
    assert client.get(reverse("annotation:discussion", args=[first.public_id])).status_code == 404
    assert client.post(reverse("annotation:discussion_comment", args=[first.public_id]), {"body": "hello"}).status_code == 404
    with pytest.raises(ValidationError, match="opens once"):
        post_comment(assignment=first, expert=cast.experts[0], body="too early")
    assert not DiscussionComment.objects.exists()
    assert "Open the discussion" not in client.get(reverse("annotation:judge", args=[first.public_id])).content.decode()


def test_once_open_judges_comment_and_vote_under_pseudonyms(judged_by_all, cast, client_for):
    mine, theirs, _ = judged_by_all
    criterion = mine.campaign_response.item.criteria.order_by("position").first()
    post_comment(assignment=theirs, expert=cast.experts[1], body="I read criterion 1 differently", criterion_id=criterion.pk)
    cast_vote(assignment=theirs, expert=cast.experts[1], criterion_id=criterion.pk, hit=False)
    client = client_for(cast.experts[0])
    url = reverse("annotation:discussion", args=[mine.public_id])
    body = client.get(url).content.decode()
    assert "I read criterion 1 differently" in body and "Expert 2" in body and "on criterion 1" in body
    assert cast.experts[1].username not in body
    client.post(reverse("annotation:discussion_vote", args=[mine.public_id]), {"criterion": criterion.pk, "stance": "hit"})
    client.post(reverse("annotation:discussion_vote", args=[mine.public_id]), {"criterion": criterion.pk, "stance": "miss"})
    assert DiscussionVote.objects.get(voter=cast.experts[0], criterion=criterion).hit is False
    assert DiscussionVote.objects.count() == 2
    client.post(reverse("annotation:discussion_comment", args=[mine.public_id]), {"body": "Fair point"})
    assert "You" in client.get(url, HTTP_HX_REQUEST="true").content.decode()


def test_an_expert_who_did_not_judge_the_response_never_reaches_its_thread(judged_by_all, workspace, cast, client_for):
    outsider_expert = cast.reviewer  # holds no expert role and no assignment
    mine = judged_by_all[0]
    assert client_for(outsider_expert).get(reverse("annotation:discussion", args=[mine.public_id])).status_code == 403
    other = judge_fully(workspace.reserve(cast.experts[0], "dm0002"))
    with pytest.raises(ValidationError):
        post_comment(assignment=other, expert=cast.experts[0], body="wrong thread")


def test_the_api_checks_the_thread_is_open_with_one_query_not_by_building_it(judged_by_all, cast, client_for, django_assert_num_queries):
    mine = judged_by_all[0]
    criterion = mine.campaign_response.item.criteria.order_by("position").first()
    client = client_for(cast.experts[0])
    url = reverse("api-ws-discussion", args=[mine.public_id])
    # Building the thread takes 11 queries; checking it is open before the write takes one (34 → 23).
    # The first write to a thread also records that the expert has seen it (one UPDATE, once: 24).
    with django_assert_num_queries(24):
        response = client.post(url, {"body": "A point on criterion 1", "criterion": criterion.pk}, content_type="application/json")
    assert response.status_code == 201 and response.json()["comments"][0]["body"] == "A point on criterion 1"
    with django_assert_num_queries(28):
        response = client.post(
            reverse("api-ws-discussion-votes", args=[mine.public_id]),
            {"criterion": criterion.pk, "hit": True},
            content_type="application/json",
        )
    assert response.status_code == 200
