import pytest

from annotation.models import AdminAlert, Assignment, ExpertProfile, ExpertQuality, QualityPolicy
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import create_calibration, create_campaign
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_file, judge, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def gold_campaign(cast):
    version = demo_version()
    demo_responses()
    calibration = create_calibration(
        name="Calibration A",
        dataset_name="demo",
        source=gold_file(version, picks=[("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-aurora"), ("dm0003", "demo-model-aurora"), ("dm0004", "demo-model-aurora")]),
    ).campaign
    qualify(*cast.experts)
    return create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=2,
        gold_source=calibration,
        gold_rate=0.5,
        expert_usernames=[e.username for e in cast.experts],
    )


def test_gold_checks_are_mixed_in_at_the_campaigns_rate(cast, gold_campaign):
    assert gold_campaign.gold == 4 and gold_campaign.responses == 12
    campaign = gold_campaign.campaign
    kinds = []
    for _ in range(6):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        kinds.append(a.campaign_response.is_gold)
        judge(a)
    assert kinds.count(True) == 3


def test_an_expert_below_the_gold_threshold_is_paused_and_an_admin_alert_is_raised(cast, gold_campaign):
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 2, "gold_pause_below": 0.7})
    campaign = gold_campaign.campaign
    for _ in range(8):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        if a is None:
            break
        judge(a, wrong=4 if a.campaign_response.is_gold else 0)
    profile = ExpertProfile.objects.get(user=cast.expert)
    assert profile.availability == "paused"
    assert "quality checks" in profile.availability_reason
    alert = AdminAlert.objects.get(kind="gold_accuracy", expert=cast.expert)
    assert "paused" in alert.message
    assert ExpertQuality.objects.get(profile=profile).gold_accuracy < 0.7
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None


def test_an_accurate_expert_is_not_paused(cast, gold_campaign):
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 2})
    campaign = gold_campaign.campaign
    for _ in range(8):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        judge(a)
    assert ExpertProfile.objects.get(user=cast.expert).availability == "active"
    assert ExpertQuality.objects.get(profile__user=cast.expert).gold_accuracy == 1.0
    assert not AdminAlert.objects.exists()


def test_gold_checks_sit_outside_k_and_progress(cast, gold_campaign):
    ExpertProfile.objects.update(capacity=100)
    campaign = gold_campaign.campaign
    bulk_assign(campaign=campaign)
    real = Assignment.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=False)
    gold = Assignment.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=True)
    assert real.count() == 12 * 2
    assert gold.exists()
    for expert in cast.experts:
        mine_real = real.filter(expert=expert).count()
        mine_gold = gold.filter(expert=expert).count()
        assert mine_gold == min(4, mine_real)


def test_a_gold_rate_without_a_gold_source_is_refused(cast):
    from django.core.exceptions import ValidationError

    demo_version()
    demo_responses()
    qualify(*cast.experts)
    with pytest.raises(ValidationError, match="gold_source"):
        create_campaign(name="x", dataset_name="demo", model_names=MODELS, gold_rate=0.1)
