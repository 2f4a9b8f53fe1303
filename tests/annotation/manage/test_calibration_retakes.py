"""Calibration retakes are limited (attempts and cooldown per calibration set) and a retake draws other items."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from annotation.models import Assignment, CalibrationResult, Campaign, Qualification
from annotation.services.assignment import assign_next_response, calibration_state
from annotation.services.campaigns import create_calibration
from tests.factories import demo_responses, demo_version

from .helpers import age_calibration, gold_file, judge

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"
FOUR = [(f"dm000{i}", "demo-model-aurora") for i in range(1, 5)]


@pytest.fixture
def version(cast):
    v = demo_version()
    demo_responses()
    return v


def calibration(version, **kwargs):
    return create_calibration(name=kwargs.pop("name", "Cal"), dataset_name="demo", source=gold_file(version, picks=FOUR), **kwargs).campaign


def sit(expert, campaign, *, wrong=0):
    """Take one attempt to its end (scored); return the campaign responses it drew, in order."""
    drawn = []
    finished = CalibrationResult.objects.filter(expert=expert, campaign=campaign).count()
    while CalibrationResult.objects.filter(expert=expert, campaign=campaign).count() == finished:
        a = assign_next_response(expert=expert, campaign=campaign)
        if a is None:
            break
        drawn.append(a.campaign_response_id)
        judge(a, wrong=wrong)
    return drawn


def test_a_calibration_allows_two_attempts_a_day_apart_by_default(version):
    cfg = calibration(version).settings
    assert (cfg.max_attempts, cfg.retake_cooldown, cfg.sitting_size) == (2, timedelta(days=1), None)


def test_retaking_until_passing_by_chance_is_impossible(cast, version):
    campaign = calibration(version, retake_cooldown=timedelta(0))
    for _ in range(84):
        if not sit(cast.expert, campaign, wrong=99):
            break
    assert CalibrationResult.objects.filter(expert=cast.expert, campaign=campaign).count() == 2
    assert not Qualification.objects.filter(expert=cast.expert).exists()
    age_calibration(cast.expert, campaign, days=365)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None
    assert calibration_state(expert=cast.expert, campaign=campaign).retake_at is None
    assert calibration_state(expert=cast.expert, campaign=campaign).attempts_left == 0


def test_a_retake_waits_for_the_cooldown_of_its_calibration_set(cast, version):
    campaign = calibration(version, retake_cooldown=timedelta(days=3))
    sit(cast.expert, campaign, wrong=99)
    first = CalibrationResult.objects.get(expert=cast.expert)
    assert calibration_state(expert=cast.expert, campaign=campaign).retake_at == first.completed_at + timedelta(days=3)
    age_calibration(cast.expert, campaign, days=2)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None
    age_calibration(cast.expert, campaign, days=1.01)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is not None


def test_an_attempt_is_scored_when_its_sitting_is_submitted_and_records_what_it_drew(cast, version):
    campaign = calibration(version, sitting_size=2)
    drawn = sit(cast.expert, campaign)
    assert len(drawn) == 2
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert sorted(result.campaign_responses) == sorted(drawn)
    assert {r["campaign_response"] for r in result.feedback} == set(drawn)
    assert result.passed


def test_a_retake_draws_the_items_not_yet_seen_when_the_set_is_larger_than_a_sitting(cast, version):
    campaign = calibration(version, sitting_size=2, retake_cooldown=timedelta(0))
    first = sit(cast.expert, campaign, wrong=99)
    second = sit(cast.expert, campaign, wrong=99)
    assert len(second) == 2 and not set(first) & set(second)
    results = list(CalibrationResult.objects.filter(expert=cast.expert).order_by("attempt"))
    assert [sorted(r.campaign_responses) for r in results] == [sorted(first), sorted(second)]
    assert results[0].feedback, "the first attempt's comparisons survive the retake"


def test_work_of_a_sitting_that_lapsed_is_given_back_so_the_attempt_can_end(cast, version):
    from django.utils import timezone

    from annotation.services.assignment import expire_reservations

    campaign = calibration(version, sitting_size=2)
    first = assign_next_response(expert=cast.expert, campaign=campaign)
    expire_reservations(now=timezone.now() + timedelta(days=2))
    again = assign_next_response(expert=cast.expert, campaign=campaign)
    assert again.pk == first.pk and again.status == Assignment.Status.RESERVED
    judge(again)
    sit(cast.expert, campaign)
    assert CalibrationResult.objects.filter(expert=cast.expert).count() == 1


def test_sittings_are_drawn_per_expert_and_reproducibly(cast, version):
    campaign = calibration(version, sitting_size=2)
    sittings = {}
    for expert in cast.experts:
        sittings[expert.pk] = frozenset(sit(expert, campaign))
    assert len(set(sittings.values())) > 1
    # Drawn again from scratch (results and work removed), the same expert gets the same sitting.
    CalibrationResult.objects.filter(expert=cast.expert).delete()
    Assignment.objects.filter(expert=cast.expert).delete()
    assert frozenset(sit(cast.expert, campaign)) == sittings[cast.expert.pk]


def test_bad_attempt_settings_are_refused_naming_the_field(version):
    with pytest.raises(ValidationError) as exc:
        calibration(version, sitting_size=5)
    assert "larger than the set's 4 responses" in exc.value.message_dict["sitting_size"][0]
    with pytest.raises(ValidationError) as exc:
        calibration(version, max_attempts=0)
    assert "max_attempts" in exc.value.message_dict
    assert not Campaign.objects.exists()


def test_the_profile_page_says_when_no_attempt_is_left(cast, client_for, version):
    campaign = calibration(version, retake_cooldown=timedelta(0))
    sit(cast.expert, campaign, wrong=99)
    html = client_for(cast.expert).get("/work/profile/").content.decode()
    assert "retake from" in html and "no attempts left" not in html
    sit(cast.expert, campaign, wrong=99)
    html = client_for(cast.expert).get("/work/profile/").content.decode()
    assert "no attempts left" in html and "retake from" not in html


def test_asking_for_more_after_the_last_attempt_says_so(cast, client_for, version):
    from django.urls import reverse

    campaign = calibration(version, retake_cooldown=timedelta(0), max_attempts=1)
    sit(cast.expert, campaign, wrong=99)
    r = client_for(cast.expert).post(reverse("annotation:next_response", args=[campaign.pk]), follow=True)
    assert "You have made all 1 attempts allowed" in r.content.decode()


def test_attempts_sitting_and_cooldown_are_set_on_the_command_the_page_and_the_api(cast, client_for, version, tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_bytes(gold_file(version, picks=FOUR).getvalue())
    call_command(
        "create_calibration",
        "By command",
        str(path),
        "--dataset",
        "demo",
        "--max-attempts",
        "3",
        "--sitting-size",
        "2",
        "--cooldown-days",
        "2",
    )
    cfg = Campaign.objects.get(name="By command").settings
    assert (cfg.max_attempts, cfg.sitting_size, cfg.retake_cooldown) == (3, 2, timedelta(days=2))
    c = client_for(cast.admin)
    r = c.post(
        "/work/manage/calibrations/new/",
        {
            "name": "By page",
            "dataset": "demo",
            "gold_file": gold_file(version, picks=FOUR),
            "pass_threshold": "0.8",
            "max_attempts": "4",
            "cooldown_days": "0.5",
            "sitting_size": "3",
        },
    )
    assert r.status_code == 302
    cfg = Campaign.objects.get(name="By page").settings
    assert (cfg.max_attempts, cfg.sitting_size, cfg.retake_cooldown) == (4, 3, timedelta(hours=12))
    r = c.post(
        f"{API}/manage/calibrations/",
        {"name": "By api", "dataset": "demo", "file": gold_file(version, picks=FOUR), "max_attempts": 1, "sitting_size": 1},
        format="multipart",
    )
    assert r.status_code == 201
    body = r.json()
    assert (body["max_attempts"], body["sitting_size"], body["retake_cooldown"]) == (1, 1, "1 00:00:00")


def test_the_experts_progress_counts_one_sitting_not_the_whole_set(cast, version):
    from annotation.workspace.selectors import expert_home, own_progress

    campaign = calibration(version, sitting_size=2)
    campaign.experts.add(cast.expert)
    a = assign_next_response(expert=cast.expert, campaign=campaign)
    judge(a)
    home = {q.campaign.pk: q for q in expert_home(cast.expert).calibrations}
    assert (home[campaign.pk].progress.done, home[campaign.pk].progress.total) == (1, 2)
    assert own_progress(cast.expert.pk, campaign).total == 2
