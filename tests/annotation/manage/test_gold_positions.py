"""Hidden gold checks come at random positions of each expert's queue: at the campaign's rate in expectation,
different between experts, reproducible, and no more often first than anywhere else."""

import math
from collections import Counter

import pytest
from django.db.models import F

from annotation.models import Assignment, ExpertProfile
from annotation.services.assignment import assign_next_response, bulk_assign, expert_order, gold_draw
from annotation.services.campaigns import create_campaign
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
        model_names=MODELS[1:],  # 12 ordinary responses; aurora's answers are only gold checks
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


def test_the_draw_puts_gold_at_the_first_pull_no_more_often_than_at_any_other():
    rate, experts, pulls = 0.25, 4000, 10
    gold = [[gold_draw(11, 5, e, n) < rate for n in range(pulls)] for e in range(1, experts + 1)]
    per_pull = [sum(row[n] for row in gold) / experts for n in range(pulls)]
    tolerance = 4 * math.sqrt(rate * (1 - rate) / experts)  # four standard errors
    assert all(abs(share - rate) < tolerance for share in per_pull), per_pull
    assert abs(per_pull[0] - sum(per_pull[1:]) / (pulls - 1)) < tolerance
    # Positions differ between experts: many distinct patterns, none dominant.
    patterns = Counter(tuple(row) for row in gold)
    assert len(patterns) > 500 and patterns.most_common(1)[0][1] < experts * 0.1


def test_the_draw_is_reproducible_and_depends_on_campaign_expert_pull_and_seed():
    assert gold_draw(11, 5, 3, 2) == gold_draw(11, 5, 3, 2)
    draws = {gold_draw(11, 5, 3, 2), gold_draw(12, 5, 3, 2), gold_draw(11, 6, 3, 2), gold_draw(11, 5, 4, 2), gold_draw(11, 5, 3, 3)}
    assert len(draws) == 5
    assert all(0 <= d < 1 for d in draws)


def test_each_pull_is_gold_exactly_when_the_experts_draw_says_so(cast):
    experts = [*cast.experts, *more_experts(9)]
    campaign = campaign_with_gold(experts, rate=0.3)
    sequences = {}
    for expert in experts:
        received = pull_all(expert, campaign)
        gold_left = 4
        for n, cr in enumerate(received):
            drawn = gold_draw(campaign.seed, campaign.pk, expert.pk, n) < campaign.gold_rate
            assert cr.is_gold == (drawn and gold_left > 0)
            gold_left -= cr.is_gold
        sequences[expert.pk] = received
    first_pull_gold = sum(seq[0].is_gold for seq in sequences.values())
    assert first_pull_gold < len(experts), "the first pull is not gold for everybody"
    assert len({tuple(cr.is_gold for cr in seq) for seq in sequences.values()}) > 1, "gold positions differ between experts"
    firsts = {next(cr.response_id for cr in seq if cr.is_gold) for seq in sequences.values() if any(cr.is_gold for cr in seq)}
    assert len(firsts) > 1, "experts do not all get the same gold check first"


def test_which_gold_check_comes_follows_the_experts_own_shuffle(cast):
    campaign = campaign_with_gold(cast.experts, rate=0.9)
    for expert in cast.experts:
        gold = [cr.pk for cr in pull_all(expert, campaign) if cr.is_gold]
        assert gold == sorted(gold, key=lambda pk: expert_order(campaign.seed, expert.pk, pk))


def test_an_expert_pulling_again_from_scratch_gets_gold_at_the_same_positions(cast):
    campaign = campaign_with_gold(cast.experts, rate=0.3)
    first = [(cr.is_gold, cr.pk if cr.is_gold else None) for cr in pull_all(cast.expert, campaign)]
    Assignment.objects.filter(expert=cast.expert).delete()
    again = [(cr.is_gold, cr.pk if cr.is_gold else None) for cr in pull_all(cast.expert, campaign)]
    assert again == first


def test_bulk_pre_assignment_gives_each_expert_gold_at_the_rate_in_expectation(cast):
    experts = [*cast.experts, *more_experts(17)]
    rate = 0.3
    campaign = campaign_with_gold(experts, rate=rate, overlap=10)
    ExpertProfile.objects.update(capacity=30)
    bulk_assign(campaign=campaign)
    rows = Assignment.objects.filter(campaign_response__campaign=campaign).values_list("expert_id", "campaign_response__is_gold")
    real, gold = Counter(), Counter()
    for expert_id, is_gold in rows:
        (gold if is_gold else real)[expert_id] += 1
    exact = {e.pk: rate / (1 - rate) * real[e.pk] for e in experts}
    assert all(math.floor(exact[e.pk]) <= gold[e.pk] <= math.ceil(exact[e.pk]) for e in experts)
    assert len({gold[e.pk] - math.floor(exact[e.pk]) for e in experts if exact[e.pk] % 1}) == 2, "rounded up for some, down for others"
    assert abs(sum(gold.values()) - sum(exact.values())) < 0.35 * len(experts)
