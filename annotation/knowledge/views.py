"""Pages of the knowledge library (under /work/library/): browse and search, FAQ entries and their review, cases, dataset guidelines.

Experts read (published entries, the cases `selectors.visible_cases` allows them: every read goes
through `annotation.knowledge.read_models`, which apply those rules); rubric authors
and senior reviewers write and review FAQ entries; senior reviewers and admins write cases;
admins and rubric authors publish a dataset's guidelines. Services raise, pages show: a refused
write re-renders its form with the errors under their fields (400), a refused action comes back
as a message.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.knowledge import forms, read_models
from annotation.knowledge.models import Case, FaqEntry
from annotation.knowledge.services import knowledge as services
from annotation.models import CampaignResponse
from annotation.services.guidelines import publish_dataset_guidelines, render_guidelines
from heartbench_core.form_errors import errors_into, messages_of
from heartbench_core.http import SignedInRequest, attachment
from heartbench_core.models import Criterion
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, has_role, role_required

WITH_A_ROLE = (*STAFF_ROLES, Role.EXPERT)
KINDS = read_models.KINDS


def _key(raw: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID((raw or "").strip()) if raw else None
    except ValueError:
        return None


@require_safe
@role_required(*WITH_A_ROLE)
def index(request: SignedInRequest) -> HttpResponse:
    """Search, or browse FAQ entries or cases; staff filter by dataset, status and criterion and see drafts."""
    params = request.GET
    kind = params.get("kind", "")
    kind = kind if kind in KINDS else KINDS[0]
    query = (params.get("q") or "").strip()
    index = read_models.library_index(Viewer.of(request), params, kind=kind, query=query, page=params.get("page"))
    context = {**vars(index), "filter_errors": index.filters.messages}
    template = "annotation/knowledge/partials/results.html" if request.htmx else "annotation/knowledge/index.html"
    return render(request, template, context)


# --- FAQ entries -----------------------------------------------------------------------------------


@require_safe
@role_required(*WITH_A_ROLE)
def faq_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    page = read_models.faq_page(Viewer.of(request), pk)
    if not page.staff:
        services.record_open(user=request.user, faq=page.entry)
    context = {
        **vars(page),
        "html": render_guidelines(page.entry.answer),
        "can_submit": page.can_edit,
        "review_form": forms.FaqReviewForm(),
    }
    return render(request, "annotation/knowledge/faq_detail.html", context)


def _faq_initial(request: SignedInRequest, entry: FaqEntry | None, key: uuid.UUID | None) -> dict[str, Any]:
    if entry is None:
        return {"criteria": str(key) if key else ""}
    keys = read_models.faq_criterion_keys(Viewer.of(request), entry)
    return {
        "question": entry.question,
        "answer": entry.answer,
        "tags": ", ".join(entry.tags),
        "abilities": entry.abilities,
        "criteria": "\n".join(keys),
    }


def _render_faq_form(request: SignedInRequest, form: forms.FaqForm, entry: FaqEntry | None, status: int = 200) -> HttpResponse:
    context = {"form": form, "entry": entry, "dataset": form.dataset, "datasets": read_models.datasets(Viewer.of(request))}
    return render(request, "annotation/knowledge/faq_form.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*services.FAQ_WRITERS)
def faq_create(request: SignedInRequest) -> HttpResponse:
    source = request.POST if request.method == "POST" else request.GET
    dataset = read_models.dataset_to_write_in(Viewer.of(request), source.get("dataset"))
    if dataset is None:
        raise Http404(_("No dataset yet: import one first."))
    if request.method != "POST":
        form = forms.FaqForm(initial=_faq_initial(request, None, _key(request.GET.get("criterion"))), dataset=dataset)
        return _render_faq_form(request, form, None)
    return _save_faq(
        request,
        None,
        forms.FaqForm(request.POST, dataset=dataset),
        lambda content: services.create_faq_entry(author=request.user, dataset=dataset, content=content),
        _("Draft saved. Submit it for review when it is ready."),
    )


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*services.FAQ_WRITERS)
def faq_edit(request: SignedInRequest, pk: int) -> HttpResponse:
    entry = read_models.faq_to_write(Viewer.of(request), pk, must_be="author")
    if request.method != "POST":
        return _render_faq_form(request, forms.FaqForm(initial=_faq_initial(request, entry, None), dataset=entry.dataset), entry)
    return _save_faq(
        request,
        entry,
        forms.FaqForm(request.POST, dataset=entry.dataset),
        lambda content: services.edit_faq_entry(entry=entry, editor=request.user, content=content),
        _("Draft saved."),
    )


def _save_faq(
    request: SignedInRequest, entry: FaqEntry | None, form: forms.FaqForm, write: Callable[[services.FaqContent], FaqEntry], done: str
) -> HttpResponse:
    """Write the form's entry (a new one, or `entry` edited) and go to it; else its form again, with every error (400)."""
    if form.is_valid():
        try:
            content = form.content()
            if form.errors:  # a criterion reference was not understood: say what else is wrong too, write nothing
                services.check_faq_content(form.dataset, content)
            else:
                saved = write(content)
                messages.success(request, done)
                return redirect("annotation:faq", pk=saved.pk)
        except ValidationError as exc:
            errors_into(form, exc)
    return _render_faq_form(request, form, entry, status=400)


