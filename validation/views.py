"""Pages of the validation app: the agreement dashboard (admins) and adjudication (senior reviewers)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject, cached_property
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.knowledge.forms import CaseForm
from annotation.knowledge.models import Case
from heartbench_core.change_sentences import change_sentences, field_label
from heartbench_core.form_errors import errors_into
from heartbench_core.http import SignedInRequest, attachment
from heartbench_core.lib.agreement_report import DEFAULTS, ReportResult, StoredReportError
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, has_role, role_required
from heartbench_core.stat_reasons import reason_text
from validation import charts
from validation import read_models as read
from validation.exports import BadFilter
from validation.filters import CandidateFilters, ExportFilters
from validation.forms import REVIEWERS_WRITE, GoldBuilderForm, PlannerForm
from validation.models import Adjudication, AgreementReport, GoldDraft, ReleasePolicy
from validation.policy_text import POLICY_VOCABULARY
from validation.services.agreement_reports import ReportOptions, request_agreement_report
from validation.services.cases import case_from_adjudication, case_from_discussion
from validation.services.gold_builder import (
    create_set_from_settled_verdicts,
    finalise_gold_draft,
    start_gold_draft,
    write_draft_verdicts,
)
from validation.services.golden import adjudicate
from validation.services.jobs import describe
from validation.services.release import change_release_policy

ADMIN = (Role.ADMIN,)
ADJUDICATORS = (Role.SENIOR_REVIEWER, Role.ADMIN)

T = TypeVar("T")


@require_safe
@role_required(*ADMIN)
def index(request: SignedInRequest) -> HttpResponse:
    found = read.report_index(Viewer.of(request), request.GET.get("page"))
    context = {"campaigns": found.page.object_list, "page": found.page, "closed_to_you": found.closed_to_you}
    return render(request, "validation/index.html", context)


@require_safe
@role_required(*ADMIN)
def dashboard(request: SignedInRequest, campaign_id: int, report_id: int | None = None) -> HttpResponse:
    # The polled partials need neither the report's figures, the charts nor the adjudication queue (nor record its exposures).
    page = read.dashboard(Viewer.of(request), campaign_id, report_id, request.GET, htmx=bool(request.htmx))
    report, part, every_model = page.report, page.part, page.every_model
    context: dict[str, Any] = {"campaign": page.campaign, "report": report}
    if part == "jobs":
        context["report_jobs"] = page.report_jobs
        return render(request, "validation/partials/report_jobs.html", context)
    if part == "history":
        context["history"] = page.history
        return render(request, "validation/partials/history.html", context)
    context.update(defaults=DEFAULTS, policy=page.policy, history=page.history)
    if report is not None:
        # A report is immutable: its section of the page is rendered once per language and kept in the cache
        # (the template's {% cache %}); these are decoded and drawn only when the section is rendered.
        figures = _ReportFigures(report)
        # The per-model tables show the first MODELS_SHOWN models (a report can compare thousands); all on request.
        context.update(
            # The creation time too: a key that outlives a test database cannot meet another report with the same id.
            report_cache_key=f"{REPORT_SECTION_VERSION}:{report.pk}:{report.created_at.timestamp()}:{'all' if every_model else MODELS_SHOWN}",
            every_model=every_model,
            models_shown=MODELS_SHOWN,
            models_slice=":" if every_model else f":{MODELS_SHOWN}",
            unreadable=SimpleLazyObject(lambda: figures.unreadable),
            r=SimpleLazyObject(lambda: figures.result),
            **{f"chart_{name}": _lazy_chart(figures, name) for name in ("ability", "confusion", "alpha", "experts", "time")},
        )
    assert page.summary is not None
    context.update(queue_total=page.summary.needs_decision, queue_summary=page.summary, queue=page.queue, report_jobs=page.report_jobs)
    return render(request, "validation/dashboard.html", context)


def _lazy_chart(figures: _ReportFigures, name: str) -> SimpleLazyObject:
    return SimpleLazyObject(lambda: figures.chart(name))


# Part of the cache key of a report's rendered section: change it when the section's template or charts change.
REPORT_SECTION_VERSION = "dashboard-report-2"
MODELS_SHOWN = 50  # rows of each per-model table of a report's page, unless `?models=all`


class _ReportFigures:
    """A stored report's figures and charts for its dashboard section, decoded on first use."""

    def __init__(self, report: AgreementReport) -> None:
        self.report = report
        self.error: StoredReportError | None = None

    @cached_property
    def result(self) -> ReportResult | None:
        try:
            return self.report.typed_result
        except StoredReportError as exc:  # say which field of which report, rather than fail the whole page
            self.error = exc
            return None

    @cached_property
    def unreadable(self) -> str:
        if self.result is not None:
            return ""
        return _("Report #%(id)s cannot be read: %(error)s") % {"id": self.report.pk, "error": self.error}

    def chart(self, name: str) -> str:
        r = self.result
        assert r is not None
        if name == "ability":
            bars = charts.agreement_bars(r.by_ability, "ability")
            return charts.interval_bars(bars, title=_("Judge–gold agreement by ability (95% CI)"), reference=r.gate.threshold)
        if name == "confusion":
            return charts.confusion_matrix(r.confusion)
        if name == "alpha":
            return charts.interval_bars(
                charts.alpha_bars(r.by_dimension, "dimension"), title=_("Krippendorff's alpha by dimension"), lo=-1.0
            )
        if name == "experts":
            return charts.interval_bars(charts.expert_bars(r.by_expert), title=_("Per-expert agreement with the golden standard"))
        return charts.line_over_time(r.over_time, title=_("Agreement as judgments arrived"))


