"""Experts' problem reports (about an item or response, or an unclear criterion): an admin replies and resolves them.

The reply is what the reporting expert reads on their "My reports" page. An unclear-criterion
report is also an entry of the rubric authors' work list; resolving it there
(`rubrics.services.resolve_unclear_report`) or here sets the same fields, so it leaves both lists.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import ItemProblemReport, UnclearCriterionReport
from heartbench_core.models import User
from heartbench_core.roles import Role, has_role

Report = ItemProblemReport | UnclearCriterionReport
REPORT_KINDS: dict[str, type[ItemProblemReport] | type[UnclearCriterionReport]] = {
    "problem": ItemProblemReport,
    "unclear": UnclearCriterionReport,
}
REPLY_MAX_CHARS = 5000


def resolve_report(*, report: Report, by: User, reply: str) -> Report:
    """Store the admin's reply to the reporting expert and mark the report resolved (once)."""
    if not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only admins resolve experts' reports."))
    reply = (reply or "").strip()
    if not reply:
        raise ValidationError({"reply": _("Write a reply: the expert who reported it reads it.")})
    if len(reply) > REPLY_MAX_CHARS:
        raise ValidationError({"reply": _("The reply is too long: at most %(n)s characters.") % {"n": REPLY_MAX_CHARS}})
    with transaction.atomic():
        locked = type(report).objects.select_for_update().get(pk=report.pk)
        if locked.resolved_at is not None:
            raise ValidationError({"reply": _("This report is already resolved.")})
        locked.reply = reply
        locked.resolved_at = timezone.now()
        locked.resolved_by = by
        locked.save(update_fields=["reply", "resolved_at", "resolved_by"])
        User.objects.filter(pk=locked.assignment.expert_id).update(report_reply_at=locked.resolved_at)
    return locked


def own_problem_reports(expert: User) -> QuerySet[ItemProblemReport]:
    """The expert's own item reports, newest first (nothing about models, gold checks or other raters)."""
    return ItemProblemReport.objects.filter(assignment__expert=expert).select_related("assignment__campaign_response__campaign")


def own_unclear_reports(expert: User) -> QuerySet[UnclearCriterionReport]:
    """The expert's own unclear-criterion reports, newest first, with their criterion."""
    return UnclearCriterionReport.objects.filter(assignment__expert=expert).select_related(
        "assignment__campaign_response__campaign", "criterion"
    )


def unread_replies(expert: User, *, seen_at: datetime | None) -> int:
    """Replies to the expert's reports written after they last opened their reports page.

    No query while no reply came since then (the user row says when the latest came); else two,
    each reading the replies since `seen_at` from the index on `resolved_at`.
    """
    latest = expert.report_reply_at
    if latest is None or (seen_at is not None and latest <= seen_at):
        return 0
    counts = 0
    for qs in (own_problem_reports(expert), own_unclear_reports(expert)):
        answered = qs.exclude(reply="").filter(resolved_at__isnull=False)
        if seen_at is not None:
            answered = answered.filter(resolved_at__gt=seen_at)
        counts += answered.count()
    return counts
