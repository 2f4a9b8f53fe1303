"""Risk alerts computed on a schedule: an expert drifting from gold, a criterion experts disagree on, a judge at odds
with the experts on one model.

Each check returns findings; `check_risks` turns them into `AdminAlert` rows keyed by what they are
about, so a scheduled run updates the open alert with the same key (its figures and `last_seen_at`)
instead of opening another. Alerts are admin-only, and the pages withhold those about a campaign
from its own experts (`annotation.manage.needs_action_selectors.visible_alerts`).

The checks on campaign statistics (agreement among experts, judge against the experts' majority)
need the golden standard's arrays, which live in the validation app: it registers them here from
its `AppConfig.ready` (`register_risk_check`), so no import points upward. The expert-drift check
belongs to this app (gold checks are annotation's).

Every check has a minimum count under which it says nothing: two judgments are no evidence, and an
undefined figure is never an alert.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotation.models import AdminAlert, Assignment, QualityPolicy
from annotation.services.quality import compare_with_gold

# Expert drift: the last `window` gold checks against the `window` before them (the policy's gold window).
DRIFT_MIN_DROP = 0.15  # accuracy points lost between the earlier and the recent window
DRIFT_MIN_CRITERIA = 10  # criteria compared in each window, at least


@dataclass(frozen=True)
class RiskFinding:
    """One condition a check found true now; `key` names what it is about, so a later run finds the same alert."""

    kind: str  # an AdminAlert.Kind
    key: str
    message: str  # English fallback; pages render kind + details in the reader's language
    details: dict[str, Any]
    campaign_id: int | None = None
    expert_id: int | None = None
    criterion_id: int | None = None
    language_model_id: int | None = None


RiskCheck = Callable[[], list[RiskFinding]]


@dataclass
class RiskRun:
    """What one run of the checks did."""

    opened: int = 0
    updated: int = 0
    checks: list[str] = field(default_factory=list)
    findings: list[RiskFinding] = field(default_factory=list)


_CHECKS: dict[str, RiskCheck] = {}


def register_risk_check(name: str, check: RiskCheck) -> None:
    """Add a check to every run (called from an AppConfig.ready; registering a name again replaces it)."""
    _CHECKS[name] = check


def check_risks(*, now: datetime | None = None) -> RiskRun:
    """Run every registered check and record its findings as alerts: a new one, or the open one with the same key updated."""
    now = now or timezone.now()
    run = RiskRun(checks=list(_CHECKS))
    for check in _CHECKS.values():
        run.findings.extend(check())
    with transaction.atomic():
        keys = [f.key for f in run.findings]
        open_by_key = {
            a.key: a for a in AdminAlert.objects.select_for_update().filter(key__in=keys, resolved_at__isnull=True).order_by("created_at")
        }
        for finding in run.findings:
            alert = open_by_key.get(finding.key)
            if alert is not None:
                alert.details, alert.message, alert.last_seen_at = finding.details, finding.message, now
                alert.save(update_fields=["details", "message", "last_seen_at"])
                run.updated += 1
                continue
            open_by_key[finding.key] = AdminAlert.objects.create(
                kind=finding.kind,
                key=finding.key,
                message=finding.message,
                details=finding.details,
                campaign_id=finding.campaign_id,
                expert_id=finding.expert_id,
                criterion_id=finding.criterion_id,
                language_model_id=finding.language_model_id,
                last_seen_at=now,
            )
            run.opened += 1
    return run


# --- expert drift --------------------------------------------------------------------------------


def expert_drift_findings() -> list[RiskFinding]:
    """Experts whose accuracy on their last gold checks fell well below their accuracy on the gold checks before them."""
    policy = QualityPolicy.current()
    window = max(policy.gold_window, 1)
    minimum = max(policy.gold_min_checks, 1)
    # Only experts with two windows' worth of minimum checks can be compared.
    candidates = (
        Assignment.objects.filter(campaign_response__is_gold=True)
        .submitted()
        .order_by()
        .values("expert_id", "expert__username")
        .annotate(n=Count("pk"))
        .filter(n__gte=2 * minimum)
        .values_list("expert_id", "expert__username")
    )
    findings = []
    for user_id, username in candidates:
        recent_rows = list(
            Assignment.objects.filter(expert_id=user_id, campaign_response__is_gold=True)
            .submitted()
            .order_by("-submitted_at", "-id")
            .values_list("pk", "campaign_response__campaign_id")[: 2 * window]
        )
        recent, earlier = recent_rows[:window], recent_rows[window:]
        if len(recent) < minimum or len(earlier) < minimum:
            continue
        now_cmp, _rows = compare_with_gold([pk for pk, _ in recent])
        before_cmp, _rows = compare_with_gold([pk for pk, _ in earlier])
        if now_cmp.score is None or before_cmp.score is None:
            continue  # undefined is never an alert
        if now_cmp.compared < DRIFT_MIN_CRITERIA or before_cmp.compared < DRIFT_MIN_CRITERIA:
            continue
        drop = before_cmp.score - now_cmp.score
        if drop < DRIFT_MIN_DROP:
            continue
        details = {
            "value": now_cmp.score,
            "previous": before_cmp.score,
            "threshold": DRIFT_MIN_DROP,
            "checks": len(recent),
            "previous_checks": len(earlier),
            "agreed": now_cmp.agreed,
            "compared": now_cmp.compared,
            "previous_agreed": before_cmp.agreed,
            "previous_compared": before_cmp.compared,
            "username": username,
        }
        findings.append(
            RiskFinding(
                kind=AdminAlert.Kind.EXPERT_DRIFT,
                key=f"expert_drift:{user_id}",
                message=(
                    f"{username} is drifting from gold: {now_cmp.score:.0%} on the last {len(recent)} gold checks "
                    f"({now_cmp.agreed} of {now_cmp.compared} criteria), down from {before_cmp.score:.0%} on the "
                    f"{len(earlier)} before ({before_cmp.agreed} of {before_cmp.compared})."
                ),
                details=details,
                campaign_id=recent[0][1],
                expert_id=user_id,
            )
        )
    return findings


register_risk_check("expert_drift", expert_drift_findings)
