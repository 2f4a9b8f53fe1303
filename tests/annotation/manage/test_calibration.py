import pytest
from django.core.exceptions import ValidationError

from annotation.models import AdminAlert, CalibrationResult, ExpertProfile, ExpertQuality, GoldLabel, Qualification
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_calibration
from heartbench_core.jsonl import InputFileError
from tests.factories import demo_responses, demo_version

from .helpers import age_calibration, gold_file, judge

pytestmark = pytest.mark.django_db


@pytest.fixture
def calibration(cast):
    version = demo_version()
    demo_responses()
    return create_calibration(name="Calibration A", dataset_name="demo", source=gold_file(version), pass_threshold=0.8).campaign


def take(expert, campaign, wrong=0):
    """Take the whole calibration; return criteria judged."""
    n = 0
    while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
        n += judge(a, wrong=wrong)
    return n


def test_a_calibration_holds_the_gold_labelled_responses(calibration):
    assert calibration.responses.count() == 2
    assert GoldLabel.objects.filter(campaign_response__campaign=calibration).count() == 6 + 7  # dm0001 has 6 criteria, dm0002 has 7


def test_an_expert_who_agrees_with_gold_passes_and_is_qualified(cast, calibration):
    take(cast.expert, calibration)
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert (result.score, result.agreed, result.compared, result.passed) == (1.0, 13, 13, True)
    dims = set(Qualification.objects.filter(expert=cast.expert).values_list("dimension", flat=True))
    assert "" in dims and "Emotion" in dims
    profile = ExpertProfile.objects.get(user=cast.expert)
    assert profile.tier == 2
    assert ExpertQuality.objects.get(profile=profile).calibration_score == 1.0


def test_the_score_counts_misses_and_the_feedback_lists_each_miss_with_the_explanation(cast, calibration):
    take(cast.expert, calibration, wrong=2)
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert (result.agreed, result.compared) == (9, 13)
    assert result.score == pytest.approx(9 / 13)
    assert not result.passed
    misses = [r for r in result.feedback if not r["agreed"]]
    assert len(misses) == 4
    assert all(r["explanation"].startswith("gold note") and r["expert_hit"] != r["gold_hit"] for r in misses)
    assert not Qualification.objects.filter(expert=cast.expert, dimension="").exists()
    assert AdminAlert.objects.filter(kind="calibration_failed", expert=cast.expert).exists()


def test_no_result_until_every_response_is_submitted(cast, calibration):
    a = assign_next_response(expert=cast.expert, campaign=calibration)
    judge(a)
    assert not CalibrationResult.objects.exists()


def test_a_failed_calibration_can_be_retaken_only_after_the_cooldown(cast, calibration):
    take(cast.expert, calibration, wrong=3)
    assert assign_next_response(expert=cast.expert, campaign=calibration) is None
    age_calibration(cast.expert, calibration, days=1.5)
    take(cast.expert, calibration)
    results = list(CalibrationResult.objects.filter(expert=cast.expert).order_by("attempt"))
    assert [(r.attempt, r.passed) for r in results] == [(1, False), (2, True)]
    assert results[0].feedback, "the first attempt's comparisons survive the retake"


def test_a_passed_calibration_is_not_retaken(cast, calibration):
    take(cast.expert, calibration)
    age_calibration(cast.expert, calibration, days=30)
    assert assign_next_response(expert=cast.expert, campaign=calibration) is None


def test_per_dimension_qualification_follows_each_dimensions_score(cast, calibration):
    take(cast.expert, calibration, wrong=1)
    result = CalibrationResult.objects.get(expert=cast.expert)
    qualified = set(Qualification.objects.filter(expert=cast.expert).exclude(dimension="").values_list("dimension", flat=True))
    assert qualified == {d for d, v in result.per_dimension.items() if v["passed"]}
    assert any(not v["passed"] for v in result.per_dimension.values())


def test_a_bad_gold_file_names_line_and_field_and_writes_nothing(cast):
    import io

    demo_version()
    demo_responses()
    bad = io.BytesIO(
        b'{"question_id": "dm0001", "model": "demo-model-aurora", "labels": [{"position": 99, "hit": true}]}\n'
        b'{"question_id": "nope", "model": "demo-model-aurora", "labels": []}\n'
        b'{"question_id": "dm0002", "model": "ghost", "labels": []}\n'
        b'{"question_id": "dm0003", "model": "demo-model-aurora", "labels": [{"position": 0, "hit": "yes"}]}\n'
    )
    bad.name = "gold.jsonl"
    with pytest.raises(InputFileError) as exc:
        create_calibration(name="Bad", dataset_name="demo", source=bad)
    text = str(exc.value)
    assert "gold.jsonl, line 1, field 'labels[0].position'" in text
    assert "line 2, field 'question_id': unknown question_id 'nope'" in text
    assert "line 3, field 'model'" in text
    assert "line 4, field 'labels[0].hit'" in text
    from annotation.models import Campaign

    assert not Campaign.objects.exists()


def test_a_pass_threshold_outside_the_unit_interval_is_refused(cast):
    version = demo_version()
    demo_responses()
    with pytest.raises(ValidationError, match="pass_threshold"):
        create_calibration(name="X", dataset_name="demo", source=gold_file(version), pass_threshold=1.5)
