"""The optional e-mail digest of open risk alerts and needs-action counts, for the admins who asked for it.

Each admin gets what their own home would show (the same blindness rules), in their chosen language.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from annotation.manage.needs_action_selectors import DIGEST_GROUP, alert_text, digest_recipients, queue_counts, visible_alerts
from annotation.models import AdminAlert
from heartbench_core.models import User

DIGEST_ALERTS = 20


def digest_body(user: User) -> tuple[str, str] | None:
    """Subject and text of one admin's digest, or None when nothing waits for them."""
    counts = queue_counts(user)
    alerts = list(visible_alerts(user, AdminAlert.objects.filter(resolved_at__isnull=True)).order_by("-created_at")[:DIGEST_ALERTS])
    if not counts.total and not alerts:
        return None
    lines = [
        _("Waiting for an admin:"),
        _("- correction requests: %(n)s") % {"n": counts.corrections},
        _("- problem reports: %(n)s") % {"n": counts.problem_reports},
        _("- unclear criteria: %(n)s") % {"n": counts.unclear_reports},
        _("- open risk alerts: %(n)s") % {"n": counts.alerts},
        _("- paused or away experts: %(n)s") % {"n": counts.unavailable_experts},
        "",
    ]
    if alerts:
        lines.append(_("Open risk alerts:"))
        lines += [f"- {alert_text(a)}" for a in alerts]
        lines.append("")
    lines.append(_("Needs action: %(url)s") % {"url": getattr(settings, "SITE_URL", "").rstrip("/") + reverse("annotation:needs_action")})
    subject = _("HeartBench: %(n)s items need action") % {"n": counts.total}
    return subject, "\n".join(lines)


def send_risk_digest() -> int:
    """E-mail each opted-in admin their digest (skipped when nothing waits); return how many were sent."""
    sent = 0
    for user in digest_recipients():
        with translation.override(user.language or settings.LANGUAGE_CODE):
            body = digest_body(user)
            if body is None:
                continue
            sent += send_mail(body[0], body[1], None, [user.email])
    return sent


def set_digest_subscription(*, user: User, subscribed: bool) -> None:
    """Join or leave the admins who get the risk digest by e-mail."""
    group, _created = Group.objects.get_or_create(name=DIGEST_GROUP)
    if subscribed:
        user.groups.add(group)
    else:
        user.groups.remove(group)