@require_POST
@role_required(*ADMIN)
def compute(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = read.campaign_of(Viewer.of(request), campaign_id)
    try:
        judge = request.POST.get("judge", "").strip() or None
        run = request.POST.get("run", "").strip() or None
        options: ReportOptions = {
            "resamples": int(request.POST.get("resamples") or DEFAULTS.resamples),
            "seed": int(request.POST.get("seed") or DEFAULTS.seed),
            # Gate parameters left blank are the release policy's; any other value makes the report exploratory.
            "threshold": _optional(request.POST.get("threshold"), float),
            "min_pairs_per_dimension": _optional(request.POST.get("min_pairs_per_dimension"), int),
            "min_pairs_per_ability": _optional(request.POST.get("min_pairs_per_ability"), int),
            "must_clear": request.POST.get("must_clear") or None,
            "exclude_catastrophic": request.POST.get("exclude_catastrophic") == "on",
            "post_discussion": request.POST.get("post_discussion") == "on",
        }
        queued = request_agreement_report(campaign=campaign, requested_by=request.user, trigger="page", judge=judge, run=run, **options)
        text = _("Report requested (request #%(job)s): it appears here when it is done; until then its state is listed below.")
        text, level = text % {"job": queued.job.pk}, messages.SUCCESS
        if why := "; ".join(reason_text(x) for x in queued.exploratory):
            text += " " + _("It will be exploratory and will not set the gate: %(why)s.") % {"why": why}
    except ValueError:
        text, level = _("Resamples, seed, threshold and minimum pairs must be numbers."), messages.ERROR
    except ValidationError as exc:
        text, level = describe(exc), messages.ERROR
    if request.htmx:
        return render(
            request,
            "validation/partials/compute_status.html",
            {"text": text, "level": level},
            status=200 if level == messages.SUCCESS else 400,
        )
    messages.add_message(request, level, text)
    return redirect("validation:dashboard", campaign_id=campaign.pk)


@require_safe
@role_required(*ADJUDICATORS)
def adjudication_index(request: SignedInRequest) -> HttpResponse:
    """The campaigns with units to decide, with their counts, each linking to its queue (senior reviewers and admins)."""
    rows = read.campaigns_to_adjudicate(Viewer.of(request))
    return render(request, "validation/adjudication_index.html", {"rows": rows})


@require_safe
@role_required(*ADJUDICATORS)
def queue(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    viewer = Viewer.of(request)
    campaign = read.campaign_of(viewer, campaign_id)
    # A page of the stored queue (its units written by the last computation, decisions applied at once), never the whole queue.
    found = read.adjudication_queue(viewer, campaign, request.GET)
    page = Paginator(found.entries, 50).get_page(request.GET.get("page"))
    context = {
        "campaign": campaign,
        "page": page,
        "rows": read.queue_rows(viewer, campaign.pk, page.object_list, via="adjudication-queue"),
        "total": len(found.entries),
        "counts": found.counts,
        "summary": found.entries.summary,
        "show": found.filters.shown,
        "trigger": found.filters.values.get("trigger", ""),
        "triggers": Adjudication.Trigger.choices,
        "query": found.filters.query,
        "filter_errors": found.filters.messages,
    }
    template = "validation/partials/queue_body.html" if request.htmx else "validation/queue.html"
    return render(request, template, context)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*ADJUDICATORS)
def adjudication(request: SignedInRequest, campaign_id: int, entry_id: int, criterion_id: int) -> HttpResponse:
    viewer = Viewer.of(request)
    unit = read.adjudication_unit(viewer, campaign_id, entry_id, criterion_id)
    campaign, entry, criterion = unit.campaign, unit.entry, unit.criterion
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        try:
            adjudicate(
                reviewer=request.user,
                campaign_response=entry,
                criterion=criterion,
                hit=request.POST.get("hit") == "1",
                cause=request.POST.get("cause", ""),
                note=request.POST.get("note", ""),
                flag_for_authors=request.POST.get("flag") == "on",
            )
        except ValidationError as exc:
            errors = _errors_of(exc)
            if request.POST.get("hit") not in ("0", "1"):
                errors["hit"] = [_("choose hit or miss")]
        else:
            messages.success(request, _("Decision recorded as the golden label."))
            return redirect("validation:queue", campaign_id=campaign.pk)
    shown = read.unit_page(viewer, unit)
    context = {
        "campaign": campaign,
        "entry": entry,
        "criterion": criterion,
        "judgments": shown.judgments,
        "verdict": shown.verdict,
        "verdicts": shown.verdicts,
        "causes": Adjudication.Cause.choices,
        "errors": errors,
        "post": request.POST,
        "history": shown.history,
        "discussion": shown.discussion,
    }
    return render(request, "validation/adjudicate.html", context, status=400 if errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*ADJUDICATORS)
def unit_case(request: SignedInRequest, campaign_id: int, entry_id: int, criterion_id: int) -> HttpResponse:
    """Write a case from a unit's newest decision (`?from=decision`, the default) or from the experts' discussion of it."""
    viewer = Viewer.of(request)
    found = read.unit_case(viewer, campaign_id, entry_id, criterion_id, rated_it="case")
    entry, criterion, decision = found.unit.entry, found.unit.criterion, found.decision
    data = request.POST if request.method == "POST" else request.GET
    origin = "discussion" if data.get("from") == "discussion" else "decision"
    if origin == "decision" and decision is None:
        raise Http404(_("This unit has no decision yet: decide it first, or write the case from its discussion."))
    initial = (
        {"hit": "hit" if decision.hit else "miss", "cause": decision.cause, "reasoning": decision.note}
        if origin == "decision" and decision
        else {}
    )
    form = CaseForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            content, publish = form.content(), form.cleaned_data["publish"]
            try:
                if origin == "decision" and decision is not None:
                    case = case_from_adjudication(author=request.user, adjudication=decision, content=content, publish=publish)
                else:
                    case = case_from_discussion(
                        author=request.user, campaign_response=entry, criterion=criterion, content=content, publish=publish
                    )
            except ValidationError as exc:
                errors_into(form, exc)
            else:
                messages.success(request, _("Case published.") if case.status == Case.Status.PUBLISHED else _("Case saved as a draft."))
                return redirect("annotation:case", pk=case.pk)
    read.entries_shown(viewer, [entry.pk], via="case-writing")
    context = {
        "form": form,
        "criterion": criterion,
        "source_response": entry.response,
        "origin": origin,
        "decision": decision if origin == "decision" else None,
    }
    return render(request, "annotation/knowledge/case_form.html", context, status=status)


@require_safe
@role_required(*ADMIN, accepts_tokens=True)
def export(request: SignedInRequest, campaign_id: int, what: str, fmt: str) -> HttpResponseBase:
    viewer = Viewer.of(request)
    campaign = read.campaign_of(viewer, campaign_id)
    if fmt not in ("csv", "jsonl") or what not in ("judgments", "golden", "report"):
        return HttpResponse(_("unknown export"), status=404, content_type="text/plain")
    if what != "judgments" and any(request.GET.get(name) for name in ExportFilters.base_filters):
        return HttpResponse(_("since, until and model filter the judgments export only"), status=400, content_type="text/plain")
    body: str | Iterator[str] | Iterator[bytes] | None
    if what == "report":
        body = read.report_export(viewer, campaign, fmt)
        if body is None:
            return HttpResponse(_("no report has been computed for this campaign yet"), status=404, content_type="text/plain")
    else:
        try:
            body = read.export_stream(viewer, campaign, what, fmt, request.GET)
        except BadFilter as exc:
            return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return attachment(body, f"campaign-{campaign.pk}-{what}", fmt)


def _errors_of(exc: ValidationError) -> dict[str, list[str]]:
    """A service's errors by the field they name ("__all__": those that name none)."""
    return exc.message_dict if hasattr(exc, "error_dict") else {"__all__": exc.messages}


def _optional(raw: str | None, kind: Callable[[str], T]) -> T | None:
    """A number typed into a form, or None when the field was left blank."""
    text = (raw or "").strip()
    return kind(text) if text else None


@require_safe
@role_required(*ADMIN)
def alignment(request: SignedInRequest, name: str) -> HttpResponse:
    """Every judge version of a dataset against each blind test's golden standard, and how it moved from the one before."""
    found = read.alignment(Viewer.of(request), name, request.GET)
    dataset, page, threshold = found.dataset, found.page, found.threshold
    sections = [
        (
            c,
            charts.trend(
                [(row.version.key, row.alignment.item_agreement) for row in c.rows if row.alignment is not None],
                title=_("Judge–gold agreement of each judge version, in the order they were made (95% CI)"),
                reference=threshold,
            ),
        )
        for c in page.campaigns
    ]
    context = {"dataset": dataset, "page": page, "sections": sections, "threshold": threshold, "before": found.before, "after": found.after}
    # Two versions that cannot be compared: the page, with the reason beside the choice (a 400, as from the API).
    status = 400 if any(c.comparison_errors for c in page.campaigns) else 200
    return render(request, "validation/alignment.html", context, status=status)


POLICY_FORM_FIELDS: dict[str, Callable[[str], float | int]] = {
    "threshold": float,
    "min_pairs_per_dimension": int,
    "min_pairs_per_ability": int,
    "alt_test_epsilon": float,
}


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*STAFF_ROLES)
def release_policy(request: SignedInRequest, name: str) -> HttpResponse:
    """A dataset's release policy and its history (staff); admins change it with a reason."""
    viewer = Viewer.of(request)
    dataset = read.policy_dataset(viewer, name)
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        if not has_role(request.user, Role.ADMIN):
            raise PermissionDenied(_("Only an admin changes a release policy."))
        fields: dict[str, float | int | str] = {}
        for field, kind in POLICY_FORM_FIELDS.items():
            try:
                value = _optional(request.POST.get(field), kind)
            except ValueError:
                errors[field] = [_("must be a number")]
                continue
            if value is not None:
                fields[field] = value
        if must_clear := request.POST.get("must_clear"):
            fields["must_clear"] = must_clear
        if not errors:
            try:
                change_release_policy(dataset=dataset, admin=request.user, reason=request.POST.get("reason", ""), **fields)
            except ValidationError as exc:
                errors = _errors_of(exc)
            else:
                messages.success(request, _("Release policy changed; the change and its reason are in the history."))
                return redirect("validation:release-policy", name=dataset.name)
    screen = read.release_policy(viewer, dataset)
    context = {
        "dataset": dataset,
        "policy": screen.policy,
        "history": [(change, change_sentences(change.before, change.after, POLICY_VOCABULARY)) for change in screen.history],
        "clears": ReleasePolicy.Clears.choices,
        "can_edit": screen.can_edit,
        # Each error under the field's label, not its stored name.
        "errors": {(field_label(field, POLICY_VOCABULARY) if field != "__all__" else ""): msgs for field, msgs in errors.items()},
        "post": request.POST,
    }
    return render(request, "validation/release_policy.html", context, status=400 if errors else 200)


