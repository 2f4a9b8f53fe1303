"""Admin pages for campaigns, assignments, expert profiles and alerts; the expert's own profile page.

Every admin page requires the admin role. The profile page shows an expert only their own
profile: credentials, qualification, calibration results with feedback, and work done — never
gold checks, other raters, or models.
"""

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django import forms as django_forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.manage import forms, read_models
from annotation.models import Assignment, Campaign
from annotation.services import experts as expert_services
from annotation.services.assignment import BulkAssignment, bulk_assign, campaign_settings, release_assignment
from annotation.services.campaigns import (
    FIELD_LABELS,
    CampaignOutcome,
    create_calibration,
    create_campaign,
    create_gold_set,
    has_started,
    set_campaign_status,
    update_campaign_settings,
)
from annotation.services.guidelines import current_guidelines, render_guidelines
from annotation.services.payments import decide_held_pay, payment_csv, update_pay_policy
from annotation.services.split_extension import ExtensionPass, switch_split_extension
from heartbench_core.http import SignedInRequest
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required

admin_only = role_required(Role.ADMIN)


def _form_errors(form: django_forms.Form, exc: ValidationError) -> None:
    """Attach a service's errors to the form fields they name (or to the form)."""
    mapping = {"dataset_name": "dataset", "version_label": "version", "model_names": "models", "source": "gold_file"}
    mapping["retake_cooldown"] = "cooldown_days"
    for field, m in _named(exc):
        target = mapping.get(field or "", field)
        if target in form.fields:
            form.add_error(target, m)
        else:
            form.add_error(None, m if field is None else f"{field}: {m}")


def _named(exc: ValidationError) -> list[tuple[str | None, str]]:
    """A service's messages with the field each names (None: the error as a whole)."""
    if hasattr(exc, "error_dict"):
        return [(field, m) for field, msgs in exc.message_dict.items() for m in msgs]
    return [(None, m) for m in exc.messages]


# --- campaigns ---------------------------------------------------------------------------------