def _acted(request: SignedInRequest, act: Callable[[], Any], done: str, page: str, pk: int) -> HttpResponse:
    """Run a write and say how it went (its refusal as messages), back on the entry's page (a new FAQ draft's page when it made one)."""
    try:
        result = act()
    except ValidationError as exc:
        for message in messages_of(exc):
            messages.error(request, message)
        return redirect(page, pk=pk)
    messages.success(request, done)
    return redirect(page, pk=result.pk if isinstance(result, FaqEntry) else pk)


def _faq_action(request: SignedInRequest, pk: int, action: Any, done: str) -> HttpResponse:
    entry = read_models.faq_to_write(Viewer.of(request), pk)
    return _acted(request, lambda: action(entry), done, "annotation:faq", pk)


@require_POST
@role_required(*services.FAQ_WRITERS)
def faq_submit(request: SignedInRequest, pk: int) -> HttpResponse:
    return _faq_action(
        request, pk, lambda e: services.submit_faq_entry(entry=e, author=request.user), _("Submitted: another writer will review it.")
    )


@require_POST
@role_required(*services.FAQ_WRITERS)
def faq_review(request: SignedInRequest, pk: int) -> HttpResponse:
    read_models.faq_to_write(Viewer.of(request), pk, must_be="reviewer")
    form = forms.FaqReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose publish or send back."))
        return redirect("annotation:faq", pk=pk)
    approve = form.cleaned_data["decision"] == "publish"
    done = _("Published: experts read it now.") if approve else _("Sent back to its author with your note.")
    return _faq_action(
        request,
        pk,
        lambda e: services.review_faq_entry(entry=e, reviewer=request.user, approve=approve, note=form.cleaned_data["note"]),
        done,
    )


@require_POST
@role_required(*services.FAQ_WRITERS)
def faq_retire(request: SignedInRequest, pk: int) -> HttpResponse:
    return _faq_action(request, pk, lambda e: services.retire_faq_entry(entry=e, by=request.user), _("Retired: experts no longer read it."))


@require_POST
@role_required(*services.FAQ_WRITERS)
def faq_revise(request: SignedInRequest, pk: int) -> HttpResponse:
    return _faq_action(
        request,
        pk,
        lambda e: services.revise_faq_entry(entry=e, author=request.user),
        _("A new draft replaces this entry once it is reviewed and published."),
    )


@require_safe
@role_required(*services.FAQ_WRITERS)
def review_queue(request: SignedInRequest) -> HttpResponse:
    return render(request, "annotation/knowledge/review_queue.html", {"queue": read_models.review_queue(Viewer.of(request))})


# --- cases ---------------------------------------------------------------------------------------------


@require_safe
@role_required(*WITH_A_ROLE)
def case_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    page = read_models.case_page(Viewer.of(request), pk)
    if not page.staff:
        services.record_open(user=request.user, case=page.case)
    context = {**vars(page), "html": render_guidelines(page.case.reasoning), "reworded": page.reworded}
    return render(request, "annotation/knowledge/case_detail.html", context)


