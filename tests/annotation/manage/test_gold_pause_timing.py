"""The automatic pause for low gold accuracy is decided 1–5 submissions after a gold check, never at the gold check
whose result tips it, so its timing does not tell an expert which response was gold."""

import numpy as np
import pytest

from annotation.models import Assignment, Campaign, CampaignResponse, ExpertProfile, ExpertQuality, GoldLabel, QualityPolicy
from annotation.services.quality import GOLD_DECISION_MAX_DELAY, gold_decision_delay
from heartbench_core.models import ModelResponse
from tests.factories import demo_responses, demo_version

from .helpers import judge, more_experts

pytestmark = pytest.mark.django_db


@pytest.fixture
def responses(db):
    """72 blind-test campaign responses (4 campaigns × the 18 demo responses); every third one a gold check."""
    version = demo_version()
    demo_responses()
    items = {i.question_id: i for i in version.items.prefetch_related("criteria")}
    rows = []
    for c in range(4):
        campaign = Campaign.objects.create(name=f"Blind {c}", version=version, kind=Campaign.Kind.BLIND_TEST)
        for n, resp in enumerate(ModelResponse.objects.order_by("question_id", "model__name")):
            rows.append(CampaignResponse(campaign=campaign, response=resp, item=items[resp.question_id], is_gold=n % 3 == 0, order_key=n))
    crs = CampaignResponse.objects.bulk_create(rows)
    GoldLabel.objects.bulk_create(
        [
            GoldLabel(campaign_response=cr, criterion=c, hit=c.position % 2 == 0)
            for cr in crs
            if cr.is_gold
            for c in items[cr.item.question_id].criteria.all()
        ]
    )
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 3, "gold_pause_below": 0.7, "gold_window": 10})
    return crs


def submit(expert, cr, *, fail_gold=True):
    """Submit one response: a gold check judged all wrong (when fail_gold), anything else judged like gold would be."""
    a = Assignment.objects.create(campaign_response=cr, expert=expert)
    judge(a, wrong=99 if (cr.is_gold and fail_gold) else 0)
    return ExpertProfile.objects.get(user=expert).availability == ExpertProfile.Availability.PAUSED


def test_the_delay_is_one_to_five_submissions_reproducible_and_varied():
    delays = [gold_decision_delay(expert, n) for expert in range(1, 40) for n in range(30)]
    assert set(delays) == set(range(1, GOLD_DECISION_MAX_DELAY + 1))
    assert gold_decision_delay(3, 7) == gold_decision_delay(3, 7)


def test_in_long_random_sequences_the_pause_lands_one_to_five_submissions_after_the_gold_check_that_tipped_it(cast, responses):
    rng = np.random.default_rng(2026)
    experts = [*cast.experts, *more_experts(9)]
    landed_on_ordinary = 0
    for expert in experts:
        order = [responses[i] for i in rng.permutation(len(responses))]
        gold_seen, tipping, paused_at = 0, None, None
        for n, cr in enumerate(order, start=1):
            if cr.is_gold:
                gold_seen += 1
                if gold_seen == 3:  # the third failed gold check is the one that takes accuracy below the bar
                    tipping = n
            if submit(expert, cr):
                paused_at = n
                landed_on_ordinary += not cr.is_gold
                break
        assert tipping is not None and paused_at is not None, "every expert failing every gold check is paused"
        assert paused_at != tipping
        assert tipping < paused_at <= tipping + GOLD_DECISION_MAX_DELAY
        # The decision taken, nothing is pending unless the submission it landed on was itself a gold check.
        assert (ExpertQuality.objects.get(profile__user=expert).gold_decision_due is None) == (not order[paused_at - 1].is_gold)
    assert landed_on_ordinary > 0


def test_a_failed_gold_check_submitted_when_a_decision_falls_due_does_not_decide_it(cast, responses):
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_min_checks": 1})
    gold = [cr for cr in responses if cr.is_gold]
    ordinary = [cr for cr in responses if not cr.is_gold]
    expert = cast.expert
    submit(expert, gold[0], fail_gold=False)  # passed: a decision is due 1–5 submissions later
    due = ExpertQuality.objects.get(profile__user=expert).gold_decision_due
    assert due == 1 + gold_decision_delay(expert.pk, 1)
    for cr in ordinary[: due - 2]:
        assert not submit(expert, cr)
    # The submission at which the decision falls due is a failed gold check: the decision is taken on the
    # gold checks before it (all passed), and this one schedules a decision of its own, later.
    assert not submit(expert, gold[1])
    quality = ExpertQuality.objects.get(profile__user=expert)
    assert quality.gold_accuracy == 1.0 and quality.gold_checks == 1
    assert quality.gold_decision_due == due + gold_decision_delay(expert.pk, due)
    submitted = due
    paused = False
    for cr in ordinary[due:]:
        submitted += 1
        if submit(expert, cr):
            paused = True
            break
    assert paused and submitted == quality.gold_decision_due
    quality.refresh_from_db()
    assert quality.gold_checks == 2 and quality.gold_accuracy < 0.7


def test_nothing_changes_at_the_gold_submission_itself(cast, responses):
    expert = cast.expert
    gold = next(cr for cr in responses if cr.is_gold)
    submit(expert, gold)
    quality = ExpertQuality.objects.get(profile__user=expert)
    assert (quality.gold_accuracy, quality.gold_checks, quality.gold_criteria) == (None, 0, 0)
    assert quality.gold_decision_due is not None
