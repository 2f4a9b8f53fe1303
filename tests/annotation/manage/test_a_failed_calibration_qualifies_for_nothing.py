"""Only a passed calibration attempt qualifies: a failed one grants nothing, not even a dimension it scored well in, so the
failed expert is not counted among the eligible experts, a campaign needing more raters than can work is refused, and the
expert is told they did not pass (not that every response has its raters)."""

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from annotation.models import CalibrationResult, Campaign, Qualification
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_calibration, create_campaign, eligible_experts
from annotation.workspace.selectors import why_no_work
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_file, judge, more_experts, qualify

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


@pytest.fixture
def failed(cast):
    """The expert failed the calibration (7 of 13, 54%) while scoring at the pass mark in at least one dimension."""
    version = demo_version()
    demo_responses()
    calibration = create_calibration(name="Calibration A", dataset_name="demo", source=gold_file(version), pass_threshold=0.8).campaign
    while (a := assign_next_response(expert=cast.expert, campaign=calibration)) is not None:
        judge(a, wrong=3)
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert not result.passed and any(d["passed"] for d in result.per_dimension.values())
    return result


def test_a_failed_attempt_grants_no_qualification_even_per_dimension(cast, failed):
    assert not Qualification.objects.filter(expert=cast.expert).exists()


def test_a_passed_attempt_grants_the_general_qualification_and_each_dimension_it_passed(cast, failed):
    other = cast.experts[1]
    while (a := assign_next_response(expert=other, campaign=failed.campaign)) is not None:
        judge(a, wrong=1)
    result = CalibrationResult.objects.get(expert=other)
    assert result.passed
    held = set(Qualification.objects.filter(expert=other).values_list("dimension", flat=True))
    assert held == {""} | {d for d, v in result.per_dimension.items() if v["passed"]}


def test_the_failed_expert_is_not_eligible_and_overlap_five_with_four_eligible_is_refused(cast, failed, client_for):
    four = more_experts(4)
    qualify(*four)
    pool = [cast.expert, *four]
    assert len(eligible_experts(pool, requires_qualification=True)) == 4
    body = {
        "name": "Overlap five",
        "dataset": "demo",
        "models": MODELS,
        "sample_fraction": 1.0,
        "overlap": 5,
        "experts": [u.username for u in pool],
    }
    r = client_for(cast.admin).post(f"{API}/manage/campaigns/", body, content_type="application/json")
    assert r.status_code == 400
    assert (
        "k=5 is larger than the number of eligible experts: 4 of the 5 in the pool are active and qualified"
        in r.json()["errors"]["overlap"][0]
    )
    assert not Campaign.objects.filter(name="Overlap five").exists()
    r = client_for(cast.admin).post(f"{API}/manage/campaigns/", {**body, "overlap": 4}, content_type="application/json")
    assert r.status_code == 201 and r.json()["eligible_experts"] == 4


def test_a_dimension_qualification_counts_only_where_the_campaign_qualifies_per_dimension(cast, failed):
    Qualification.objects.create(expert=cast.expert, dimension="Social", source="admin", reason="a known clinician")
    assert eligible_experts([cast.expert], requires_qualification=True) == []
    assert eligible_experts([cast.expert], requires_qualification=True, per_dimension=True) == [cast.expert]


def test_the_failed_expert_is_told_their_score_and_when_a_retake_opens(cast, failed, client_for):
    others = more_experts(3)
    qualify(*others)
    blind = create_campaign(
        name="Blind test North",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[cast.expert.username, *(o.username for o in others)],
    ).campaign
    # An old grant of the failed attempt (as made before) no longer admits them to a campaign that does not qualify per dimension.
    Qualification.objects.create(expert=cast.expert, dimension="Social", source="calibration", result=failed)
    reason = why_no_work(cast.expert, blind)
    assert reason.code == "retake_later"
    assert "You did not pass “Calibration A”: you scored 54%, the pass mark is 80%." in reason.message
    assert reason.action_url == reverse("annotation:calibration_feedback", args=[failed.pk])
    client = client_for(cast.expert)
    text = client.post(reverse("annotation:next_response", args=[blind.pk]), follow=True).content.decode()
    assert "You did not pass “Calibration A”: you scored 54%, the pass mark is 80%. A retake is possible from" in text
    assert "has its 3 raters" not in text
    assert client.get(reverse("api-ws-campaign", args=[blind.pk])).json()["no_work"]["code"] == "retake_later"


def test_after_the_last_attempt_the_expert_is_told_none_is_left(cast, failed):
    failed.campaign.settings.max_attempts = 1
    failed.campaign.settings.save()
    blind = create_campaign(
        name="Open to all",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username],
        requires_qualification=False,
    ).campaign
    blind.settings.requires_qualification = True
    blind.settings.save()
    reason = why_no_work(cast.expert, blind)
    assert reason.code == "no_attempts_left"
    assert "No attempt is left; an administrator decides what follows." in reason.message


def test_the_data_migration_withdraws_what_failed_attempts_granted(cast, failed):
    Qualification.objects.create(expert=cast.expert, dimension="Social", source="calibration", result=failed)
    Qualification.objects.create(expert=cast.expert, dimension="Emotion", source="admin", reason="a known clinician")
    migration = importlib.import_module("annotation.migrations.0018_withdraw_qualifications_of_failed_attempts")
    migration.withdraw(apps, None)
    assert list(Qualification.objects.filter(expert=cast.expert).values_list("dimension", flat=True)) == ["Emotion"]


def test_in_a_per_dimension_campaign_an_expert_is_told_the_open_work_needs_a_dimension_they_lack(cast, failed):
    blind = create_campaign(
        name="Per dimension",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username],
        requires_qualification=False,
        qualification_per_dimension=True,
    ).campaign
    blind.settings.requires_qualification = True
    blind.settings.save()
    # Every demo rubric has abilities outside Emotion: work is left, none of it in the one dimension held.
    Qualification.objects.create(expert=cast.expert, dimension="Emotion", source="admin", reason="a known clinician")
    reason = why_no_work(cast.expert, blind)
    assert reason.code == "dimension_not_qualified"
    assert "need a qualification in a dimension you do not hold (you hold: Emotion)" in reason.message
    assert "has its 1 rater" not in reason.message
