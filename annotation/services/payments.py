"""Piece-rate payment export: submitted responses per expert in a campaign × the campaign's rate."""

from __future__ import annotations

import io
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, Sum

from annotation.models import Assignment, Campaign, ExpertQuality
from heartbench_core.csvsafe import SafeWriter


@dataclass(frozen=True)
class PaymentLine:
    username: str
    email: str
    submitted: int
    active_hours: float
    rate: Decimal
    amount: Decimal
    certified: bool


def payment_lines(campaign: Campaign) -> list[PaymentLine]:
    """One line per expert with submitted work (gold checks included: they are work, and hidden)."""
    rows = (
        Assignment.objects.filter(campaign_response__campaign=campaign)
        .values("expert_id", "expert__username", "expert__email")
        .annotate(
            submitted=Count("pk", filter=Q(status=Assignment.Status.SUBMITTED)),
            seconds=Sum("active_seconds", filter=Q(status=Assignment.Status.SUBMITTED)),
        )
        .filter(submitted__gt=0)
        .order_by("expert__username")
    )
    certified = set(ExpertQuality.objects.filter(certified_at__isnull=False).values_list("profile__user_id", flat=True))
    rate = campaign.piece_rate
    return [
        PaymentLine(
            r["expert__username"],
            r["expert__email"],
            r["submitted"],
            round((r["seconds"] or 0) / 3600, 2),
            rate,
            (rate * r["submitted"]).quantize(Decimal("0.01")),
            r["expert_id"] in certified,
        )
        for r in rows
    ]


def payment_csv(campaign: Campaign) -> str:
    """The payment export as CSV text (header, one line per expert, a total line)."""
    out = io.StringIO()
    w = SafeWriter(out)
    w.writerow(["campaign", "expert", "email", "submitted_responses", "active_hours", "piece_rate", "amount", "certified"])
    lines = payment_lines(campaign)
    for p in lines:
        w.writerow(
            [
                campaign.name,
                p.username,
                p.email,
                p.submitted,
                f"{p.active_hours:.2f}",
                f"{p.rate:.2f}",
                f"{p.amount:.2f}",
                "yes" if p.certified else "no",
            ]
        )
    total = sum((p.amount for p in lines), Decimal("0.00"))
    w.writerow([campaign.name, "TOTAL", "", sum(p.submitted for p in lines), "", f"{campaign.piece_rate:.2f}", f"{total:.2f}", ""])
    return out.getvalue()