@require_safe
@admin_only
def campaigns(request: SignedInRequest) -> HttpResponse:
    # Progress is withheld where the viewer is one of the campaign's experts: see campaign_detail.
    found = read_models.campaign_list(Viewer.of(request), request.GET, number=request.GET.get("page"))
    return render(
        request,
        "annotation/manage/campaigns.html",
        {
            "listing": found.listing,
            "filters": found.filters.values,
            "filter_errors": found.filters.messages,
            "query": found.filters.query,
            "statuses": Campaign.Status.choices,
            "alerts": found.alerts,
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def campaign_create(request: SignedInRequest) -> HttpResponse:
    # A design chosen on the blind-test planner arrives in the address and fills the form (nothing is created by a GET).
    fields = ("dataset", "version", "sample_fraction", "overlap", "piece_rate", "split_extension_budget", "split_extension_min_share")
    planned: dict[str, object] = {k: request.GET[k] for k in fields if request.GET.get(k)}
    if request.GET.get("split_extension"):
        planned["split_extension"] = True
    form = forms.CampaignForm(request.POST or None, initial=planned)
    said = _(
        "Campaign %(name)s created: %(responses)d responses from %(items)d items (%(gold)d gold checks), %(experts)d eligible experts."
    )
    return _create(request, form, create_campaign, "annotation/manage/campaign_form.html", said)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def calibration_create(request: SignedInRequest) -> HttpResponse:
    form = forms.CalibrationForm(request.POST or None, request.FILES or None)
    said = _("Calibration set %(name)s created with %(n)d responses.")
    return _create(request, form, create_calibration, "annotation/manage/calibration_form.html", said)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def gold_set_create(request: SignedInRequest) -> HttpResponse:
    form = forms.GoldSetForm(request.POST or None, request.FILES or None)
    return _create(
        request, form, create_gold_set, "annotation/manage/gold_set_form.html", _("Gold set %(name)s created with %(n)d responses.")
    )


def _create(request: SignedInRequest, form: Any, create: Callable[..., CampaignOutcome], template: str, said: str) -> HttpResponse:
    """A creation form: on a valid POST, the service's outcome said (`said` names its figures) and its campaign opened; else the form with its errors."""
    if request.method == "POST" and form.is_valid():
        try:
            outcome = create(**form.service_kwargs(), created_by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            figures = {"name": outcome.campaign.name, "n": outcome.responses, "responses": outcome.responses, "items": outcome.items}
            messages.success(request, said % {**figures, "gold": outcome.gold, "experts": outcome.eligible_experts})
            return redirect("annotation:campaign", outcome.campaign.pk)
    return render(request, template, {"form": form}, status=400 if form.errors else 200)


# Rows of each per-expert table on a campaign's page, unless all are asked for.
EXPERT_ROWS = 20


@require_safe
@admin_only
def campaign_detail(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    # The per-expert tables show the first EXPERT_ROWS experts unless all are asked for (`?experts=all`): a campaign
    # staffed by hundreds would otherwise draw hundreds of rows three times on every view and every poll.
    everyone = request.GET.get("experts") == "all"
    page = read_models.campaign_page(
        Viewer.of(request),
        campaign_id,
        everyone=everyone,
        rows=EXPERT_ROWS,
        progress_only=bool(request.htmx),
        every_model=request.GET.get("models") == "all",
    )
    figures = page.figures

    def shown(rows: list) -> list:
        return rows if everyone else rows[:EXPERT_ROWS]

    context: dict[str, Any] = {
        "split_extension": page.split_extension,
        "campaign": page.campaign,
        "progress": figures.progress,
        "progress_withheld": figures.reason,
        "experts_shown": shown(figures.progress.experts) if figures.progress else [],
        "all_experts": everyone,
        "gold_accuracy": None if figures.gold is None else shown(figures.gold),
        "gold_total": len(figures.gold or []),
    }
    if request.htmx:
        return render(request, "annotation/manage/partials/progress.html", context)
    context.update(vars(page), statuses=Campaign.Status.choices)  # the rest of the page: seed, models, results, payments, skips
    return render(request, "annotation/manage/campaign_detail.html", context)


@require_POST
@admin_only
def campaign_bulk_assign(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    viewer = Viewer.of(request)
    campaign = read_models.campaign(viewer, campaign_id)
    try:
        result = bulk_assign(campaign=campaign)
    except ValidationError as exc:
        _refused(request, exc)
    else:
        n = result.made
        if n or result.unfilled:
            messages.success(request, _("%(n)s assignments made.") % {"n": n})
        else:
            messages.success(request, _("Nothing to assign: every open slot is taken."))
        if summary := result.summary():
            messages.warning(request, summary)
        for message in unfilled_messages(result, show_items=read_models.unfilled_shown(viewer, campaign.pk)):
            messages.warning(request, message)
    return redirect("annotation:campaign_assignments", campaign.pk)


@require_POST
@admin_only
def campaign_split_extension(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """Turn extra raters where the verdicts split on or off, or change their budget; then extend the waiting responses."""
    campaign = read_models.campaign(Viewer.of(request), campaign_id)
    done = _act(
        request,
        lambda d: switch_split_extension(campaign=campaign, by=request.user, **d),
        form=forms.SplitExtensionForm(request.POST),
        success=_("Extra raters where the verdicts split: saved."),
    )
    if isinstance(done, ExtensionPass) and done.extended:
        messages.success(
            request,
            ngettext(
                "%(n)d waiting response was extended to two more experts.",
                "%(n)d waiting responses were extended to two more experts each.",
                done.extended,
            )
            % {"n": done.extended},
        )
    return redirect("annotation:campaign", campaign.pk)


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
    """Change the status after a confirmation page; pausing or closing needs a reason, which the experts read."""
    campaign = read_models.campaign(Viewer.of(request), campaign_id)
    status = request.POST.get("status", "")
    confirming = request.POST.get("confirm") == "True"
    if status not in Campaign.Status.values:
        messages.error(request, _("status: unknown status %(status)r") % {"status": status})
        return redirect("annotation:campaign", campaign.pk)
    if status == campaign.status:
        messages.info(request, _("The campaign is already %(status)s.") % {"status": campaign.get_status_display().lower()})
        return redirect("annotation:campaign", campaign.pk)
    form = forms.CampaignStatusForm(request.POST if confirming else None, initial={"status": status, "confirm": True})
    if confirming and form.is_valid():
        try:
            set_campaign_status(campaign=campaign, status=status, reason=form.cleaned_data["reason"], by=request.user)
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("The campaign is now %(status)s.") % {"status": campaign.get_status_display().lower()})
            return redirect("annotation:campaign", campaign.pk)
    context = {
        "campaign": campaign,
        "form": form,
        "new_status": Campaign.Status(status),
        "stops_work": status in (Campaign.Status.PAUSED, Campaign.Status.CLOSED),
        "open_preassigned": read_models.open_preassigned(Viewer.of(request), campaign),
    }
    return render(request, "annotation/manage/campaign_status_confirm.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def campaign_edit(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """Settings that may change while the campaign runs, and the guidelines; risky changes mid-test ask for a confirmation."""
    viewer = Viewer.of(request)
    campaign = read_models.campaign_for_edit(viewer, campaign_id)
    current = current_guidelines(campaign)
    cfg = campaign_settings(campaign)
    initial = forms.CampaignSettingsForm.initial_for(campaign, current.body if current else "", cfg.certificate_name)
    form = forms.CampaignSettingsForm(request.POST or None, initial=initial)
    needs_confirmation = ""
    if request.method == "POST" and form.is_valid():
        try:
            changed = update_campaign_settings(campaign=campaign, by=request.user, confirm=form.cleaned_data["confirm"], **form.changes())
        except ValidationError as exc:
            if getattr(exc, "error_dict", None) and "confirm" in exc.error_dict:
                needs_confirmation = " ".join(exc.message_dict["confirm"])
                # The same values again, now carrying the confirmation the admin is asked for.
                confirmed = request.POST.copy()
                confirmed["confirm"] = "True"
                form = forms.CampaignSettingsForm(confirmed, initial=initial)
                form.is_valid()
            else:
                _form_errors(form, exc)
        else:
            if changed:
                messages.success(request, _("Saved: %(fields)s.") % {"fields": ", ".join(str(FIELD_LABELS[c.field]) for c in changed)})
            else:
                messages.info(request, _("Nothing changed."))
            return redirect("annotation:campaign_edit", campaign.pk)
    history = read_models.settings_history(viewer, campaign)
    context = {
        "campaign": campaign,
        "form": form,
        "needs_confirmation": needs_confirmation,
        "started": has_started(campaign),
        "revisions": history.guidelines,
        "changes": history.changes,
    }
    return render(request, "annotation/manage/campaign_edit.html", context, status=400 if form.errors else 200)


@require_safe
@role_required(Role.ADMIN, accepts_tokens=True)
def campaign_payments(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    return payments_file(read_models.campaign(Viewer.of(request), campaign_id))


def payments_file(campaign: Campaign) -> HttpResponse:
    """The campaign's payment export as a CSV download (its page's link and the API)."""
    response = HttpResponse(payment_csv(campaign), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="payments-campaign-{campaign.pk}.csv"'
    return response


@require_safe
@admin_only
def campaign_payments_page(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """Pay per expert under the written policy: submitted, of which while paused, paid, held, withheld, amount."""
    viewer = Viewer.of(request)
    campaign = read_models.campaign(viewer, campaign_id)
    pay = read_models.payments(viewer, campaign)
    policy, lines = pay.policy, pay.lines
    context = {
        "campaign": campaign,
        "policy": policy,
        "lines": lines,
        "total": sum((p.amount for p in lines), Decimal("0.00")),
        "decision_form": forms.PayDecisionForm(),
        "pay_policy": render_guidelines(policy.pay_policy_text) if policy.pay_policy_text.strip() else "",
        "policy_form": forms.PayPolicyForm(initial={"paused_work_pay": policy.paused_work_pay, "pay_policy_text": policy.pay_policy_text}),
    }
    return render(request, "annotation/manage/payments.html", context)


@require_POST
@admin_only
def pay_policy(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """Change the platform's pay policy from a campaign's payments page (it holds for every campaign)."""
    campaign = read_models.campaign(Viewer.of(request), campaign_id)
    _act(
        request,
        lambda data: update_pay_policy(by=request.user, **data),
        form=forms.PayPolicyForm(request.POST),
        success=_("Pay policy saved; it holds for every campaign."),
    )
    return redirect("annotation:campaign_payments_page", campaign.pk)


def _act(
    request: SignedInRequest, act: Callable[[dict[str, Any]], object], *, success: str, form: django_forms.Form | None = None
) -> object:
    """Run a service (with a valid form's data) and say how it went as messages: each invalid field by its label, each refusal, or success; what it gave, or None."""
    if form is not None and not form.is_valid():
        for field, errors in form.errors.items():
            label = form.fields[field].label if field in form.fields else field
            for m in errors:
                messages.error(request, f"{label}: {m}")
        return None
    try:
        done = act(form.cleaned_data if form is not None else {})
    except ValidationError as exc:
        _refused(request, exc)
        return None
    messages.success(request, success)
    return done


def _refused(request: SignedInRequest, exc: ValidationError) -> None:
    """Each of a service's messages as an error, after the field it names."""
    for field, m in _named(exc):
        messages.error(request, m if field in (None, "__all__") else f"{field}: {m}")


@require_POST
@admin_only
def pay_decision(request: SignedInRequest, campaign_id: int, username: str) -> HttpResponse:
    """Decide whether an expert's work submitted while paused in this campaign is paid."""
    viewer = Viewer.of(request)
    campaign = read_models.campaign(viewer, campaign_id)
    expert = read_models.user_named(viewer, username)
    if expert is None:
        raise Http404
    _act(
        request,
        lambda data: decide_held_pay(campaign=campaign, expert=expert, pay=data["pay"], note=data["note"], by=request.user),
        form=forms.PayDecisionForm(request.POST),
        success=_("Decision on %(name)s's held work saved.") % {"name": username},
    )
    return redirect("annotation:campaign_payments_page", campaign.pk)


@require_safe
@admin_only
def campaign_assignments(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    found = read_models.assignments_page(
        Viewer.of(request),
        campaign_id,
        request.GET,
        number=request.GET.get("page"),
        after=request.GET.get("after", ""),
        before=request.GET.get("before", ""),
    )
    context = {
        "campaign": found.campaign,
        "page": found.page,
        "statuses": Assignment.Status.choices,
        "filters": {name: found.filters.values.get(name, "") for name in ("status", "expert")},
        "filter_errors": found.filters.messages,
        "experts": found.experts,
    }
    template = "annotation/manage/partials/assignment_table.html" if request.htmx else "annotation/manage/assignments.html"
    return render(request, template, context)


@require_POST
@admin_only
def assignment_release(request: SignedInRequest, public_id: str) -> HttpResponse:
    """Release after a confirmation page: the work goes back to the pool and the expert loses their draft."""
    assignment = read_models.assignment_to_release(Viewer.of(request), public_id)
    campaign_id = assignment.campaign_response.campaign_id
    if request.POST.get("confirm") != "yes":
        return render(
            request, "annotation/manage/release_confirm.html", {"assignment": assignment, "campaign": assignment.campaign_response.campaign}
        )
    _act(
        request,
        lambda _data: release_assignment(assignment=assignment, by=request.user),
        success=_("Released: the response is back in the pool."),
    )
    return redirect("annotation:campaign_assignments", campaign_id)


# --- experts -----------------------------------------------------------------------------------


@require_safe
@admin_only
def experts(request: SignedInRequest) -> HttpResponse:
    expert_services.ensure_expert_profiles()
    roster = read_models.expert_roster(Viewer.of(request), number=request.GET.get("page"))
    return render(request, "annotation/manage/experts.html", {"page": roster.page, "hide_quality_of": roster.hide_quality_of})


@require_safe
@admin_only
def dual_roles(request: SignedInRequest) -> HttpResponse:
    """Who is expert and staff, the open campaigns they are experts of (staff views closed), what they were shown."""
    return render(request, "annotation/manage/dual_roles.html", {"rows": read_models.dual_role_conflicts(Viewer.of(request))})


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def expert_edit(request: SignedInRequest, username: str) -> HttpResponse:
    viewer = Viewer.of(request)
    user = read_models.expert(viewer, username)
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
            messages.success(request, _("Qualification revoked."))
            return redirect("annotation:expert", username)
        if bound is not None and bound.is_valid():
            try:
                if action == "profile":
                    expert_services.update_profile(profile=profile, by=request.user, **form.changes())
                elif action == "tier":  # tier and reason
                    expert_services.override_tier(profile=profile, by=request.user, **tier_form.cleaned_data)
                else:  # dimension and reason
                    expert_services.grant_qualification(expert=user, by=request.user, **qual_form.cleaned_data)
            except ValidationError as exc:
                _form_errors(bound, exc)
            else:
                messages.success(request, _("Saved."))
                return redirect("annotation:expert", username)
    page = read_models.expert_page(viewer, profile)
    context = {"profile": profile, "form": form, "tier_form": tier_form, "qual_form": qual_form, **vars(page)}
    bad = any(f.is_bound and f.errors for f in (form, tier_form, qual_form))
    return render(request, "annotation/manage/expert_edit.html", context, status=400 if bad else 200)


@require_safe
@admin_only
def alerts(request: SignedInRequest) -> HttpResponse:
    # Alerts about a campaign the admin is an expert of (its gold, agreement, judge) are not theirs to read.
    page = read_models.alert_page(Viewer.of(request), request.GET)
    context = {"alerts": page.rows, "show_all": page.filters.show_all, "filter_errors": page.filters.messages}
    return render(request, "annotation/manage/alerts.html", context)


@require_POST
@admin_only
def alert_resolve(request: SignedInRequest, alert_id: int) -> HttpResponse:
    expert_services.resolve_alert(alert=read_models.alert(Viewer.of(request), alert_id), by=request.user)
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
            expert_services.set_own_availability(user=request.user, **form.cleaned_data)  # availability and reason
        except ValidationError as exc:
            _form_errors(form, exc)
        else:
            messages.success(request, _("Availability saved."))
            return redirect("annotation:profile")
    page = read_models.own_profile_page(Viewer.of(request), own)
    pay_policy = render_guidelines(page.policy.pay_policy_text) if page.policy.pay_policy_text.strip() else ""
    # The page's history, retakes, certificates and policy.
    context = {"profile": own, "form": form, **vars(page), "pay_policy": pay_policy}
    return render(request, "annotation/profile.html", context, status=400 if form.errors else 200)


@require_safe
@role_required(Role.EXPERT)
def certificate(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """The expert's printable certificate for one campaign (A4); 404 until the quality policy's thresholds are met."""
    # The exact quality only once no open campaign counts the expert's gold checks (annotation.blindness).
    issued = read_models.own_certificate(Viewer.of(request), campaign_id)
    if issued is None:
        raise Http404(_("No certificate for this campaign: it is issued once the quality policy's thresholds are met."))
    verify_url = request.build_absolute_uri(reverse("annotation:certificate_verify", args=[issued.code]))
    return render(request, "annotation/certificate.html", {"cert": issued, "verify_url": verify_url})


@require_safe
def certificate_verify(request: HttpRequest, code: str) -> HttpResponse:
    """Anyone holding a certificate's code can check it is genuine: holder, title, campaign, submitted responses, date."""
    issued = read_models.verified_certificate(Viewer.of(request), code)
    return render(request, "annotation/certificate_verify.html", {"cert": issued, "code": code}, status=200 if issued else 404)


@require_safe
@role_required(Role.EXPERT)
def calibration_feedback(request: SignedInRequest, result_id: int) -> HttpResponse:
    """One of the expert's own finished calibration attempts: score against the pass mark, feedback on each miss, what follows."""
    # Another expert's result answers 404, like one that does not exist.
    outcome = read_models.calibration_feedback(Viewer.of(request), result_id)
    return render(request, "annotation/profile_calibration.html", {"outcome": outcome, "result": outcome.result})