@require_safe
@role_required(*STAFF_ROLES)
def version_gate(request: SignedInRequest, version_id: int) -> HttpResponse:
    """The release decision of a dataset version (a partial for the version page when htmx asks)."""
    found = read.version_gate(Viewer.of(request), version_id)
    context = {
        "version": found.version,
        "gate": found.gate,
        "closed": found.closed,
        "policy": found.policy,
        "policy_changed": found.policy_changed,
        "can_see_report": found.can_see_report,
    }
    template = "validation/partials/version_gate.html" if request.htmx else "validation/version_gate.html"
    return render(request, template, context)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*ADMIN)
def gold_builder(request: SignedInRequest) -> HttpResponse:
    """Build a gold set or calibration set from free responses and the verdicts closed blind tests settled (admins)."""
    viewer = Viewer.of(request)
    # The posted version is looked up among all: the service refuses one the admin is blind to, saying why.
    choice = read.gold_builder_versions(viewer, request.GET.get("version") or request.POST.get("version"), request.POST.get("version"))
    versions, version, target = choice.versions, choice.version, choice.target
    filter_set = CandidateFilters(request.GET)
    form = GoldBuilderForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and target is None:
        form.add_error(None, _("There is no dataset version to build from."))
    if request.method == "POST" and form.is_valid() and target is not None:
        try:
            if form.cleaned_data["source"] == REVIEWERS_WRITE:
                draft = start_gold_draft(
                    version=target, response_ids=form.cleaned_data["responses"], spec=form.spec(), created_by=request.user
                )
                messages.success(request, _("Draft %(name)s started: senior reviewers write its verdicts.") % {"name": draft.name})
                return redirect("validation:gold-draft", draft.pk)
            outcome = create_set_from_settled_verdicts(
                version=target, response_ids=form.cleaned_data["responses"], spec=form.spec(), created_by=request.user
            )
        except ValidationError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, _("%(name)s created with %(n)d responses.") % {"name": outcome.campaign.name, "n": outcome.responses})
            return redirect("annotation:campaign", outcome.campaign.pk)
    filters = filter_set.builder_filters()
    listing = read.gold_candidates(viewer, version, filters, request.GET.get("page"))
    # Ticks survive a change of filter or page: the list's requests carry them (hx-include), and so does a refused POST.
    ticked = request.POST.getlist("responses") if request.method == "POST" else request.GET.getlist("responses")
    picked = {int(v) for v in ticked if v.isdigit()}
    query = urlencode([(k, v) for k in ("version", *CandidateFilters.base_filters) for v in request.GET.getlist(k) if v])
    context = {
        "versions": versions,
        "version": version,
        "filter_form": filter_set.form,
        "filter_errors": filter_set.messages,
        "free_only": filters.free_only,
        "form": form,
        "listing": listing,
        "picked": picked,
        "query": query,
        "picked_elsewhere": sorted(picked - {row.response_id for row in listing.rows}),
    }
    template = "validation/partials/gold_builder_list.html" if request.htmx and request.method == "GET" else "validation/gold_builder.html"
    return render(request, template, context, status=400 if form.errors else 200)


