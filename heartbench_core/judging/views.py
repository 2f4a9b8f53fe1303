"""The judging pages (admins): endpoints, judge prompt templates and their revisions, runs with progress, cancel and retry."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from heartbench_core.form_errors import errors_into, messages_of
from heartbench_core.http import SignedInRequest
from heartbench_core.judging import read_models as judging
from heartbench_core.judging.endpoint_policy import key_variable_allowed
from heartbench_core.judging.forms import EndpointForm, RunForm, TemplateRevisionForm
from heartbench_core.judging.models import Endpoint, JudgeTemplateRevision
from heartbench_core.judging.run_display import describe_selection
from heartbench_core.judging.services import runs as run_services
from heartbench_core.judging.services.endpoints import add_template_revision, default_template, save_endpoint
from heartbench_core.judging.services.llm import read_api_key
from heartbench_core.lib.judge_prompt import (
    DEFAULT_TEMPLATE_NAME,
    PromptTemplate,
    explains_fence,
    fence_close,
    fence_notice,
    fence_open,
)
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required

admin_only = role_required(Role.ADMIN)
RUNS_PER_PAGE = 25


def _key_present(endpoint: Endpoint) -> bool | None:
    """Whether the endpoint's key variable is set in this process (None: no key, or a variable it may not name). Never the value."""
    if not endpoint.api_key_env or not key_variable_allowed(endpoint.api_key_env):
        return None
    try:
        read_api_key(endpoint.api_key_env)
    except Exception:
        return False
    return True


@require_safe
@admin_only
def index(request: SignedInRequest) -> HttpResponse:
    default_template(by=request.user)
    shown = judging.index(Viewer.of(request), page_number=request.GET.get("page"), per_page=RUNS_PER_PAGE)
    return render(request, "heartbench_core/judging/index.html", vars(shown))


