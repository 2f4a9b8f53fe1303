"""The next-response pull ranks a bounded window of a campaign's open responses, nearest completion first, exactly.

`_ranked_ids` reads the open responses from the tallies' index by fewest open slots, then the
campaign's random order, and ranks the first `RANKING_WINDOW` the expert may take: whatever the
size of the campaign, a pull reads that many rows. Here the window is made small (3) on a demo
campaign of a few dozen responses, so that what lies beyond it is visible.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse, ExpertProfile, ResponseTally
from annotation.services import assignment as serving
from annotation.services.assignment import assign_next_response, expert_order
from heartbench_core.models import User

from .helpers import demo_campaign, more_experts, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_window(monkeypatch):
    monkeypatch.setattr(serving, "RANKING_WINDOW", 3)


def by_campaign_order(campaign):
    return list(CampaignResponse.objects.filter(campaign=campaign).order_by("order_key", "id").values_list("pk", flat=True))


def test_an_untouched_campaign_is_ranked_from_its_first_window_in_its_random_order(cast, small_window):
    campaign = demo_campaign(cast, overlap=3)
    ExpertProfile.objects.filter(user=cast.expert).update(specialties=[])  # no specialty to prefer: the keyed order decides
    window = by_campaign_order(campaign)[:3]
    assert len(by_campaign_order(campaign)) > 3
    first = assign_next_response(expert=cast.expert, campaign=campaign)
    # The expert's own keyed order chooses within the window, not the order responses were sampled in.
    assert first.campaign_response_id == min(window, key=lambda pk: expert_order(campaign.seed, cast.expert.pk, pk))


def test_a_response_nearer_completion_comes_first_wherever_it_lies_in_the_campaigns_order(cast, small_window):
    campaign = demo_campaign(cast, overlap=3)
    last = by_campaign_order(campaign)[-1]
    Assignment.objects.create(campaign_response_id=last, campaign=campaign, expert=cast.experts[1])
    pulled = assign_next_response(expert=cast.expert, campaign=campaign)
    assert pulled.campaign_response_id == last


def test_responses_the_expert_had_or_that_are_full_are_left_out_of_the_window(cast, small_window):
    campaign = demo_campaign(cast, overlap=1)
    order = by_campaign_order(campaign)
    Assignment.objects.create(campaign_response_id=order[0], campaign=campaign, expert=cast.experts[1])  # full at k = 1
    Assignment.objects.create(campaign_response_id=order[1], campaign=campaign, expert=cast.expert, status=Assignment.Status.RELEASED)
    profile = ExpertProfile.objects.get(user=cast.expert)
    ranked = serving._ranked_ids(campaign, profile, serving.campaign_settings(campaign), None, timezone.now())
    # The window is the next three in the campaign's order (ranked among themselves by items had, specialty and keyed order).
    assert sorted(ranked) == sorted(order[2:5])


def test_an_extended_response_counts_its_extra_raters_as_open_slots(cast, small_window):
    campaign = demo_campaign(cast, overlap=2)
    last = by_campaign_order(campaign)[-1]
    helpers = more_experts(2)
    qualify(*helpers)
    campaign.experts.add(*helpers)
    for expert in helpers:
        Assignment.objects.create(campaign_response_id=last, campaign=campaign, expert=expert, status=Assignment.Status.SUBMITTED)
    CampaignResponse.objects.filter(pk=last).update(extra_raters=2)
    assert ResponseTally.objects.get(campaign_response_id=last).extra_raters == 2
    # Two of k + 2 taken: two open slots, like an untouched response at k = 2; one more taken makes it the nearest.
    Assignment.objects.create(campaign_response_id=last, campaign=campaign, expert=cast.experts[1])
    assert assign_next_response(expert=cast.expert, campaign=campaign).campaign_response_id == last


def test_a_pull_costs_the_same_queries_in_a_campaign_three_times_the_size(cast):
    small = demo_campaign(cast, overlap=3, name="small", sample=1 / 3)
    large = demo_campaign(cast, overlap=3, name="large", sample=1.0)
    assert CampaignResponse.objects.filter(campaign=large).count() >= 2.5 * CampaignResponse.objects.filter(campaign=small).count()
    counts = []
    for campaign in (small, large):
        expert = User.objects.get(pk=cast.expert.pk)  # as a request has it: nothing read yet
        with CaptureQueriesContext(connection) as queries:
            assert assign_next_response(expert=expert, campaign=campaign) is not None
        counts.append(len(queries))
    assert counts[0] == counts[1]