@require_safe
@role_required(*ADJUDICATORS)
def gold_drafts(request: SignedInRequest) -> HttpResponse:
    """Drafts of gold sets and calibration sets waiting for their verdicts (senior reviewers and admins)."""
    return render(request, "validation/gold_drafts.html", {"drafts": read.gold_drafts(Viewer.of(request))})


@require_safe
@role_required(*ADJUDICATORS)
def gold_draft(request: SignedInRequest, draft_id: int) -> HttpResponse:
    """One draft: each response with its dialogue, and a verdict and explanation to write per criterion."""
    draft = read.gold_draft(Viewer.of(request), draft_id)
    return _draft_page(request, draft)


def _draft_page(request: SignedInRequest, draft: GoldDraft, *, posted: int | None = None, errors: dict | None = None) -> HttpResponse:
    sheets = read.gold_draft_sheets(Viewer.of(request), draft, posted=(posted, request.POST) if posted else None)
    context = {"draft": draft, "sheets": sheets, "posted": posted, "errors": errors or {}}
    return render(request, "validation/gold_draft.html", context, status=400 if errors else 200)


@require_POST
@role_required(*ADJUDICATORS)
def gold_draft_write(request: SignedInRequest, draft_id: int, response_id: int) -> HttpResponse:
    """Save the verdicts written for one response of a draft; a refusal keeps what was typed."""
    draft = read.gold_draft(Viewer.of(request), draft_id)
    verdicts = [
        (int(key[4:]), value == "1", request.POST.get(f"explanation_{int(key[4:])}", ""))
        for key, value in request.POST.items()
        if key.startswith("hit_") and key[4:].isdigit() and value in ("1", "0")
    ]
    try:
        if not verdicts:
            raise ValidationError({"response": _("choose hit or miss for at least one criterion")})
        written = write_draft_verdicts(draft=draft, response_id=response_id, verdicts=verdicts, by=request.user)
    except ValidationError as exc:
        return _draft_page(request, draft, posted=response_id, errors=_errors_of(exc))
    messages.success(request, _("%(n)d verdicts saved.") % {"n": written})
    return redirect(reverse("validation:gold-draft", args=[draft.pk]) + f"#response-{response_id}")


