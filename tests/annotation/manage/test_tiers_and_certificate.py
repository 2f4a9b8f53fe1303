import pytest

from annotation.models import ExpertProfile, ExpertQuality, QualityPolicy, TierChange
from annotation.services.quality import computed_tier, recompute_tier, update_certificate

pytestmark = pytest.mark.django_db


@pytest.fixture
def quality(cast):
    profile = ExpertProfile.objects.create(user=cast.expert)
    return ExpertQuality.objects.create(profile=profile)


@pytest.mark.parametrize(
    "calibration, gold, checks, tier",
    [
        (None, None, 0, 1),
        (0.7, None, 0, 1),
        (0.85, None, 0, 2),
        (0.95, 0.95, 4, 2),  # too few gold checks for tier 3
        (0.95, 0.85, 10, 2),  # gold accuracy below the tier-3 bar
        (0.95, 0.95, 10, 3),
    ],
)
def test_the_tier_follows_calibration_and_gold_accuracy(quality, calibration, gold, checks, tier):
    quality.calibration_score, quality.gold_accuracy, quality.gold_checks = calibration, gold, checks
    assert computed_tier(quality, QualityPolicy.current()) == tier


def test_a_computed_tier_change_is_recorded_and_an_override_still_wins(quality, cast):
    quality.calibration_score = 0.9
    profile = quality.profile
    ExpertProfile.objects.filter(pk=profile.pk).update(tier_override=1, tier_override_reason="probation")
    profile.refresh_from_db()
    assert recompute_tier(profile=profile, quality=quality) == 2
    profile.refresh_from_db()
    assert (profile.tier, profile.effective_tier) == (2, 1)
    change = TierChange.objects.get(profile=profile)
    assert (change.old_tier, change.new_tier, change.override) == (1, 2, False)


def test_the_certificate_needs_calibration_enough_work_and_good_quality(quality):
    QualityPolicy.objects.update_or_create(pk=1, defaults={"certificate_min_submitted": 5, "certificate_min_quality": 0.8})
    quality.calibration_score, quality.submitted = 0.9, 4
    assert not update_certificate(quality=quality)
    quality.submitted, quality.gold_accuracy = 5, 0.7
    assert not update_certificate(quality=quality), "measured quality is gold accuracy when known"
    quality.gold_accuracy = 0.85
    assert update_certificate(quality=quality)
    assert ExpertQuality.objects.get(pk=quality.pk).certified_at is not None