def _render_case_form(request: SignedInRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render(request, "annotation/knowledge/case_form.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*services.CASE_WRITERS)
def case_create(request: SignedInRequest) -> HttpResponse:
    """A case written from scratch on a criterion (`?criterion=<key>` or a reference), or from a calibration item (`?entry=&item_criterion=`)."""
    source = request.POST if request.method == "POST" else request.GET
    entry_id, criterion_id = source.get("entry", ""), source.get("item_criterion", "")
    calibration: CampaignResponse | None = None
    criterion: Criterion | None = None
    initial: dict[str, Any] = {}
    if entry_id.isdecimal() and criterion_id.isdecimal():
        calibration, criterion = read_models.calibration_item(Viewer.of(request), int(entry_id), int(criterion_id))
        try:
            _source, gold = services.calibration_source(campaign_response=calibration, criterion=criterion)
        except ValidationError as exc:
            raise Http404(" ".join(messages_of(exc))) from None
        initial = {"hit": "hit" if gold.hit else "miss", "reasoning": gold.explanation, "cause": Case.Cause.OTHER}
    else:
        criterion = read_models.criterion_snapshot(Viewer.of(request), _key(source.get("criterion")))
    context: dict[str, Any] = {"criterion": criterion, "calibration": calibration, "criterion_ref": source.get("criterion", "")}
    if request.method != "POST":
        context["form"] = forms.CaseForm(initial=initial)
        return _render_case_form(request, context)
    form = forms.CaseForm(request.POST)
    context["form"] = form
    if criterion is None:
        form.add_error(None, _("Open this form from a criterion (its rubric page, the library) or a calibration item."))
        return _render_case_form(request, context, status=400)
    if form.is_valid():
        try:
            content = form.content()
            if calibration is not None:
                case = services.case_from_calibration(
                    author=request.user,
                    campaign_response=calibration,
                    criterion=criterion,
                    content=content,
                    publish=form.cleaned_data["publish"],
                )
            else:
                case = services.create_case(author=request.user, criterion=criterion, content=content, publish=form.cleaned_data["publish"])
        except ValidationError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, _("Case published.") if case.status == Case.Status.PUBLISHED else _("Case saved as a draft."))
            return redirect("annotation:case", pk=case.pk)
    return _render_case_form(request, context, status=400)


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*services.CASE_WRITERS)
def case_edit(request: SignedInRequest, pk: int) -> HttpResponse:
    found = read_models.case(Viewer.of(request), pk, as_expert=False)
    context: dict[str, Any] = {"case": found, "criterion": None}
    if request.method != "POST":
        initial = {name: getattr(found, name) for name in ("title", "excerpt", "invented", "reasoning", "cause")}
        context["form"] = forms.CaseForm(initial={**initial, "hit": "hit" if found.hit else "miss", "tags": ", ".join(found.tags)})
        return _render_case_form(request, context)
    form = forms.CaseForm(request.POST)
    context["form"] = form
    if form.is_valid():
        try:
            services.edit_case(case=found, editor=request.user, content=form.content())
            if form.cleaned_data["publish"]:
                services.publish_case(case=found, by=request.user)
        except ValidationError as exc:
            errors_into(form, exc)
        else:
            messages.success(request, _("Case saved."))
            return redirect("annotation:case", pk=found.pk)
    return _render_case_form(request, context, status=400)


def _case_action(request: SignedInRequest, pk: int, action: Any, done: str) -> HttpResponse:
    found = read_models.case(Viewer.of(request), pk, as_expert=False)
    return _acted(request, lambda: action(found), done, "annotation:case", pk)


@require_POST
@role_required(*services.CASE_WRITERS)
def case_publish(request: SignedInRequest, pk: int) -> HttpResponse:
    return _case_action(request, pk, lambda c: services.publish_case(case=c, by=request.user), _("Case published."))


@require_POST
@role_required(*services.CASE_WRITERS)
def case_retire(request: SignedInRequest, pk: int) -> HttpResponse:
    return _case_action(request, pk, lambda c: services.retire_case(case=c, by=request.user), _("Case retired: experts no longer read it."))


