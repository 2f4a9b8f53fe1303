"""The experts' discussion after independence feeds the decision: its adjudicator reads it (pseudonymised) with the vote
tally, a vote that changes the majority raises the unit in the queue (one definition, `triage_units`), and a discussion
can be turned into a case."""

import pytest
from django.urls import reverse

from annotation.knowledge.models import Case
from annotation.models import Assignment, DiscussionComment, DiscussionVote, Judgment
from tests.validation.builders import blind_test
from validation.selectors import adjudication_units
from validation.services.golden import adjudication_queue

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(cast):
    return blind_test(cast, campaign="blind-discussed", flip=0.3)


def _two_to_one(campaign):
    """A unit whose three raters split 2 to 1, with its raters (the majority's first)."""
    for e in adjudication_units(campaign):
        if e.expert_ratings == 3 and e.expert_hits in (1, 2):
            rows = list(
                Judgment.objects.filter(
                    assignment__campaign_response_id=e.campaign_response_id, criterion_id=e.criterion_id
                ).select_related("assignment__expert")
            )
            majority = e.expert_hits == 2
            rows.sort(key=lambda j: j.hit != majority)
            return e, rows
    raise AssertionError("the noisy blind test has 2-to-1 units")


def _vote(entry_id, criterion_id, judgment, hit):
    DiscussionVote.objects.create(campaign_response_id=entry_id, criterion_id=criterion_id, voter=judgment.assignment.expert, hit=hit)


def test_a_vote_that_changes_the_majority_puts_the_unit_first_in_the_queue(cast, campaign):
    unit, raters = _two_to_one(campaign)
    assert unit not in adjudication_queue(campaign)
    # One of the majority agrees with the minority in the discussion: the majority is now the other verdict.
    _vote(unit.campaign_response_id, unit.criterion_id, raters[0], not raters[0].hit)
    queued = adjudication_queue(campaign)
    assert (queued[0].campaign_response_id, queued[0].criterion_id) == (unit.campaign_response_id, unit.criterion_id)
    assert "discussion_changed" in queued[0].triggers and queued[0].discussion_changed


def test_a_vote_that_keeps_the_majority_changes_nothing_and_only_raters_votes_count(cast, campaign):
    unit, raters = _two_to_one(campaign)
    _vote(unit.campaign_response_id, unit.criterion_id, raters[2], raters[0].hit)  # the minority joins the majority
    DiscussionVote.objects.create(
        campaign_response_id=unit.campaign_response_id, criterion_id=unit.criterion_id, voter=cast.outsider, hit=not raters[0].hit
    )
    assert not any(e.discussion_changed for e in adjudication_units(campaign))


def test_the_adjudicator_reads_the_discussion_pseudonymised_with_the_tally_and_can_make_it_a_case(cast, campaign, client_for):
    unit, raters = _two_to_one(campaign)
    entry_id, criterion_id = unit.campaign_response_id, unit.criterion_id
    DiscussionComment.objects.create(
        campaign_response_id=entry_id, author=raters[0].assignment.expert, criterion_id=criterion_id, body="我改主意了：没有说出感受。"
    )
    DiscussionComment.objects.create(campaign_response_id=entry_id, author=raters[1].assignment.expert, body="整体上回复很仓促。")
    _vote(entry_id, criterion_id, raters[0], not raters[0].hit)
    url = reverse("validation:adjudicate", args=[campaign.pk, entry_id, criterion_id])
    page = client_for(cast.reviewer).get(url).content.decode()
    assert "我改主意了：没有说出感受。" in page and "整体上回复很仓促。" in page
    majority_hit = raters[0].hit  # the vote went the other way: hit 2→1, or miss (1 hit)→2
    assert ("Votes: 0 hit, 1 miss." if majority_hit else "Votes: 1 hit, 0 miss.") in page
    assert f"After the discussion, {1 if majority_hit else 2} of 3 raters say hit" in page
    for judgment in raters:
        assert judgment.assignment.expert.username not in page  # raters are numbered, never named
    case_url = reverse("validation:unit-case", args=[campaign.pk, entry_id, criterion_id]) + "?from=discussion"
    assert case_url in page
    posted = client_for(cast.reviewer).post(
        case_url,
        {
            "from": "discussion",
            "title": "讨论后的共识",
            "excerpt": "（节选）",
            "hit": "miss",
            "reasoning": "讨论后大家同意：没有说出感受。",
            "cause": "rater_error",
        },
    )
    assert posted.status_code == 302
    case = Case.objects.get()
    assert case.source == Case.Source.DISCUSSION and case.source_campaign == campaign and case.hit is False


def test_the_queue_api_names_the_discussion_as_the_reason(cast, campaign, client_for):
    unit, raters = _two_to_one(campaign)
    _vote(unit.campaign_response_id, unit.criterion_id, raters[0], not raters[0].hit)
    answer = client_for(cast.reviewer).get(f"/api/v1/validation/campaigns/{campaign.pk}/queue/", {"trigger": "discussion_changed"}).json()
    assert [r["criterion_id"] for r in answer["results"]] == [unit.criterion_id]
    assert Assignment.objects.filter(campaign_response_id=unit.campaign_response_id, expert=cast.reviewer).count() == 0


def test_the_api_gives_the_adjudicator_the_discussion_and_writes_a_case_from_it(cast, campaign, client_for):
    unit, raters = _two_to_one(campaign)
    entry_id, criterion_id = unit.campaign_response_id, unit.criterion_id
    DiscussionComment.objects.create(
        campaign_response_id=entry_id, author=raters[0].assignment.expert, criterion_id=criterion_id, body="我改主意了。"
    )
    _vote(entry_id, criterion_id, raters[0], not raters[0].hit)
    base = f"/api/v1/validation/campaigns/{campaign.pk}/units/{entry_id}/{criterion_id}"
    client = client_for(cast.reviewer)
    discussion = client.get(f"{base}/discussion/").json()
    assert discussion["lines"][0]["body"] == "我改主意了。" and discussion["lines"][0]["rater"] in (1, 2, 3)
    assert discussion["votes_hit"] + discussion["votes_miss"] == 1
    assert all(r.assignment.expert.username not in str(discussion) for r in raters)
    assert (
        client.post(f"{base}/case/", {"title": "t", "excerpt": "e", "reasoning": "r"}, content_type="application/json").status_code == 404
    )
    made = client.post(
        f"{base}/case/",
        {"source": "discussion", "title": "讨论", "excerpt": "（节选）", "hit": False, "reasoning": "r"},
        content_type="application/json",
    )
    assert made.status_code == 201 and made.json()["source"] == "discussion"
