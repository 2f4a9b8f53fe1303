"""Risk alerts computed on a schedule: drift from gold, low agreement on a criterion, a judge at odds with the experts on a model.

A run opens an alert per condition, keyed by what it is about; the next run updates that open
alert (figures, last seen) instead of repeating it. Minimum counts keep a handful of judgments
from raising anything, and an undefined figure is never an alert.
"""

import pytest
from django.core.management import call_command
from django.utils import translation

from annotation.manage.needs_action_selectors import alert_text
from annotation.models import AdminAlert, Assignment, Campaign, CampaignResponse, QualityPolicy
from annotation.services.campaigns import create_campaign
from annotation.services.risks import check_risks
from annotation.tasks import check_risks_task
from tests.factories import demo_responses, demo_version
from tests.validation.builders import blind_test
from validation import risks as campaign_risks

from .helpers import gold_set, judge, qualify

pytestmark = pytest.mark.django_db


# --- expert drift -----------------------------------------------------------------------------------


@pytest.fixture
def gold_checks(cast):
    """Four hidden gold checks of one blind test, in the order an expert would submit them."""
    version = demo_version()
    demo_responses()
    picks = [
        ("dm0001", "demo-model-aurora"),
        ("dm0002", "demo-model-aurora"),
        ("dm0003", "demo-model-aurora"),
        ("dm0004", "demo-model-aurora"),
    ]
    pool = gold_set(version, picks=picks)
    qualify(*cast.experts)
    campaign = create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=["demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=2,
        gold_source=pool,
        gold_rate=0.5,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    QualityPolicy.objects.update_or_create(pk=1, defaults={"gold_window": 2, "gold_min_checks": 2, "gold_pause_below": 0.0})
    return campaign, list(CampaignResponse.objects.filter(campaign=campaign, is_gold=True).order_by("pk"))


def _submit_gold(expert, entries, wrong):
    for entry, n_wrong in zip(entries, wrong, strict=True):
        judge(Assignment.objects.create(campaign_response=entry, expert=expert), wrong=n_wrong)


def test_an_expert_whose_recent_gold_accuracy_fell_raises_one_drift_alert(cast, gold_checks):
    campaign, entries = gold_checks
    _submit_gold(cast.expert, entries, wrong=[0, 0, 99, 99])  # right on the first two, wrong everywhere on the last two
    run = check_risks()
    alert = AdminAlert.objects.get(kind=AdminAlert.Kind.EXPERT_DRIFT)
    assert run.opened >= 1 and alert.expert == cast.expert and alert.campaign == campaign
    assert alert.details["value"] == 0.0 and alert.details["previous"] == 1.0 and alert.details["checks"] == 2
    assert alert.details["compared"] >= 10 and alert.key == f"expert_drift:{cast.expert.pk}"

    # The next run finds it still true: the same alert, updated, not a second one.
    first_seen = alert.last_seen_at
    check_risks()
    alert.refresh_from_db()
    assert AdminAlert.objects.filter(kind=AdminAlert.Kind.EXPERT_DRIFT).count() == 1 and alert.last_seen_at > first_seen


def test_a_steady_expert_raises_nothing(cast, gold_checks):
    _campaign, entries = gold_checks
    _submit_gold(cast.expert, entries, wrong=[0, 0, 0, 0])
    check_risks()
    assert not AdminAlert.objects.filter(kind=AdminAlert.Kind.EXPERT_DRIFT).exists()


def test_too_few_gold_checks_raise_nothing(cast, gold_checks):
    _campaign, entries = gold_checks
    _submit_gold(cast.expert, entries[:3], wrong=[0, 99, 99])  # two windows of two need four checks
    check_risks()
    assert not AdminAlert.objects.filter(kind=AdminAlert.Kind.EXPERT_DRIFT).exists()


def test_a_resolved_alert_is_opened_again_when_the_condition_is_still_true(cast, gold_checks):
    _campaign, entries = gold_checks
    _submit_gold(cast.expert, entries, wrong=[0, 0, 99, 99])
    check_risks()
    AdminAlert.objects.update(resolved_by=cast.admin, resolved_at=AdminAlert.objects.get().created_at)
    check_risks()
    assert AdminAlert.objects.filter(kind=AdminAlert.Kind.EXPERT_DRIFT, resolved_at__isnull=True).count() == 1


# --- campaign statistics -------------------------------------------------------------------------------


def _running(campaign):
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.ACTIVE)
    return campaign


def test_experts_judging_at_random_raise_the_judge_alert(cast):
    campaign = _running(blind_test(cast, flip=0.5, seed=3))
    check_risks()
    judge_alerts = AdminAlert.objects.filter(kind=AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL)
    assert judge_alerts.exists()
    for alert in judge_alerts:
        d = alert.details
        assert alert.language_model.name == d["model"] and d["units"] >= campaign_risks.JUDGE_MIN_UNITS and d["value"] < 0.7
    # Experts splitting everywhere make no criterion stand out: a criterion alert needs more splits than the others'.
    for alert in AdminAlert.objects.filter(kind=AdminAlert.Kind.CRITERION_LOW_ALPHA):
        d = alert.details
        assert alert.campaign == campaign and d["split"] >= 2 and d["p_value"] <= d["threshold"]


def test_experts_who_agree_with_the_judge_raise_nothing(cast):
    _running(blind_test(cast, flip=0.0))
    check_risks()
    assert not AdminAlert.objects.filter(kind__in=[AdminAlert.Kind.CRITERION_LOW_ALPHA, AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL]).exists()


def test_experts_who_never_split_raise_nothing(cast):
    _running(blind_test(cast, constant=1, with_judge=False))  # every rating the same: alpha is 0/0, and nothing splits
    check_risks()
    assert not AdminAlert.objects.exists()


def test_a_closed_campaign_is_not_checked(cast):
    blind_test(cast, flip=0.5, seed=3)  # imported judgments: a closed campaign
    check_risks()
    assert not AdminAlert.objects.exists()


# --- the schedule, the command, the reader's language ----------------------------------------------------


def test_the_task_and_the_command_run_the_same_checks(cast, gold_checks):
    _campaign, entries = gold_checks
    _submit_gold(cast.expert, entries, wrong=[0, 0, 99, 99])
    assert check_risks_task().startswith("1 opened")
    call_command("check_risks")
    assert AdminAlert.objects.count() == 1


def test_the_schedule_is_installed_by_a_migration():
    from django_q.models import Schedule

    funcs = set(Schedule.objects.values_list("func", flat=True))
    assert {"annotation.tasks.check_risks_task", "annotation.tasks.send_risk_digest_task"} <= funcs


def test_an_alert_reads_in_the_readers_language_and_falls_back_to_its_message(cast, gold_checks):
    _campaign, entries = gold_checks
    _submit_gold(cast.expert, entries, wrong=[0, 0, 99, 99])
    check_risks()
    alert = AdminAlert.objects.get()
    assert alert_text(alert).startswith(f"{cast.expert.username} is drifting from gold: 0% on the last 2 gold checks")
    with translation.override("zh-hans"):
        assert alert_text(alert)  # rendered from kind and details; the catalogue's entry, once translated, is what shows
    alert.details = {}
    assert alert_text(alert) == alert.message