@require_POST
@role_required(*ADMIN)
def gold_draft_finalise(request: SignedInRequest, draft_id: int) -> HttpResponse:
    """Create the draft's set once every criterion has a written verdict (admins)."""
    draft = read.gold_draft(Viewer.of(request), draft_id)
    try:
        outcome = finalise_gold_draft(draft=draft, by=request.user)
    except ValidationError as exc:
        return _draft_page(request, draft, errors=_errors_of(exc))
    messages.success(request, _("%(name)s created with %(n)d responses.") % {"name": outcome.campaign.name, "n": outcome.responses})
    return redirect("annotation:campaign", outcome.campaign.pk)


@require_http_methods(["GET", "HEAD"])
@role_required(*ADMIN)
def planner(request: SignedInRequest) -> HttpResponse:
    """Plan a blind test: what interval each design buys and what it costs (admins; nothing is written)."""
    viewer = Viewer.of(request)
    choices = read.planner_choices(viewer)
    asked = "version" in request.GET
    form = PlannerForm(request.GET if asked else None, versions=choices.versions, pilots=choices.pilots)
    plan = None
    if asked and form.is_valid():
        try:
            plan = read.blind_test_plan(viewer, form.cleaned_data, agreement_in_points=True)
        except ValidationError as exc:
            errors_into(form, exc)
    rows = []
    view = plan.view if plan is not None else None
    if view is not None and plan is not None:
        for design, sentence in zip(view.plan.designs, plan.sentences, strict=True):
            fill = {"dataset": view.request.version.dataset.name, "version": view.request.version.label}
            fill |= {"sample_fraction": f"{design.share:g}", "overlap": str(design.raters), "piece_rate": f"{view.request.piece_rate:g}"}
            if design.extended and view.request.extension is not None:
                fill |= {
                    "split_extension": "on",
                    "split_extension_budget": str(2 * design.extended_responses),
                    "split_extension_min_share": f"{view.request.extension.min_share:g}",
                }
            rows.append(
                {
                    "design": design,
                    "agreement_points": design.agreement_half_width * 100,
                    "difference_defined": math.isfinite(design.difference_half_width),
                    "sentence": sentence,
                    "create": reverse("annotation:campaign_create") + "?" + urlencode(fill),
                }
            )
    context = {"form": form, "view": view, "rows": rows, "pilot_text": plan.pilot_text if plan else ""}
    return render(request, "validation/planner.html", context, status=400 if form.errors else 200)
