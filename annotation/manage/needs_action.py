"""The admins' "needs action" home, the resolve page of an expert's report, the digest opt-in; the expert's "My reports".

Admin pages require the admin role; "My reports" shows an expert only their own reports, their
status and the reply — never models, gold checks or other raters.
"""

from __future__ import annotations

from datetime import datetime

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.manage import read_models
from annotation.services.digest import set_digest_subscription
from annotation.services.reports import REPLY_MAX_CHARS, resolve_report
from heartbench_core.form_errors import errors_into
from heartbench_core.http import SignedInRequest
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required

admin_only = role_required(Role.ADMIN)
REPORTS_SEEN_KEY = "reports_seen_at"


@require_safe
@admin_only
def needs_action(request: SignedInRequest) -> HttpResponse:
    found = read_models.needs_action(Viewer.of(request), with_digest=True)
    return render(request, "annotation/manage/needs_action.html", {"home": found.home, "digest_opted_in": found.digest_opted_in})


@require_POST
@admin_only
def digest_opt_in(request: SignedInRequest) -> HttpResponse:
    """Join or leave the admins who get the risk digest by e-mail."""
    subscribed = request.POST.get("digest") == "on"
    set_digest_subscription(user=request.user, subscribed=subscribed)
    if subscribed:
        messages.success(request, gettext_lazy("You will get the risk digest by e-mail."))
    else:
        messages.success(request, gettext_lazy("You will no longer get the risk digest by e-mail."))
    return redirect("annotation:needs_action")


class ReplyForm(forms.Form):
    reply = forms.CharField(
        label=gettext_lazy("Reply to the expert"),
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=REPLY_MAX_CHARS,
        help_text=gettext_lazy("The expert reads this on their reports page. Do not name the model or say whether it was a gold check."),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def report(request: SignedInRequest, kind: str, report_id: int) -> HttpResponse:
    """One expert's report with its context; replying resolves it."""
    viewer = Viewer.of(request)
    found = read_models.expert_report(viewer, kind, report_id)
    entry = found.assignment.campaign_response
    form = ReplyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            resolve_report(report=found, by=request.user, reply=form.cleaned_data["reply"])
        except ValidationError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, gettext_lazy("Replied and resolved; the expert sees your reply."))
            return redirect("annotation:needs_action")
    read_models.expert_report_shown(viewer, found)
    context = {"report": found, "kind": kind, "entry": entry, "form": form}
    return render(request, "annotation/manage/needs_action_report.html", context, status=400 if form.errors else 200)


# --- the expert's own reports ------------------------------------------------------------------------


def reports_seen_at(request: SignedInRequest) -> datetime | None:
    """When the expert last opened their reports page (kept in their session)."""
    raw = request.session.get(REPORTS_SEEN_KEY)
    try:
        return datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


@require_safe
@role_required(Role.EXPERT)
def my_reports(request: SignedInRequest) -> HttpResponse:
    seen = reports_seen_at(request)
    rows = read_models.own_reports(Viewer.of(request))
    shown = [(k, r, bool(r.reply and r.resolved_at and (seen is None or r.resolved_at > seen))) for k, r in rows]
    request.session[REPORTS_SEEN_KEY] = timezone.now().isoformat()
    return render(request, "annotation/workspace/my_reports.html", {"rows": shown})