# --- dataset guidelines ------------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(*STAFF_ROLES)
def dataset_guidelines(request: SignedInRequest, name: str) -> HttpResponse:
    """A dataset's guidelines: the current revision, every earlier one, and (admins, rubric authors) a new revision."""
    guidelines = read_models.dataset_guidelines(Viewer.of(request), name)
    dataset, history = guidelines.dataset, guidelines.history
    can_publish = has_role(request.user, Role.ADMIN, Role.RUBRIC_AUTHOR)
    form = forms.GuidelinesForm(request.POST or None, initial={"body": history[0].body if history else ""})
    status = 200
    if request.method == "POST":
        if not can_publish:
            raise PermissionDenied(_("Only an admin or a rubric author publishes a dataset's guidelines."))
        if form.is_valid():
            try:
                published = publish_dataset_guidelines(
                    dataset=dataset, body=form.cleaned_data["body"], change_note=form.cleaned_data["change_note"], author=request.user
                )
            except ValidationError as exc:
                errors_into(form, exc)
            else:
                messages.success(request, _("Revision %(n)d published.") % {"n": published.revision})
                return redirect(reverse("annotation:dataset_guidelines", args=[dataset.name]))
        status = 400
    context = {
        "dataset": dataset,
        "history": history,
        "current_html": render_guidelines(history[0].body) if history else "",
        "form": form,
        "can_publish": can_publish,
    }
    return render(request, "annotation/knowledge/dataset_guidelines.html", context, status=status)


# --- the judging page's panel (experts, on their own assignment) -------------------------------------


def _focus(request: SignedInRequest, assignment: Any) -> Criterion | None:
    raw = request.GET.get("criterion", "")
    if not raw:
        return None
    if not raw.isdecimal():
        raise Http404(_("No such criterion."))
    return read_models.criterion_in_focus(Viewer.of(request), assignment, int(raw))


@require_safe
@role_required(Role.EXPERT)
def judge_library(request: SignedInRequest, public_id: str) -> HttpResponse:
    """The library beside the judging page: FAQ entries and cases on the criterion in focus, and search (as an expert, whatever else the user is)."""
    assignment = read_models.panel_assignment(Viewer.of(request), public_id)
    criterion = _focus(request, assignment)
    query = (request.GET.get("q") or "").strip()
    base = reverse("annotation:judge_library", args=[public_id])
    entry_url = reverse("annotation:judge_library_entry", args=[public_id])
    context: dict[str, Any] = {
        "assignment": assignment,
        "criterion": criterion,
        "query": query,
        "open_base": base,
        "entry_url": entry_url,
        "open_qs": f"&criterion={criterion.pk}" if criterion else "",
        "staff": False,
    }
    panel = read_models.panel(Viewer.of(request), assignment, criterion, query=query, with_guidelines=True)
    in_force = panel.guidelines
    if request.GET.get("part") != "results":  # the whole panel: the guidelines in force head it (collapsed)
        context.update(guidelines=in_force, guidelines_html=render_guidelines(in_force.body) if in_force else "")
    if criterion is not None:
        context["number"] = criterion.position + 1
        context["knowledge"] = panel.knowledge
    if query:
        context["results"] = panel.results
    if request.htmx:
        template = (
            "annotation/knowledge/partials/panel_results.html"
            if request.GET.get("part") == "results"
            else "annotation/knowledge/partials/panel.html"
        )
    else:
        template = "annotation/knowledge/judge_library.html"
    return render(request, template, context)


def _panel_entry(request: SignedInRequest, data: Any) -> tuple[FaqEntry | None, Case | None] | None:
    """The FAQ entry (`faq=<id>`) or case (`case=<id>`) the request names, as an expert may read it (404 otherwise, as for an
    unknown id); None when it names neither."""
    faq_id, case_id = str(data.get("faq", "")), str(data.get("case", ""))
    if not faq_id.isdecimal() and not case_id.isdecimal():
        return None
    return read_models.panel_entry(
        Viewer.of(request), faq_id=int(faq_id) if faq_id.isdecimal() else None, case_id=int(case_id) if case_id.isdecimal() else None
    )


