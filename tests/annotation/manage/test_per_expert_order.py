"""Work reaches each expert in an order of its own, so no order gives away the model or a gold check."""

import pytest

from annotation.models import Assignment
from annotation.services.assignment import assign_next_response, bulk_assign, expert_order

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


def queue_of(expert, campaign):
    """The response ids of an expert's pre-assigned work, in the order they reach the expert."""
    return list(
        Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign)
        .order_by("reserved_at", "id")
        .values_list("campaign_response_id", flat=True)
    )


def test_bulk_assigned_work_reaches_each_expert_in_a_different_order(cast):
    campaign = demo_campaign(cast, overlap=3)
    bulk_assign(campaign=campaign)
    queues = [queue_of(e, campaign) for e in cast.experts]
    assert all(sorted(q) == sorted(queues[0]) for q in queues)  # k = 3 experts: everyone has every response
    assert len({tuple(q) for q in queues}) == 3
    sampling_order = sorted(queues[0])  # ids follow the sampling order, which follows the models
    assert all(q != sampling_order for q in queues)


def test_the_next_response_follows_the_experts_own_order(cast):
    campaign = demo_campaign(cast, overlap=3)
    first = assign_next_response(expert=cast.expert, campaign=campaign)
    ids = list(campaign.responses.values_list("id", flat=True))
    assert first.campaign_response_id == min(ids, key=lambda i: expert_order(campaign.seed, cast.expert.id, i))


def test_the_order_key_is_stable_for_one_expert_and_differs_between_experts():
    assert expert_order(7, 1, 42) == expert_order(7, 1, 42)
    orders = {tuple(sorted(range(20), key=lambda i: expert_order(7, e, i))) for e in range(1, 6)}
    assert len(orders) == 5
