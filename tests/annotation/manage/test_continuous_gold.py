from collections import Counter

import pytest

from annotation.models import AdminAlert, Assignment, ExpertProfile, ExpertQuality, QualityPolicy
from annotation.services import quality as quality_service
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import create_campaign
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_set, judge, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def gold_campaign(cast):
    version = demo_version()
    demo_responses()
    pool = gold_set(
        version,
        picks=[
            ("dm0001", "demo-model-aurora"),
            ("dm0002", "demo-model-aurora"),
            ("dm0003", "demo-model-aurora"),
            ("dm0004", "demo-model-aurora"),
        ],
    )
    qualify(*cast.experts)
    return create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=2,
        gold_source=pool,
        gold_rate=0.5,
        expert_usernames=[e.username for e in cast.experts],
    )


def take_all(expert, campaign, *, wrong_on_gold=0):
    """Pull and submit until nothing is left (or the expert is paused); return the is_gold flag of each pull."""
    kinds = []
    while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
        kinds.append(a.campaign_response.is_gold)
        judge(a, wrong=wrong_on_gold if a.campaign_response.is_gold else 0)
    return kinds


def test_gold_checks_are_mixed_into_the_queue(cast, gold_campaign):
    # Six items × two models: four of the twelve answers are aurora's gold checks, one per gold item, in place of one model's answer.
    assert gold_campaign.gold == 4 and gold_campaign.responses == 12
    kinds = take_all(cast.expert, gold_campaign.campaign)
    assert kinds.count(True) == 4 and kinds.count(False) == 8


def test_an_expert_below_the_gold_threshold_is_paused_and_an_admin_alert_is_raised(cast, gold_campaign, monkeypatch):
    # The decision a gold check schedules lands on the next submission: with a delay of up to five, a campaign of
    # twelve whose gold checks the campaign's random order puts last could run out of work before it (a flaky test).
    monkeypatch.setattr(quality_service, "GOLD_DECISION_MAX_DELAY", 1)
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 2, "gold_pause_below": 0.7})
    campaign = gold_campaign.campaign
    kinds = take_all(cast.expert, campaign, wrong_on_gold=4)
    assert kinds.count(True) >= 2
    profile = ExpertProfile.objects.get(user=cast.expert)
    assert profile.availability == "paused"
    assert "quality checks" in profile.availability_reason
    alert = AdminAlert.objects.get(kind="gold_accuracy", expert=cast.expert)
    assert "paused" in alert.message and alert.campaign == campaign
    assert ExpertQuality.objects.get(profile=profile).gold_accuracy < 0.7
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None


def test_an_accurate_expert_is_not_paused(cast, gold_campaign):
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 2})
    take_all(cast.expert, gold_campaign.campaign)
    assert ExpertProfile.objects.get(user=cast.expert).availability == "active"
    quality = ExpertQuality.objects.get(profile__user=cast.expert)
    assert quality.gold_accuracy == 1.0 and quality.gold_checks >= 1
    assert not AdminAlert.objects.exists()


def test_bulk_pre_assignment_fills_gold_checks_up_to_k_like_any_response(cast, gold_campaign):
    ExpertProfile.objects.update(capacity=100)
    campaign = gold_campaign.campaign
    result = bulk_assign(campaign=campaign)
    assert result.open_slots == 12 * 2 and not result.unfilled
    per_response = Counter(Assignment.objects.filter(campaign_response__campaign=campaign).values_list("campaign_response_id", flat=True))
    assert sorted(per_response) == sorted(campaign.responses.values_list("pk", flat=True))
    assert set(per_response.values()) == {2}, "every response, gold or not, is held by exactly k experts"
    gold = Assignment.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=True)
    assert gold.count() == 4 * 2


def test_a_gold_rate_without_a_gold_source_is_refused(cast):
    from django.core.exceptions import ValidationError

    demo_version()
    demo_responses()
    qualify(*cast.experts)
    with pytest.raises(ValidationError, match="gold_source"):
        create_campaign(name="x", dataset_name="demo", model_names=MODELS, gold_rate=0.1)
