"""Hidden gold checks sit on sampled items, each in place of one chosen model's answer: every item carries one response
per model that answers it, gold or not, keeps at least one ordinary answer, and the sample keeps its strata.

So "outside the sample" never means gold, and how many responses an item brings never tells one.
"""

import math
from collections import Counter

import pytest

from annotation.models import CampaignResponse
from annotation.services.campaigns import create_campaign
from heartbench_core.models import ModelResponse
from tests.factories import demo_responses, demo_version
from tests.security.gold_attack import answers_per_item, heartbench_blind_test, responses_per_item

from .helpers import MODELS, gold_set, qualify

pytestmark = pytest.mark.django_db


def assert_in_place(campaign) -> None:
    per_item = responses_per_item(campaign)
    models = answers_per_item(campaign)
    assert per_item == Counter({item: models[item] for item in per_item}), "one response per model on every sampled item"
    gold = Counter(campaign.responses.filter(is_gold=True).values_list("item_id", flat=True))
    assert all(n <= per_item[item] - 1 for item, n in gold.items()), "each gold item keeps an ordinary answer"
    texts = list(campaign.responses.values_list("item_id", "response__text"))
    assert len(texts) == len(set(texts)), "no text twice on an item"


@pytest.mark.parametrize("rate", [0.05, 0.1])
def test_on_the_released_items_gold_checks_are_the_campaigns_share_and_the_strata_hold(cast, rate):
    campaign = heartbench_blind_test(cast.experts, overlap=3, gold_rate=rate, name=f"rate {rate}")
    assert_in_place(campaign)
    assert campaign.responses.count() == 118 * 3
    # The share of gold among the responses is the share of gold in each expert's work (gold is served like the rest).
    assert campaign.responses.filter(is_gold=True).count() == round(rate * 118 * 3)
    sizes = Counter(campaign.version.items.values_list("difficulty", "primary_scene"))
    picked = Counter(campaign.responses.filter(response__model__name=MODELS[1]).values_list("item__difficulty", "item__primary_scene"))
    for stratum, size in sizes.items():
        assert picked[stratum] in (math.floor(0.4 * size), math.ceil(0.4 * size)), stratum


def test_a_gold_answer_of_a_model_outside_the_campaign_takes_the_place_of_a_campaign_models_answer(cast):
    version = demo_version()
    demo_responses()
    qualify(*cast.experts)
    pool = gold_set(version, picks=[("dm0003", "demo-model-aurora")])
    campaign = create_campaign(
        name="Blind",
        dataset_name="demo",
        model_names=MODELS[1:],
        sample_fraction=1.0,  # every item, so dm0003 is in the sample whatever the random seed draws
        overlap=3,
        gold_source=pool,
        gold_rate=0.2,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    assert_in_place(campaign)
    gold = CampaignResponse.objects.get(campaign=campaign, is_gold=True)
    assert gold.response.model.name == "demo-model-aurora" and gold.item.question_id == "dm0003"
    answers = set(ModelResponse.objects.filter(question_id="dm0003", model__name__in=MODELS[1:]).values_list("pk", flat=True))
    kept = set(campaign.responses.filter(item__question_id="dm0003", is_gold=False).values_list("response_id", flat=True))
    assert len(kept) == 1 and kept < answers, "one of the two campaign models' answers gave way to the gold check"


def test_a_gold_set_too_small_for_the_rate_gives_what_it_can_and_the_outcome_says_how_many(cast):
    from annotation.models import Campaign
    from tests.security.gold_attack import heartbench_gold_set, heartbench_version

    version = heartbench_version()
    heartbench_gold_set(version, questions=10)
    qualify(*cast.experts)
    outcome = create_campaign(
        name="Greedy",
        dataset_name="heartbench",
        model_names=list(MODELS),
        overlap=3,
        gold_source=Campaign.objects.get(name="HeartBench gold"),
        gold_rate=0.5,
        expert_usernames=[e.username for e in cast.experts],
    )
    assert 0 < outcome.gold <= 10 * 2 < round(0.5 * 118 * 3)
    assert outcome.gold == outcome.campaign.responses.filter(is_gold=True).count()
    assert outcome.responses == outcome.campaign.responses.count() == 118 * 3
    assert_in_place(outcome.campaign)