def _save_endpoint(request: SignedInRequest, form: EndpointForm, *, name: str) -> Endpoint | None:
    if not form.is_valid():
        return None
    values = {k: v for k, v in form.cleaned_data.items() if k != "name"}
    try:
        return save_endpoint(name=name, by=request.user, **values).endpoint
    except ValidationError as exc:
        errors_into(form, exc)
        return None


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def endpoint_new(request: SignedInRequest) -> HttpResponse:
    form = EndpointForm(request.POST or None)
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        if judging.endpoint_exists(Viewer.of(request), name):
            form.add_error("name", _("An endpoint with this name exists: change it on its own page."))
        elif (endpoint := _save_endpoint(request, form, name=name)) is not None:
            messages.success(request, _("Endpoint %(name)s created.") % {"name": endpoint.name})
            return redirect(endpoint)
    return render(request, "heartbench_core/judging/endpoint.html", {"form": form, "endpoint": None}, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def endpoint_detail(request: SignedInRequest, name: str) -> HttpResponse:
    viewer = Viewer.of(request)
    found = judging.endpoint(viewer, name)
    endpoint = found.endpoint
    if request.method == "POST":
        data = request.POST.copy()
        data["name"] = endpoint.name
        form = EndpointForm(data)
        if _save_endpoint(request, form, name=endpoint.name) is not None:
            messages.success(request, _("Endpoint %(name)s saved.") % {"name": endpoint.name})
            return redirect(endpoint)
    else:
        form = EndpointForm.of(endpoint)
    context = {**vars(found), "form": form, "rows": judging.endpoint_runs(viewer, endpoint), "key_present": _key_present(endpoint)}
    return render(request, "heartbench_core/judging/endpoint.html", context, status=400 if form.errors else 200)


def _add_revision(request: SignedInRequest, form: TemplateRevisionForm, *, name: str) -> JudgeTemplateRevision | None:
    """Record the valid form's wording as the template's next revision; None with the service's errors on the form."""
    try:
        return add_template_revision(**{**form.cleaned_data, "name": name}, by=request.user)
    except ValidationError as exc:
        errors_into(form, exc)
        return None


def _wording(revision: JudgeTemplateRevision | None) -> dict[str, str]:
    """What a new revision's form starts from: the revision's messages (blank without one)."""
    return {"system": revision.system if revision else "", "user": revision.user if revision else ""}


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def template_new(request: SignedInRequest) -> HttpResponse:
    form = TemplateRevisionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        if judging.template_exists(Viewer.of(request), d["name"]):
            form.add_error("name", _("A template with this name exists: add a revision on its own page."))
        elif revision := _add_revision(request, form, name=d["name"]):
            messages.success(request, _("Template %(name)s created.") % {"name": revision.template.name})
            return redirect(revision.template)
    if request.method != "POST":
        base = judging.newest_revision(Viewer.of(request), default_template(by=request.user))
        form = TemplateRevisionForm(initial=_wording(base))
    return render(request, "heartbench_core/judging/template_new.html", {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def template_detail(request: SignedInRequest, name: str) -> HttpResponse:
    if name == DEFAULT_TEMPLATE_NAME:
        default_template(by=request.user)
    found = judging.template_page(Viewer.of(request), name)
    template, revisions, newest = found.template, found.revisions, found.newest
    if request.method == "POST":
        data = request.POST.copy()
        data["name"] = template.name
        data.setdefault("description", template.description)
        form = TemplateRevisionForm(data)
        if form.is_valid() and (revision := _add_revision(request, form, name=template.name)):
            messages.success(request, _("Revision %(n)d recorded.") % {"n": revision.revision})
            return redirect(template)
    else:
        form = TemplateRevisionForm(initial={"name": template.name, "description": template.description, **_wording(newest)})
    context = {"template": template, "revisions": revisions, "newest": newest, "form": form}
    return render(request, "heartbench_core/judging/template.html", context, status=400 if form.errors else 200)


@require_safe
@admin_only
def template_revision(request: SignedInRequest, name: str, revision: int) -> HttpResponse:
    found = judging.template_revision(Viewer.of(request), name, revision)
    explained = explains_fence(PromptTemplate(found.revision.system, found.revision.user))
    context = {
        **vars(found),  # the template, the revision and the one before
        "notice": "" if explained else fence_notice("$fence"),
        "fence_open": fence_open("$fence"),
        "fence_close": fence_close("$fence"),
    }
    return render(request, "heartbench_core/judging/template_revision.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@admin_only
def run_new(request: SignedInRequest) -> HttpResponse:
    initial = {k: request.GET[k] for k in ("kind", "dataset", "model", "endpoint", "template") if request.GET.get(k)}
    form = RunForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            request_ = _request_run(request, d)
        except ValidationError as exc:
            errors_into(form, exc)
        else:
            if request_.run is None:
                messages.info(request, _("The model already has an answer to every question asked for: nothing to do."))
                return redirect("judging:index")
            if request_.created:
                messages.success(request, _("Run created with %(n)d questions: a worker takes it now.") % {"n": request_.added})
            else:
                messages.success(
                    request,
                    _("Run resumed: %(added)d questions added, %(retried)d failed ones to retry.")
                    % {"added": request_.added, "retried": request_.retried},
                )
            return redirect(request_.run)
    return render(request, "heartbench_core/judging/run_new.html", {"form": form}, status=400 if form.errors else 200)


def _request_run(request: SignedInRequest, d: dict[str, Any]) -> run_services.RunRequest:
    judging.refuse_run_request(Viewer.of(request), dataset=d["dataset"], model=d["model"])
    questions = (d.get("questions") or "").split(",")  # comma-separated on the page
    return run_services.request_run(**{**d, "questions": questions}, requested_by=request.user, trigger="page")


@require_safe
@admin_only
def run_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    viewer = Viewer.of(request)
    run = judging.run(viewer, pk)
    row = judging.run_rows(viewer, [run])[0]
    context: dict[str, Any] = {"run": run, "row": row}
    if request.htmx and request.GET.get("part") == "progress":
        return render(request, "heartbench_core/judging/partials/run_progress.html", context)
    shown = judging.run_page(viewer, run, page_number=request.GET.get("page"))
    context.update(failed=shown.failed, suspected=shown.suspected, selection=describe_selection(run.selection), done=shown.done)
    return render(request, "heartbench_core/judging/run.html", context)


def _run_action(request: SignedInRequest, pk: int, action: str) -> HttpResponse:
    run = judging.run(Viewer.of(request), pk)
    try:
        if action == "cancel":
            run_services.cancel_run(run=run, by=request.user)
            messages.success(request, _("Cancellation requested: the run stops within seconds (answers in flight are kept)."))
        elif action == "retry":
            n = run_services.retry_failed(run=run, by=request.user)
            messages.success(request, _("%(n)d failed questions will be asked again.") % {"n": n})
        else:
            run_services.resume_run(run=run, by=request.user)
            messages.success(request, _("Run handed to a worker again."))
    except ValidationError as exc:
        messages.error(request, " ".join(messages_of(exc)))
    return redirect(run)


@require_POST
@admin_only
def run_cancel(request: SignedInRequest, pk: int) -> HttpResponse:
    return _run_action(request, pk, "cancel")


@require_POST
@admin_only
def run_retry(request: SignedInRequest, pk: int) -> HttpResponse:
    return _run_action(request, pk, "retry")


@require_POST
@admin_only
def run_resume(request: SignedInRequest, pk: int) -> HttpResponse:
    return _run_action(request, pk, "resume")