def _no_entry_named() -> HttpResponse:
    return HttpResponseBadRequest(_("Name the entry: faq=<id> or case=<id>."), content_type="text/plain; charset=utf-8")


@require_safe
@role_required(Role.EXPERT)
def judge_library_entry(request: SignedInRequest, public_id: str) -> HttpResponse:
    """One FAQ entry or case, opened from the judging page (recorded: who, which entry, the campaign and criterion in focus)."""
    assignment = read_models.panel_assignment(Viewer.of(request), public_id)
    criterion = _focus(request, assignment)
    campaign = assignment.campaign_response.campaign
    if (named := _panel_entry(request, request.GET)) is None:
        return _no_entry_named()
    entry, found = named
    services.record_open(
        user=request.user, faq=entry, case=found, campaign=campaign, lineage_id=criterion.lineage_id if criterion else None
    )
    context: dict[str, Any] = {"assignment": assignment, "criterion": criterion, "entry": entry, "case": found}
    if entry is not None:
        context["html"] = render_guidelines(entry.answer)
    elif found is not None:
        snapshot = read_models.criterion_snapshot(Viewer.of(request), found.lineage_id)
        context.update(
            html=render_guidelines(found.reasoning),
            snapshot=snapshot,
            reworded=snapshot is not None and snapshot.text != found.criterion_text,
        )
    context["helped_url"] = reverse("annotation:judge_library_helped", args=[public_id])
    template = "annotation/knowledge/partials/panel_entry.html" if request.htmx else "annotation/knowledge/judge_library_entry.html"
    return render(request, template, context)


@require_POST
@role_required(Role.EXPERT)
def judge_library_helped(request: SignedInRequest, public_id: str) -> HttpResponse:
    """The expert says an entry helped (or not), on their latest opening of it from this campaign's judging page."""
    assignment = read_models.panel_assignment(Viewer.of(request), public_id)
    if (named := _panel_entry(request, request.POST)) is None:
        return _no_entry_named()
    entry, found = named
    helped = request.POST.get("helped") != "no"
    services.mark_helped(user=request.user, faq=entry, case=found, campaign=assignment.campaign_response.campaign, helped=helped)
    if request.htmx:
        return render(request, "annotation/knowledge/partials/helped.html", {"helped": helped})
    messages.success(request, _("Thank you: noted."))
    which = f"faq={entry.pk}" if entry is not None else f"case={found.pk}" if found is not None else ""
    return redirect(f"{reverse('annotation:judge_library_entry', args=[public_id])}?{which}")


# --- the whole library as JSON Lines (export: staff; import: admins) ------------------------------------


@require_safe
@role_required(*STAFF_ROLES, accepts_tokens=True)
def export(request: SignedInRequest) -> HttpResponseBase:
    """The library as `export_library` writes it (`?dataset=`), without the cases of a campaign the viewer rates in."""
    from annotation.knowledge.services.knowledge_io import export_lines

    dataset = read_models.dataset_named(Viewer.of(request), request.GET["dataset"]) if request.GET.get("dataset") else None
    return attachment("".join(export_lines(dataset=dataset, viewer=request.user)), "library", "jsonl")


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(Role.ADMIN)
def import_file(request: SignedInRequest) -> HttpResponse:
    """Upload a library file: every line is checked first; a problem names its line and field and nothing is written."""
    from annotation.knowledge.services.knowledge_io import import_library, waiting_for_review

    errors: list[str] = []
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            errors = [_("Choose a file.")]
        else:
            try:
                outcome = import_library(source=upload, name=upload.name)
            except ValidationError as exc:
                errors = messages_of(exc)
            else:
                messages.success(
                    request,
                    _("%(guidelines)d guidelines revisions, %(faq)d FAQ entries and %(cases)d cases imported; %(present)d already here.")
                    % {"guidelines": outcome.guidelines, "faq": outcome.faq, "cases": outcome.cases, "present": outcome.already_present},
                )
                if outcome.to_review:
                    messages.info(request, waiting_for_review(outcome.to_review))
                return redirect("annotation:library")
    return render(request, "annotation/knowledge/import.html", {"errors": errors}, status=400 if errors else 200)
