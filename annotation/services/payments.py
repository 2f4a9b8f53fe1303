"""Piece-rate pay per expert and campaign, following the written quality policy.

Every submitted response is work and is paid at the campaign's piece rate, hidden gold checks
included (they are work, and an expert never learns which they were). Work submitted while the
expert was paused or away, or while the campaign was paused or closed
(`Assignment.submitted_while_paused`), is paid as `QualityPolicy.paused_work_pay` says: in full,
not at all, or held until an admin decides per (campaign, expert) with a `PayDecision`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign, ExpertCampaignTally, ExpertQuality, PayDecision, QualityPolicy
from heartbench_core.csvsafe import SafeWriter
from heartbench_core.models import User
from heartbench_core.roles import Role, has_role

CENT = Decimal("0.01")


@dataclass(frozen=True)
class PaymentLine:
    """One expert's pay in one campaign: submitted = paid + held + withheld."""

    expert_id: int
    username: str
    email: str
    submitted: int = field(metadata={"help_text": "Every submitted response, whatever it was."})
    while_paused: int = field(metadata={"help_text": "Of the submitted, those while the expert or the campaign was paused."})
    paid: int
    held: int = field(metadata={"help_text": "Awaiting an admin's decision (policy: review)."})  # while-paused work (policy "review")
    withheld: int  # while-paused work not paid (policy "none", or an admin decided so)
    active_hours: float
    rate: Decimal
    amount: Decimal
    certified: bool
    decision: PayDecision | None  # the admin's decision on the held work, if any

    @property
    def awaits_decision(self) -> bool:
        return self.held > 0


def _split(while_paused: int, submitted: int, policy: str, decision: PayDecision | None) -> tuple[int, int, int]:
    """(paid, held, withheld) of an expert's submitted work under the policy and the admin's decision."""
    normal = submitted - while_paused
    if policy == QualityPolicy.PausedWorkPay.FULL:
        return submitted, 0, 0
    if policy == QualityPolicy.PausedWorkPay.NONE:
        return normal, 0, while_paused
    if decision is None:
        return normal, while_paused, 0
    return (submitted, 0, 0) if decision.pay else (normal, 0, while_paused)


def payment_lines(campaign: Campaign, policy: QualityPolicy | None = None, *, limit: int | None = None) -> list[PaymentLine]:
    """One line per expert with submitted work (gold checks included: they are work, and hidden), by name; the first `limit` when given.

    Three queries, each of a few rows: the experts' tallies, then the certificates and pay
    decisions of those experts only.
    """
    policy = policy or QualityPolicy.current()
    # From the experts' tallies (one row each), not their assignments: the same figures whatever the campaign's size.
    tallies = (
        ExpertCampaignTally.objects.filter(campaign=campaign, submitted__gt=0)
        .annotate(while_paused=F("submitted_while_paused"), seconds=F("submitted_seconds"))
        .values("expert_id", "expert__username", "expert__email", "submitted", "while_paused", "seconds")
        .order_by("expert__username")
    )
    rows = list(tallies if limit is None else tallies[:limit])
    ids = [r["expert_id"] for r in rows]
    certified = set(
        ExpertQuality.objects.filter(certified_at__isnull=False, profile__user_id__in=ids).values_list("profile__user_id", flat=True)
    )
    decisions = {d.expert_id: d for d in PayDecision.objects.filter(campaign=campaign, expert_id__in=ids).select_related("decided_by")}
    rate = campaign.piece_rate
    lines = []
    for r in rows:
        decision = decisions.get(r["expert_id"])
        paid, held, withheld = _split(r["while_paused"], r["submitted"], policy.paused_work_pay, decision)
        lines.append(
            PaymentLine(
                expert_id=r["expert_id"],
                username=r["expert__username"],
                email=r["expert__email"],
                submitted=r["submitted"],
                while_paused=r["while_paused"],
                paid=paid,
                held=held,
                withheld=withheld,
                active_hours=round((r["seconds"] or 0) / 3600, 2),
                rate=rate,
                amount=(rate * paid).quantize(CENT),
                certified=r["expert_id"] in certified,
                decision=decision,
            )
        )
    return lines


def payment_line_count(campaign: Campaign) -> int:
    """How many lines `payment_lines` gives: the experts with submitted work."""
    return ExpertCampaignTally.objects.filter(campaign=campaign, submitted__gt=0).count()


PAYMENT_CSV_HEADER = ["campaign", "expert", "email", "submitted_responses", "submitted_while_paused", "paid_responses", "held_responses"]
PAYMENT_CSV_HEADER += ["withheld_responses", "active_hours", "piece_rate", "amount", "certified", "paused_work_policy"]
COUNTED = ("submitted", "while_paused", "paid", "held", "withheld")  # the columns of responses, summed on the total line


def payment_csv(campaign: Campaign) -> str:
    """The payment export as CSV text (header, one line per expert, a total line)."""
    policy = QualityPolicy.current()
    out = io.StringIO()
    w = SafeWriter(out)
    w.writerow(PAYMENT_CSV_HEADER)
    lines = payment_lines(campaign, policy)
    for p in lines:
        counts = [getattr(p, column) for column in COUNTED]
        figures = [f"{p.active_hours:.2f}", f"{p.rate:.2f}", f"{p.amount:.2f}", "yes" if p.certified else "no"]
        w.writerow([campaign.name, p.username, p.email, *counts, *figures, policy.paused_work_pay])
    total = sum((p.amount for p in lines), Decimal("0.00"))
    totals = [sum(getattr(p, column) for p in lines) for column in COUNTED]
    w.writerow([campaign.name, "TOTAL", "", *totals, "", f"{campaign.piece_rate:.2f}", f"{total:.2f}", "", policy.paused_work_pay])
    return out.getvalue()


def decide_held_pay(*, campaign: Campaign, expert: User, pay: bool, note: str = "", by: User) -> PayDecision:
    """An admin decides whether an expert's work submitted while paused in this campaign is paid; changeable, the last decision holds."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins decide on held pay."))
    note = (note or "").strip()
    if not pay and not note:
        raise ValidationError({"note": _("say why the held work is not paid; the expert may ask")})
    if not Assignment.objects.filter(campaign_response__campaign=campaign, expert=expert, submitted_while_paused=True).submitted().exists():
        raise ValidationError({"expert": _("%(name)s submitted no work while paused in this campaign") % {"name": expert.get_username()}})
    with transaction.atomic():
        decision, _created = PayDecision.objects.update_or_create(
            campaign=campaign, expert=expert, defaults={"pay": pay, "note": note, "decided_by": by}
        )
    return decision


PAY_POLICY_MAX_CHARS = 20_000


def update_pay_policy(*, paused_work_pay: str, pay_policy_text: str, by: User) -> QualityPolicy:
    """Admins set how work submitted while paused is paid and the written policy experts read on their profile."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins change the pay policy."))
    errors = {}
    if paused_work_pay not in QualityPolicy.PausedWorkPay.values:
        errors["paused_work_pay"] = _("must be one of %(values)s") % {"values": ", ".join(QualityPolicy.PausedWorkPay.values)}
    text = (pay_policy_text or "").replace("\r\n", "\n").strip()
    if len(text) > PAY_POLICY_MAX_CHARS:
        errors["pay_policy_text"] = _("at most %(n)d characters") % {"n": PAY_POLICY_MAX_CHARS}
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        policy = QualityPolicy.objects.select_for_update().get(pk=QualityPolicy.current().pk)
        policy.paused_work_pay = paused_work_pay
        policy.pay_policy_text = text
        policy.save(update_fields=["paused_work_pay", "pay_policy_text", "updated_at"])
    return policy
