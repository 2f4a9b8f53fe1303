"""Admin pages for campaigns, assignments, expert profiles and alerts; the expert's own profile page.

Every admin page requires the admin role. The profile page shows an expert only their own
profile: credentials, qualification, calibration results with feedback, and work done — never
gold checks, other raters, or models.
"""

from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.blindness import PROGRESS_WITHHELD, own_quality_hidden
from annotation.manage import forms, selectors
from annotation.manage.needs_action_selectors import alert_rows, visible_alerts
from annotation.models import AdminAlert, Assignment, CalibrationResult, Campaign, TierChange
from annotation.services import experts as expert_services
from annotation.services.assignment import BulkAssignment, bulk_assign, calibration_state, release_assignment
from annotation.services.campaigns import create_calibration, create_campaign, create_gold_set, set_campaign_status
from annotation.services.payments import payment_csv, payment_lines
from heartbench_core.blindness import blind_scope, refuse_campaign
from heartbench_core.http import SignedInRequest
from heartbench_core.models import User
from heartbench_core.roles import Role, role_required

admin_only = role_required(Role.ADMIN)


def _messages_of(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {m}" if field != "__all__" else m for field, msgs in exc.message_dict.items() for m in msgs]
    return list(exc.messages)


def _form_errors(form: django_forms.Form, exc: ValidationError) -> None:
    """Attach a service's errors to the form fields they name (or to the form)."""
    mapping = {
        "dataset_name": "dataset",
        "version_label": "version",
        "model_names": "models",
        "models": "models",
        "source": "gold_file",
        "retake_cooldown": "cooldown_days",
    }
    if hasattr(exc, "error_dict"):
        for field, msgs in exc.message_dict.items():
            target = mapping.get(field, field)
            for m in msgs:
                form.add_error(target if target in form.fields else None, f"{m}" if target in form.fields else f"{field}: {m}")
    else:
        for m in exc.messages:
            form.add_error(None, m)


# --- campaigns ---------------------------------------------------------------------------------


@require_safe
@admin_only
def campaigns(request: SignedInRequest) -> HttpResponse:
    rows = Campaign.objects.select_related("version__dataset").order_by("-created_at")
    scope = blind_scope(request.user)
    # Withheld where the viewer is one of the campaign's experts: see campaign_detail.
    progress = {c.pk: None if scope.hides_campaign(c.pk) else selectors.campaign_progress(c) for c in rows}
    return render(
        request,
        "annotation/manage/campaigns.html",
        {"campaigns": [(c, progress[c.pk]) for c in rows], "alerts": visible_alerts(request.user, selectors.open_alerts())[:5]},
    )


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def campaign_create(request: SignedInRequest) -> HttpResponse:
    form = forms.CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = create_campaign(**form.service_kwargs(), created_by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(
                request,
                f"Campaign {outcome.campaign.name} created: {outcome.responses} responses from {outcome.items} items"
                f" ({outcome.gold} gold checks), {outcome.eligible_experts} eligible experts.",
            )
            return redirect("annotation:campaign", outcome.campaign.pk)
    return render(request, "annotation/manage/campaign_form.html", {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def calibration_create(request: SignedInRequest) -> HttpResponse:
    form = forms.CalibrationForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = create_calibration(**form.service_kwargs(), created_by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(
                request,
                _("Calibration set %(name)s created with %(n)d responses.") % {"name": outcome.campaign.name, "n": outcome.responses},
            )
            return redirect("annotation:campaign", outcome.campaign.pk)
    return render(request, "annotation/manage/calibration_form.html", {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def gold_set_create(request: SignedInRequest) -> HttpResponse:
    form = forms.GoldSetForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = create_gold_set(**form.service_kwargs(), created_by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(
                request, _("Gold set %(name)s created with %(n)d responses.") % {"name": outcome.campaign.name, "n": outcome.responses}
            )
            return redirect("annotation:campaign", outcome.campaign.pk)
    return render(request, "annotation/manage/gold_set_form.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
@admin_only
def campaign_detail(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("version__dataset", "created_by"), pk=campaign_id)
    # An admin who is also an expert of this open campaign sees its settings but not its figures:
    # the totals leave gold checks out, so a submission of theirs that did not move them was gold.
    withheld = blind_scope(request.user).hides_campaign(campaign.pk)
    context: dict[str, Any] = {
        "campaign": campaign,
        "progress": None if withheld else selectors.campaign_progress(campaign),
        "progress_withheld": PROGRESS_WITHHELD if withheld else "",
        "gold_accuracy": ([] if withheld else selectors.campaign_gold_accuracy(campaign))
        if campaign.kind == Campaign.Kind.BLIND_TEST
        else None,
    }
    if request.htmx:
        return render(request, "annotation/manage/partials/progress.html", context)
    context.update(
        models=list(campaign.language_models.order_by("name").values_list("name", flat=True)),
        results=CalibrationResult.objects.filter(campaign=campaign).select_related("expert")
        if campaign.kind == Campaign.Kind.CALIBRATION
        else None,
        payments=payment_lines(campaign),
        statuses=Campaign.Status.choices,
    )
    return render(request, "annotation/manage/campaign_detail.html", context)


@require_POST
@admin_only
def campaign_bulk_assign(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        result = bulk_assign(campaign=campaign)
    except ValidationError as exc:
        for m in _messages_of(exc):
            messages.error(request, m)
    else:
        n = result.made
        if n or result.unfilled:
            messages.success(request, _("%(n)s assignments made.") % {"n": n})
        else:
            messages.success(request, _("Nothing to assign: every open slot is taken."))
        for message in unfilled_messages(result, show_items=not blind_scope(request.user).hides_campaign(campaign.pk)):
            messages.warning(request, message)
    return redirect("annotation:campaign_assignments", campaign.pk)


UNFILLED_LISTED = 10


def unfilled_messages(result: BulkAssignment, *, show_items: bool) -> list[str]:
    """One line per reason: how many open slots no eligible expert can take, and (when allowed) which items."""
    lines = []
    for reason, slots in sorted(result.by_reason().items()):
        of_reason = [slot for slot in result.unfilled if slot.reason == reason]
        line = _("%(slots)s open slots of %(responses)s responses stay unfilled: %(why)s.") % {
            "slots": slots,
            "responses": len(of_reason),
            "why": of_reason[0].detail if len({s.detail for s in of_reason}) == 1 else reason,
        }
        if show_items:
            shown = ", ".join(f"{slot.question_id} (#{slot.campaign_response_id})" for slot in of_reason[:UNFILLED_LISTED])
            more = len(of_reason) - UNFILLED_LISTED
            line += " " + shown + (_(" and %(more)s more") % {"more": more} if more > 0 else "")
        lines.append(line)
    return lines


@require_POST
@admin_only
def campaign_status(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        set_campaign_status(campaign=campaign, status=request.POST.get("status", ""))
    except ValidationError as exc:
        for m in _messages_of(exc):
            messages.error(request, m)
    return redirect("annotation:campaign", campaign.pk)


@require_safe
@admin_only
def campaign_payments(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    response = HttpResponse(payment_csv(campaign), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="payments-campaign-{campaign.pk}.csv"'
    return response


@require_safe
@admin_only
def campaign_assignments(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    refuse_campaign(request.user, campaign.pk)  # models and gold flags of its responses: closed to its experts
    status = request.GET.get("status") or None
    expert = request.GET.get("expert") or None
    rows = blind_scope(request.user).visible_responses(
        selectors.assignment_overview(campaign, status=status, expert=expert), "campaign_response__response_id"
    )
    page = Paginator(rows, 100).get_page(request.GET.get("page"))
    context = {
        "campaign": campaign,
        "page": page,
        "statuses": Assignment.Status.choices,
        "filters": {"status": status or "", "expert": expert or ""},
        "experts": campaign.experts.order_by("username").values_list("username", flat=True),
    }
    template = "annotation/manage/partials/assignment_table.html" if request.htmx else "annotation/manage/assignments.html"
    return render(request, template, context)


@require_POST
@admin_only
def assignment_release(request: SignedInRequest, public_id: str) -> HttpResponse:
    assignment = get_object_or_404(Assignment.objects.select_related("campaign_response"), public_id=public_id)
    try:
        release_assignment(assignment=assignment, by=request.user)
    except ValidationError as exc:
        for m in _messages_of(exc):
            messages.error(request, m)
    else:
        messages.success(request, "Released: the response is back in the pool.")
    return redirect("annotation:campaign_assignments", assignment.campaign_response.campaign_id)


# --- experts -----------------------------------------------------------------------------------


@require_safe
@admin_only
def experts(request: SignedInRequest) -> HttpResponse:
    expert_services.ensure_expert_profiles()
    return render(
        request,
        "annotation/manage/experts.html",
        {"profiles": selectors.expert_profiles(), "hide_quality_of": own_quality_hidden(request.user)},
    )


@require_safe
@admin_only
def dual_roles(request: SignedInRequest) -> HttpResponse:
    """Who is expert and staff, the open campaigns they are experts of (staff views closed), what they were shown."""
    from annotation.blindness import dual_role_conflicts

    return render(request, "annotation/manage/dual_roles.html", {"rows": dual_role_conflicts()})


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def expert_edit(request: SignedInRequest, username: str) -> HttpResponse:
    user = get_object_or_404(User, username=username)
    profile = expert_services.ensure_profile(user)
    action = request.POST.get("action", "profile")
    form = forms.ProfileForm(
        request.POST if action == "profile" and request.method == "POST" else None, initial=forms.ProfileForm.initial_for(profile)
    )
    tier_form = forms.TierOverrideForm(request.POST if action == "tier" else None)
    qual_form = forms.QualificationForm(request.POST if action == "qualify" else None)
    if request.method == "POST":
        bound = {"profile": form, "tier": tier_form, "qualify": qual_form}.get(action)
        if action == "revoke":
            expert_services.revoke_qualification(expert=user, dimension=request.POST.get("dimension", ""), by=request.user)
            messages.success(request, "Qualification revoked.")
            return redirect("annotation:expert", username)
        if bound is not None and bound.is_valid():
            try:
                if action == "profile":
                    expert_services.update_profile(profile=profile, by=request.user, **form.changes())
                elif action == "tier":
                    expert_services.override_tier(
                        profile=profile, tier=tier_form.cleaned_data["tier"], reason=tier_form.cleaned_data["reason"], by=request.user
                    )
                else:
                    expert_services.grant_qualification(
                        expert=user, dimension=qual_form.cleaned_data["dimension"], reason=qual_form.cleaned_data["reason"], by=request.user
                    )
            except ValidationError as exc:
                _form_errors(bound, exc)
            else:
                messages.success(request, "Saved.")
                return redirect("annotation:expert", username)
    context = {
        "profile": profile,
        "history": selectors.profile_history(profile),
        "tier_changes": TierChange.objects.filter(profile=profile).select_related("changed_by")[:20],
        "form": form,
        "tier_form": tier_form,
        "qual_form": qual_form,
        "alerts": AdminAlert.objects.filter(expert=user).order_by("-created_at")[:10],
        "hide_quality_of": own_quality_hidden(request.user),
    }
    bad = any(f.is_bound and f.errors for f in (form, tier_form, qual_form))
    return render(request, "annotation/manage/expert_edit.html", context, status=400 if bad else 200)


@require_safe
@admin_only
def alerts(request: SignedInRequest) -> HttpResponse:
    show_all = request.GET.get("all") == "1"
    # Alerts about a campaign the admin is an expert of (its gold, agreement, judge) are not theirs to read.
    rows = visible_alerts(request.user).order_by("-created_at")
    if not show_all:
        rows = rows.filter(resolved_at__isnull=True)
    return render(request, "annotation/manage/alerts.html", {"alerts": alert_rows(rows[:200]), "show_all": show_all})


@require_POST
@admin_only
def alert_resolve(request: SignedInRequest, alert_id: int) -> HttpResponse:
    expert_services.resolve_alert(alert=get_object_or_404(visible_alerts(request.user), pk=alert_id), by=request.user)
    return redirect("annotation:needs_action" if request.POST.get("next") == "needs_action" else "annotation:alerts")


# --- the expert's own profile ---------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(Role.EXPERT)
def profile(request: SignedInRequest) -> HttpResponse:
    """An expert's own profile: they change only their availability (active / away)."""
    own = expert_services.ensure_profile(request.user)
    form = forms.AvailabilityForm(
        request.POST or None, initial={"availability": own.availability if own.availability != "paused" else "active"}
    )
    if request.method == "POST" and form.is_valid():
        try:
            expert_services.set_own_availability(
                user=request.user, availability=form.cleaned_data["availability"], reason=form.cleaned_data["reason"]
            )
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, "Availability saved.")
            return redirect("annotation:profile")
    history = selectors.profile_history(own)
    retakes = {r.campaign_id: calibration_state(expert=request.user, campaign=r.campaign) for r in history.calibrations if not r.passed}
    context = {"profile": own, "history": history, "form": form, "retakes": retakes}
    return render(request, "annotation/profile.html", context, status=400 if form.errors else 200)


@require_safe
@role_required(Role.EXPERT)
def calibration_feedback(request: SignedInRequest, result_id: int) -> HttpResponse:
    """Feedback on each miss of one of the expert's own finished calibration attempts."""
    # Another expert's result answers 404, like one that does not exist.
    result = get_object_or_404(CalibrationResult.objects.select_related("campaign"), pk=result_id, expert=request.user)
    misses = [r for r in result.feedback if not r["agreed"]]
    return render(request, "annotation/profile_calibration.html", {"result": result, "misses": misses})
