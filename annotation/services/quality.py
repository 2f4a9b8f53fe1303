"""Quality control after each submission: calibration results, continuous gold, tiers, certificates.

`after_submit` runs inside the workspace's submit transaction. What it computes about gold is
written to admin-only rows (CalibrationResult feedback is shown to an expert only for a
calibration they finished; hidden gold checks are never revealed).

Nothing an expert can notice changes at the submission of a hidden gold check: the gold check
only schedules a decision 1–5 blind-test submissions later (a keyed draw). At that later
submission, whatever it is, the rolling gold accuracy is computed without it and the expert is
paused if it is too low; tier and certificate follow from those figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from django.db import transaction
from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.models import (
    AdminAlert,
    Assignment,
    CalibrationResult,
    Campaign,
    ExpertCampaignTally,
    ExpertProfile,
    ExpertQuality,
    GoldLabel,
    Judgment,
    Qualification,
    QualityPolicy,
    TierChange,
)
from annotation.quality_text import AUTO_PAUSE_PREFIX, AUTO_PAUSE_REASON
from annotation.services.assignment import calibration_sitting, calibration_state, keyed_uniform, work_stopped
from heartbench_core.lib.taxonomy import dimension_of, english_name
from heartbench_core.models import User


@dataclass(frozen=True)
class GoldComparison:
    """Judgments of some assignments compared with gold: how many agreed, of how many compared."""

    agreed: int
    compared: int

    @property
    def score(self) -> float | None:
        """Share agreed; None when nothing was compared."""
        return self.agreed / self.compared if self.compared else None


class GoldComparisonRow(TypedDict):
    """One criterion the expert judged and gold labelled, as calibration feedback stores it."""

    campaign_response: int
    criterion: int
    position: int
    ability: str
    ability_name: str
    dimension: str
    text: str
    expert_hit: bool
    gold_hit: bool
    agreed: bool
    rationale: str
    explanation: str


def after_submit(*, assignment: Assignment) -> None:
    """Update calibration results or continuous-gold accuracy, the tier and the certificate after a submission.

    Only the work the campaign's kind calls for is done: calibration scoring for a calibration
    campaign, the submitted count (and gold accuracy for a gold response) otherwise. The
    assignment's campaign response, campaign and expert are used as loaded by the caller.
    """
    with transaction.atomic():
        cr = assignment.campaign_response
        campaign = cr.campaign
        expert = assignment.expert
        profile, quality = _profile_and_quality(expert)
        if work_stopped(campaign=campaign, profile=profile) and not assignment.submitted_while_paused:
            # Paid as the quality policy says (annotation.services.payments); one more query only in this case.
            Assignment.objects.filter(pk=assignment.pk).update(submitted_while_paused=True)
            assignment.submitted_while_paused = True
        policy = QualityPolicy.current()
        if campaign.kind == Campaign.Kind.CALIBRATION:
            _maybe_finish_calibration(expert=expert, campaign=campaign, quality=quality)
        else:
            # From the expert's tallies (a row per campaign, kept by triggers), not a count of all their work.
            quality.submitted = ExpertCampaignTally.objects.filter(expert_id=expert.pk, campaign__kind=Campaign.Kind.BLIND_TEST).aggregate(
                n=Coalesce(Sum("submitted"), 0)
            )["n"]
            if quality.gold_decision_due is not None and quality.submitted >= quality.gold_decision_due:
                quality.gold_decision_due = None
                _update_gold_accuracy(profile=profile, quality=quality, policy=policy, leave_out=assignment.pk)
            if cr.is_gold and quality.gold_decision_due is None:
                quality.gold_decision_due = quality.submitted + gold_decision_delay(expert.pk, quality.submitted)
        quality.save()
        recompute_tier(profile=profile, quality=quality, policy=policy)
        update_certificate(quality=quality, policy=policy)


GOLD_DECISION_MAX_DELAY = 5


def gold_decision_delay(expert_id: int, submitted: int) -> int:
    """Further blind-test submissions (1…5) before the decision a gold check schedules; keyed, reproducible per expert."""
    return 1 + int(keyed_uniform("gold-decision", expert_id, submitted) * GOLD_DECISION_MAX_DELAY)


def _profile_and_quality(expert: User) -> tuple[ExpertProfile, ExpertQuality]:
    # One query when both rows exist, which is every submission after an expert's first.
    quality = ExpertQuality.objects.select_related("profile").filter(profile__user_id=expert.pk).first()
    if quality is not None:
        return quality.profile, quality
    profile, _ = ExpertProfile.objects.get_or_create(user=expert)
    quality, _ = ExpertQuality.objects.get_or_create(profile=profile)
    return profile, quality


def compare_with_gold(assignment_ids: list[int]) -> tuple[GoldComparison, list[GoldComparisonRow]]:
    """Compare submitted judgments with gold labels of the same criteria; return totals and each comparison."""
    gold = {
        (cr_id, crit): (hit, explanation)
        for cr_id, crit, hit, explanation in GoldLabel.objects.filter(campaign_response__assignments__in=assignment_ids).values_list(
            "campaign_response_id", "criterion_id", "hit", "explanation"
        )
    }
    rows: list[GoldComparisonRow] = []
    for cr_id, crit_id, hit, rationale, text, ability, position in (
        Judgment.objects.filter(assignment_id__in=assignment_ids, hit__isnull=False)
        .order_by("assignment__campaign_response__order_key", "criterion__position")
        .values_list(
            "assignment__campaign_response_id",
            "criterion_id",
            "hit",
            "rationale",
            "criterion__text",
            "criterion__ability",
            "criterion__position",
        )
    ):
        if hit is None or (cr_id, crit_id) not in gold:  # hit is never None here (filtered); this tells the type checker
            continue
        gold_hit, explanation = gold[(cr_id, crit_id)]
        rows.append(
            {
                "campaign_response": cr_id,
                "criterion": crit_id,
                "position": position,
                "ability": ability,
                "ability_name": english_name(ability),
                "dimension": dimension_of(ability) or "",
                "text": text,
                "expert_hit": hit,
                "gold_hit": gold_hit,
                "agreed": hit == gold_hit,
                "rationale": rationale,
                "explanation": explanation,
            }
        )
    return GoldComparison(sum(r["agreed"] for r in rows), len(rows)), rows


def _maybe_finish_calibration(*, expert: User, campaign: Campaign, quality: ExpertQuality) -> None:
    """Score the attempt under way once every response of its sitting is submitted."""
    # The expert's profile row is locked, so two submissions finishing one attempt at once score it once.
    list(ExpertProfile.objects.select_for_update().filter(user_id=expert.pk).values_list("pk", flat=True))
    state = calibration_state(expert=expert, campaign=campaign)
    if not state.in_progress:
        return
    sitting = calibration_sitting(expert=expert, campaign=campaign, attempt=state.attempts + 1)
    submitted = dict(
        Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).submitted().values_list("campaign_response_id", "pk")
    )
    if any(pk not in submitted for pk in sitting):
        return
    result = score_calibration(
        expert=expert,
        campaign=campaign,
        assignment_ids=[submitted[pk] for pk in sitting],
        attempt=state.attempts + 1,
        campaign_responses=sitting,
    )
    if result.passed:
        quality.calibration_score = max(result.score or 0.0, quality.calibration_score or 0.0)
    else:
        AdminAlert.objects.create(
            kind=AdminAlert.Kind.CALIBRATION_FAILED,
            expert=expert,
            campaign=campaign,
            message=f"{expert.get_username()} scored {_pct(result.score)} on calibration {campaign.name} "
            f"({result.agreed} of {result.compared} criteria agreed with gold; pass mark {_pct(result.threshold)}; "
            f"attempt {result.attempt} of {state.max_attempts}).",
            # The figures, so pages write the alert in the reader's language (needs_action_selectors.alert_text).
            details={
                "username": expert.get_username(),
                "campaign": campaign.name,
                "value": result.score,
                "agreed": result.agreed,
                "compared": result.compared,
                "threshold": result.threshold,
                "attempt": result.attempt,
                "max_attempts": state.max_attempts,
            },
        )


def score_calibration(
    *, expert: User, campaign: Campaign, assignment_ids: list[int], attempt: int, campaign_responses: list[int] | None = None
) -> CalibrationResult:
    """Score one finished attempt against gold, per dimension too, and grant the qualifications it earns.

    Only a passed attempt (overall score at the pass mark) qualifies: the general qualification and
    one for each dimension at the pass mark. A failed attempt grants nothing, not even a dimension it
    scored well in: the pass mark is set for the whole sitting, and a dimension is judged on a few of
    its criteria only.
    """
    totals, rows = compare_with_gold(assignment_ids)
    threshold = campaign.pass_threshold
    per_dim: dict[str, dict] = {}
    for r in rows:
        if not r["dimension"]:
            continue
        d = per_dim.setdefault(r["dimension"], {"agreed": 0, "compared": 0})
        d["compared"] += 1
        d["agreed"] += int(r["agreed"])
    for d in per_dim.values():
        d["score"] = d["agreed"] / d["compared"]
        d["passed"] = d["score"] >= threshold
    score = totals.score
    passed = score is not None and score >= threshold
    result = CalibrationResult.objects.create(
        campaign=campaign,
        expert=expert,
        attempt=attempt,
        score=score,
        agreed=totals.agreed,
        compared=totals.compared,
        threshold=threshold,
        passed=passed,
        per_dimension=per_dim,
        feedback=rows,
        campaign_responses=campaign_responses or [],
    )
    grants = ["", *(dim for dim, d in per_dim.items() if d["passed"])] if passed else []
    for dim in grants:
        Qualification.objects.update_or_create(
            expert=expert,
            dimension=dim,
            defaults={
                "source": Qualification.Source.CALIBRATION,
                "result": result,
                "reason": f"calibration {campaign.name}, attempt {attempt}",
            },
        )
    return result


def _update_gold_accuracy(*, profile: ExpertProfile, quality: ExpertQuality, policy: QualityPolicy, leave_out: int) -> None:
    """Rolling gold accuracy over the last gold checks except `leave_out` (the submission the decision lands on); pause if too low."""
    recent = list(
        Assignment.objects.filter(expert=profile.user, campaign_response__is_gold=True)
        .submitted()
        .exclude(pk=leave_out)
        .order_by("-submitted_at", "-id")
        .values_list("pk", "campaign_response__campaign_id")[: policy.gold_window]
    )
    totals, _rows = compare_with_gold([pk for pk, _campaign in recent])
    quality.gold_accuracy = totals.score
    quality.gold_checks = len(recent)
    quality.gold_criteria = totals.compared
    if (
        totals.score is not None
        and len(recent) >= policy.gold_min_checks
        and totals.score < policy.gold_pause_below
        and profile.availability == ExpertProfile.Availability.ACTIVE
    ):
        # Stored in English, in the one form annotation.quality_text writes again in the reader's language.
        reason = AUTO_PAUSE_REASON.format(
            checks=len(recent),
            value=_pct(totals.score),
            agreed=totals.agreed,
            compared=totals.compared,
            threshold=_pct(policy.gold_pause_below),
        )
        ExpertProfile.objects.filter(pk=profile.pk).update(availability=ExpertProfile.Availability.PAUSED, availability_reason=reason)
        profile.availability = ExpertProfile.Availability.PAUSED
        profile.availability_reason = reason
        AdminAlert.objects.create(
            kind=AdminAlert.Kind.GOLD_ACCURACY,
            expert=profile.user,
            campaign_id=recent[0][1],
            message=f"{profile.user.get_username()} was paused: {reason[len(AUTO_PAUSE_PREFIX) :]}",
            details={
                "username": profile.user.get_username(),
                "checks": len(recent),
                "value": totals.score,
                "agreed": totals.agreed,
                "compared": totals.compared,
                "threshold": policy.gold_pause_below,
            },
        )


def computed_tier(quality: ExpertQuality, policy: QualityPolicy) -> int:
    """Tier 1 by default; 2 after a good calibration; 3 when calibration and gold accuracy are both high."""
    cal = quality.calibration_score
    if cal is None or cal < policy.tier2_min_calibration:
        return 1
    gold_ok = (
        quality.gold_accuracy is not None
        and quality.gold_checks >= policy.tier3_min_gold_checks
        and quality.gold_accuracy >= policy.tier3_min_gold_accuracy
    )
    if cal >= policy.tier3_min_calibration and gold_ok:
        return 3
    return 2


def recompute_tier(*, profile: ExpertProfile, quality: ExpertQuality | None = None, policy: QualityPolicy | None = None) -> int:
    """Store the computed tier (the admin's override, if any, still wins) and record a change."""
    quality = quality or ExpertQuality.objects.get_or_create(profile=profile)[0]
    tier = computed_tier(quality, policy or QualityPolicy.current())
    if tier != profile.tier:
        TierChange.objects.create(
            profile=profile, old_tier=profile.tier, new_tier=tier, reason="computed from calibration and gold accuracy"
        )
        ExpertProfile.objects.filter(pk=profile.pk).update(tier=tier)
        profile.tier = tier
    return tier


def update_certificate(*, quality: ExpertQuality, policy: QualityPolicy | None = None) -> bool:
    """Certify once: passed calibration, enough submitted work, and measured quality at the policy's bar."""
    if quality.certified_at is not None:
        return True
    policy = policy or QualityPolicy.current()
    measured = quality.measured
    earned = (
        quality.calibration_score is not None
        and quality.submitted >= policy.certificate_min_submitted
        and measured is not None
        and measured >= policy.certificate_min_quality
    )
    if earned:
        quality.certified_at = timezone.now()
        quality.save(update_fields=["certified_at", "updated_at"])
    return earned


def _pct(x: float | None) -> str:
    return "undefined" if x is None else f"{x * 100:.0f}%"
