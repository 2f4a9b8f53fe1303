from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Assignment, ExpertProfile
from annotation.services.assignment import assign_next_response, bulk_assign

from .helpers import demo_campaign, more_experts, qualify

pytestmark = pytest.mark.django_db


def roomy():
    ExpertProfile.objects.update(capacity=100)


def test_bulk_assignment_stops_at_each_experts_capacity(cast):
    campaign = demo_campaign(cast)
    assert bulk_assign(campaign=campaign).made == 3 * 10


def test_bulk_assignment_fills_every_response_to_k_with_distinct_experts(cast):
    campaign = demo_campaign(cast)
    roomy()
    assert bulk_assign(campaign=campaign).made == 18 * 3
    per_response = Counter(Assignment.objects.values_list("campaign_response_id", flat=True))
    assert set(per_response.values()) == {3}
    assert Assignment.objects.filter(expires_at__isnull=False).count() == 0
    assert bulk_assign(campaign=campaign).made == 0


def test_bulk_assignment_spreads_work_evenly(cast):
    experts = [*cast.experts, *more_experts(3)]
    qualify(*experts)
    campaign = demo_campaign(cast, experts=experts)
    roomy()
    bulk_assign(campaign=campaign)
    load = Counter(Assignment.objects.values_list("expert_id", flat=True))
    assert sum(load.values()) == 54
    assert max(load.values()) - min(load.values()) <= 3


def test_bulk_assignment_respects_capacity_and_tops_up_existing_work(cast):
    experts = [*cast.experts, *more_experts(1)]
    qualify(*experts)
    campaign = demo_campaign(cast, experts=experts)
    pulled = assign_next_response(expert=experts[0], campaign=campaign)
    ExpertProfile.objects.filter(user__in=experts).update(capacity=5)
    created = bulk_assign(campaign=campaign).made
    load = Counter(Assignment.objects.values_list("expert_id", flat=True))
    assert max(load.values()) <= 5
    assert created == 4 * 5 - 1
    assert Assignment.objects.filter(campaign_response=pulled.campaign_response).count() <= 3


def test_bulk_assignment_keeps_hard_items_from_experts_below_the_tier(cast):
    campaign = demo_campaign(cast, overlap=1, min_tier_for_hard=2)
    roomy()
    ExpertProfile.objects.filter(user=cast.experts[0]).update(tier_override=2, tier_override_reason="lead")
    bulk_assign(campaign=campaign)
    hard = Assignment.objects.filter(campaign_response__item__difficulty="hard")
    assert hard.exists()
    assert set(hard.values_list("expert_id", flat=True)) == {cast.experts[0].pk}


def test_bulk_assignment_of_only_some_experts(cast):
    campaign = demo_campaign(cast, overlap=1)
    roomy()
    assert bulk_assign(campaign=campaign, experts=[cast.experts[1]]).made == 18
    assert set(Assignment.objects.values_list("expert_id", flat=True)) == {cast.experts[1].pk}


def test_bulk_assignment_with_no_eligible_expert_is_a_clear_error(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(availability="away")
    with pytest.raises(ValidationError, match="no eligible expert"):
        bulk_assign(campaign=campaign)
    assert not Assignment.objects.exists()


def test_bulk_assignment_is_deterministic_for_a_seed(cast):
    first = demo_campaign(cast, name="a", seed=7, overlap=1)
    roomy()
    bulk_assign(campaign=first)
    a = sorted((cr.response_id, cr.assignments.get().expert_id) for cr in first.responses.all())
    Assignment.objects.all().delete()
    second = demo_campaign(cast, name="b", seed=7, overlap=1)
    bulk_assign(campaign=second)
    b = sorted((cr.response_id, cr.assignments.get().expert_id) for cr in second.responses.all())
    assert a == b
