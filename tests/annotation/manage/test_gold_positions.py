"""Hidden gold checks come where ordinary work would: one ranking serves both, so a gold check's position in an
expert's work is the position an ordinary response in its place would have had, different between experts,
reproducible, and the share of gold in each expert's work is the campaign's share of gold."""

from collections import Counter

import pytest
from django.db.models import F

from annotation.models import Assignment, CampaignResponse, ExpertProfile
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import create_campaign
from annotation.services.sampling import expert_order
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_set, more_experts, qualify

pytestmark = pytest.mark.django_db

AURORA_GOLD = [(f"dm000{i}", "demo-model-aurora") for i in range(1, 5)]


def campaign_with_gold(experts, *, rate, overlap=None, seed=11):
    version = demo_version()
    demo_responses()
    qualify(*experts)
    pool = gold_set(version, picks=AURORA_GOLD)
    return create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=MODELS[1:],  # 12 responses; aurora's gold answers take the place of one of them on up to 4 items
        sample_fraction=1.0,
        overlap=overlap or len(experts),
        seed=seed,
        gold_source=pool,
        gold_rate=rate,
        expert_usernames=[e.username for e in experts],
    ).campaign


def pull_all(expert, campaign):
    """Pull and submit (without judging) until nothing is left; return the campaign responses in the order received."""
    received = []
    while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
        received.append(a.campaign_response)
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=F("reserved_at"))
    return received


def test_a_gold_check_comes_exactly_where_an_ordinary_response_in_its_place_would(cast):
    campaign = campaign_with_gold(cast.experts, rate=0.3)
    with_gold = [[cr.pk for cr in pull_all(expert, campaign)] for expert in cast.experts]
    assert any(cr.is_gold for cr in campaign.responses.all())
    Assignment.objects.filter(campaign_response__campaign=campaign).delete()
    CampaignResponse.objects.filter(campaign=campaign).update(is_gold=False)
    without = [[cr.pk for cr in pull_all(expert, campaign)] for expert in cast.experts]
    assert with_gold == without


def test_each_expert_gets_the_campaigns_share_of_gold_and_meets_every_item_once_per_model(cast):
    campaign = campaign_with_gold(cast.experts, rate=0.3)
    gold = campaign.responses.filter(is_gold=True).count()
    assert gold == 4  # round(0.3 × 12) = 4, one per gold item (each keeps an ordinary answer)
    for expert in cast.experts:
        received = pull_all(expert, campaign)
        assert sum(cr.is_gold for cr in received) == gold and len(received) == 12
        assert set(Counter(cr.item_id for cr in received).values()) == {2}


def test_gold_positions_differ_between_experts_and_follow_each_experts_own_order(cast):
    experts = [*cast.experts, *more_experts(9)]
    campaign = campaign_with_gold(experts, rate=0.3, overlap=len(experts))
    patterns = set()
    for expert in experts:
        received = pull_all(expert, campaign)
        patterns.add(tuple(cr.is_gold for cr in received))
        # Everything has the same number of raters when this expert starts, so the expert's own keyed order decides,
        # items they have not had first.
        rounds = received[:6]
        assert len({cr.item_id for cr in rounds}) == 6
        assert [cr.pk for cr in rounds] == sorted((cr.pk for cr in rounds), key=lambda pk: expert_order(campaign.seed, expert.pk, pk))
    assert len(patterns) > 1, "gold positions differ between experts"


def test_an_expert_pulling_again_from_scratch_gets_gold_at_the_same_positions(cast):
    campaign = campaign_with_gold(cast.experts, rate=0.3)
    first = [(cr.is_gold, cr.pk) for cr in pull_all(cast.expert, campaign)]
    Assignment.objects.filter(expert=cast.expert).delete()
    again = [(cr.is_gold, cr.pk) for cr in pull_all(cast.expert, campaign)]
    assert again == first


def test_bulk_pre_assignment_treats_gold_checks_as_any_response(cast):
    experts = [*cast.experts, *more_experts(17)]
    campaign = campaign_with_gold(experts, rate=0.3, overlap=10)
    ExpertProfile.objects.update(capacity=30)
    bulk_assign(campaign=campaign)
    held = Counter(Assignment.objects.filter(campaign_response__campaign=campaign).values_list("campaign_response__is_gold", flat=True))
    assert held == {True: 4 * 10, False: 8 * 10}, "every response, gold or not, gets its k experts"
    for expert in experts:
        # Each expert works through pre-assigned work in insertion order: their own keyed order, gold or not.
        queue = list(Assignment.objects.filter(expert=expert).order_by("id").values_list("campaign_response_id", flat=True))
        assert queue == sorted(queue, key=lambda pk: expert_order(campaign.seed, expert.pk, pk))
