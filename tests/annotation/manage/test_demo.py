from collections import Counter

import pytest
from django.core.management import call_command

from annotation.models import Campaign, CampaignResponse, ExpertProfile, GoldLabel, Qualification
from annotation.services.assignment import assign_next_response

pytestmark = pytest.mark.django_db


def test_seed_demo_creates_profiles_a_calibration_and_a_blind_test_idempotently():
    call_command("seed_demo", verbosity=0)
    call_command("seed_demo", verbosity=0)
    assert Campaign.objects.filter(name="demo-calibration", kind="calibration").count() == 1
    blind = Campaign.objects.get(name="demo-blind-test")
    assert CampaignResponse.objects.filter(campaign=blind).count() == 12  # 4 of the 6 items × 3 models, gold checks among them
    assert Campaign.objects.filter(kind="gold_set").count() == 1
    assert GoldLabel.objects.filter(campaign_response__campaign__name="demo-calibration").exists()
    assert ExpertProfile.objects.filter(user__username__in=["expert1", "expert2", "expert3", "expert4", "reviewer1"]).count() == 5
    assert not Qualification.objects.filter(expert__username="expert4").exists()
    from heartbench_core.models import User

    expert1, expert4 = User.objects.get(username="expert1"), User.objects.get(username="expert4")
    assert assign_next_response(expert=expert1, campaign=blind) is not None
    assert assign_next_response(expert=expert4, campaign=blind) is None
    assert assign_next_response(expert=expert4, campaign=Campaign.objects.get(name="demo-calibration")) is not None


def test_the_demo_blind_test_draws_hidden_gold_checks_from_a_gold_set_disjoint_from_the_calibration():
    call_command("seed_demo", verbosity=0)
    blind = Campaign.objects.get(name="demo-blind-test")
    pool = Campaign.objects.get(name="demo-gold-set", kind="gold_set")
    assert blind.settings.gold_source == pool and blind.gold_rate > 0
    gold = CampaignResponse.objects.filter(campaign=blind, is_gold=True)
    real = CampaignResponse.objects.filter(campaign=blind, is_gold=False)
    assert gold.exists() and real.exists()
    calibration = set(CampaignResponse.objects.filter(campaign__name="demo-calibration").values_list("response_id", flat=True))
    assert not calibration & set(gold.values_list("response_id", flat=True))
    assert not set(real.values_list("response_id", flat=True)) & set(gold.values_list("response_id", flat=True))
    # Gold checks sit on sampled questions, in place of an answer: every question comes with one response per model, gold
    # or not, and keeps an ordinary one, so no count marks a gold check.
    per_question = Counter(blind.responses.values_list("response__question_id", flat=True))
    assert set(per_question.values()) == {3}
    assert set(gold.values_list("response__question_id", flat=True)) <= set(real.values_list("response__question_id", flat=True))
