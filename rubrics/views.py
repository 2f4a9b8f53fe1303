"""Rubric pages (staff only): work list, editor, review queue, revision, history with diff, audit log, stale list."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Any, TypedDict
from urllib.parse import quote

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, pgettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from heartbench_core.change_sentences import change_sentences
from heartbench_core.csvsafe import SafeWriter
from heartbench_core.form_errors import errors_into
from heartbench_core.http import SignedInRequest, attachment
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, has_role, role_required
from rubrics import read_models, services
from rubrics.audit_text import AUDIT_VOCABULARY, reason_text
from rubrics.filters import SIGNAL_NAMES
from rubrics.forms import CriterionForm, RetireForm, ability_choices
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision

AUDIT_CSV_COLUMNS = ("time", "person", "action", "dataset", "question_id", "criterion", "revision", "object", "reason", "before", "after")
Status = CriterionRevision.Status


def _signal_names() -> dict[str, str]:
    """What the work list calls each kind of signal, in the reader's language."""
    return {kind: str(name) for kind, name in SIGNAL_NAMES.items()}


class WorkRow(TypedDict):
    """A work-list entry as the page shows it: labels and links looked up once per page rather than per row."""

    w: read_models.WorkItem
    signal: str
    severity: str
    editor_url: str
    history_url: str
    resolve_url: str


_ANY_KEY = uuid.UUID(int=0)


def _work_rows(items: Iterable[read_models.WorkItem], names: dict[str, str], severities: dict[int, str]) -> list[WorkRow]:
    """The page's rows; each URL is reversed once and filled in, which is what made 50 rows slow to render."""
    editor = reverse("rubrics:editor", args=["DATASET", "QUESTION"])
    history = reverse("rubrics:history", args=[_ANY_KEY])
    resolve = reverse("rubrics:resolve", args=["KIND", 1])
    rows: list[WorkRow] = []
    for w in items:
        rows.append(
            {
                "w": w,
                "signal": names[w.kind],
                "severity": severities[w.severity],
                "editor_url": editor.replace("DATASET", quote(w.dataset, safe="")).replace("QUESTION", quote(w.question_id, safe="")),
                "history_url": history.replace(str(_ANY_KEY), w.criterion_key),
                "resolve_url": resolve.replace("KIND", w.kind).replace("/1/", f"/{w.object_id}/") if w.object_id else "",
            }
        )
    return rows


@require_safe
@role_required(*STAFF_ROLES)
def index(request: SignedInRequest) -> HttpResponse:
    viewer = Viewer.of(request)
    desk = read_models.work_list_page(viewer, full=not request.htmx)
    datasets = desk.datasets
    screen = read_models.work_list_screen(viewer, datasets, request.GET)
    page = Paginator(screen.items, desk.page_size).get_page(request.GET.get("page"))
    names = _signal_names()
    severities = {3: pgettext("severity", "high"), 2: pgettext("severity", "medium"), 1: pgettext("severity", "low")}
    wanted = screen.filters.values
    filters = {
        "signal": wanted.get("kind", ""),
        "ability": wanted.get("ability", ""),
        "dataset": wanted.get("dataset", ""),
        "sort": screen.filters.order,
    }
    filter_errors = screen.filters.messages
    by_signal = screen.by_signal
    context = {
        "page": page,
        "rows": _work_rows(page.object_list, names, severities),
        "filters": filters,
        "filter_errors": filter_errors,
        "query": screen.filters.query,
        "signals": [(kind, names[kind], by_signal.get(kind, 0)) for kind in read_models.WORK_KINDS],
        "signal_total": sum(by_signal.values()),
        "abilities": screen.abilities,
        "sorts": read_models.WORK_SORTS,
    }
    if request.htmx:
        return render(request, "rubrics/partials/work_list.html", context)
    context.update(datasets=datasets, queue_count=desk.queue_count, drafts=desk.drafts, awaiting_publish=desk.awaiting_publish)
    return render(request, "rubrics/index.html", context, status=400 if filter_errors else 200)


@require_safe
@role_required(*STAFF_ROLES)
def dataset_items(request: SignedInRequest, name: str) -> HttpResponse:
    q = request.GET.get("q") or None
    found = read_models.dataset_items(Viewer.of(request), name, q=q)
    context = {**vars(found), "page": Paginator(found.items, 50).get_page(request.GET.get("page")), "q": q or ""}
    return render(request, "rubrics/dataset.html", context)


@require_safe
@role_required(*STAFF_ROLES)
def editor(request: SignedInRequest, name: str, question_id: str) -> HttpResponse:
    found = read_models.editor(Viewer.of(request), name, question_id)
    context = {**vars(found), "add_form": CriterionForm(), "abilities": ability_choices(found.dataset)}
    return render(request, "rubrics/editor.html", context)


def _row_context(found: read_models.CriterionRow) -> dict[str, Any]:
    return {"row": found.row, "dataset": found.dataset, "can_edit": found.can_edit, "abilities": ability_choices(found.dataset)}


@require_safe
@role_required(*STAFF_ROLES)
def criterion_row(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    return render(request, "rubrics/partials/criterion_row.html", _row_context(read_models.criterion_row(Viewer.of(request), key)))


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(Role.RUBRIC_AUTHOR)
def edit_criterion(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    viewer = Viewer.of(request)
    found = read_models.criterion_row(viewer, key)
    lineage = found.lineage
    context = _row_context(found)
    row = found.row
    if request.method in ("GET", "HEAD"):
        source = row.open_revision or row.criterion
        form = CriterionForm(initial={"text": source.text, "ability": source.ability, "weight": source.weight, "base_revision": row.head})
        return _render_edit(request, context, form)
    form = CriterionForm(request.POST)
    status = 200
    if form.is_valid():
        try:
            rev = services.edit_criterion(author=request.user, key=lineage.key, **form.cleaned_data)
        except services.ConflictError as exc:
            # Keep everything the user typed; base it on the new head so a deliberate second save goes through.
            typed = request.POST.copy()
            typed["base_revision"] = str(exc.head)
            form = CriterionForm(typed)
            form.is_valid()
            form.add_error(None, exc.messages[0])
            context["conflict"] = True
            context["row"] = read_models.criterion_row(viewer, key, lineage=lineage).row
            status = 409
        except ValidationError as exc:
            errors_into(form, exc, unshown=["base_revision"])
            status = 400
        else:
            if request.htmx:
                return render(
                    request, "rubrics/partials/criterion_row.html", _row_context(read_models.criterion_row(viewer, key, lineage=lineage))
                )
            messages.success(request, gettext("Revision %(number)s saved as a draft.") % {"number": rev.number})
            return redirect("rubrics:editor", lineage.dataset.name, rev.question_id)
    else:
        status = 400
    return _render_edit(request, context, form, status=status)


def _render_edit(request: SignedInRequest, context: dict[str, Any], form: CriterionForm, status: int = 200) -> HttpResponse:
    context["form"] = form
    if request.htmx:
        # htmx swaps only 2xx responses: errors come back as 200 with the form and its messages.
        return render(request, "rubrics/partials/criterion_form.html", context)
    return render(request, "rubrics/edit_page.html", context, status=status)


@require_POST
@role_required(Role.RUBRIC_AUTHOR)
def add_criterion(request: SignedInRequest, name: str, question_id: str) -> HttpResponse:
    dataset = read_models.dataset(Viewer.of(request), name)
    form = CriterionForm(request.POST)
    if form.is_valid():
        content = {k: v for k, v in form.cleaned_data.items() if k not in ("base_revision", "meaning_changed")}  # a new one has neither
        try:
            services.add_criterion(author=request.user, dataset=dataset, question_id=question_id, **content)
        except ValidationError as exc:
            errors_into(form, exc, unshown=["base_revision"])
        else:
            messages.success(request, gettext("New criterion proposed as a draft."))
            return redirect("rubrics:editor", dataset.name, question_id)
    problems = "; ".join(f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items())
    messages.error(request, gettext("The new criterion was not saved: %(problems)s") % {"problems": problems})
    return redirect(reverse("rubrics:editor", args=[dataset.name, question_id]) + "#add")


@require_POST
@role_required(Role.RUBRIC_AUTHOR)
def retire_criterion(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    viewer = Viewer.of(request)
    lineage = read_models.criterion_lineage(viewer, key)
    form = RetireForm(request.POST)
    form.is_valid()
    question_id = read_models.question_of(viewer, lineage)
    try:
        rev = services.retire_criterion(
            author=request.user,
            key=lineage.key,
            reason=form.cleaned_data.get("reason") or "",
            base_revision=form.cleaned_data.get("base_revision"),
        )
    except ValidationError as exc:
        messages.error(request, gettext("Not retired: %(reasons)s") % {"reasons": " ".join(exc.messages)})
    else:
        messages.success(request, gettext("Retirement proposed as revision %(number)s (a draft).") % {"number": rev.number})
    return redirect("rubrics:editor", lineage.dataset.name, question_id)


@require_safe
@role_required(*STAFF_ROLES)
def history(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    found = read_models.criterion_history(
        Viewer.of(request), key, a=_int(request.GET.get("a")), b=_int(request.GET.get("b")), feedback_too=not request.htmx
    )
    # With what the library and adjudication know of the criterion (none of it from a campaign the viewer rates in).
    context = {**vars(found), "dataset": found.lineage.dataset}
    if request.htmx:
        return render(request, "rubrics/partials/diff.html", context)
    context.update(
        can_write_faq=has_role(request.user, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER),
        can_write_cases=has_role(request.user, Role.SENIOR_REVIEWER, Role.ADMIN),
    )
    return render(request, "rubrics/history.html", context)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


@require_safe
@role_required(Role.SENIOR_REVIEWER)
def review_queue(request: SignedInRequest) -> HttpResponse:
    return render(request, "rubrics/review_queue.html", {"queue": read_models.review_queue(Viewer.of(request))})


@require_safe
@role_required(*STAFF_ROLES)
def revision_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    found = read_models.revision_page(Viewer.of(request), pk)
    context = {**vars(found), "panel_size": found.panel_size}
    template = "rubrics/partials/thread.html" if request.htmx and request.GET.get("part") == "thread" else "rubrics/revision.html"
    return render(request, template, context)


@require_POST
@role_required(*STAFF_ROLES)
def submit_revision(request: SignedInRequest, pk: int) -> HttpResponse:
    rev = read_models.revision(Viewer.of(request), pk)
    try:
        services.submit_revision(revision=rev, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, gettext("Revision %(number)s submitted to the review panel.") % {"number": rev.number})
    return redirect(rev)


@require_POST
@role_required(Role.SENIOR_REVIEWER)
def review_revision(request: SignedInRequest, pk: int) -> HttpResponse:
    rev = read_models.revision(Viewer.of(request), pk)
    verdict = request.POST.get("verdict", "")
    try:
        rev = services.review_revision(revision=rev, reviewer=request.user, verdict=verdict, comment=request.POST.get("comment", ""))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(rev)
    if rev.status == Status.APPROVED:
        outcome = gettext("Revision %(number)s approved by the full panel.") % {"number": rev.number}
    elif rev.status == Status.REJECTED:
        outcome = gettext("Revision %(number)s rejected and sent back to its author.") % {"number": rev.number}
    else:
        outcome = gettext("Your approval was recorded.")
    messages.success(request, outcome)
    return redirect(reverse("rubrics:review") if request.POST.get("next") == "queue" else rev.get_absolute_url())


@require_POST
@role_required(*STAFF_ROLES)
def comment(request: SignedInRequest, pk: int) -> HttpResponse:
    viewer = Viewer.of(request)
    rev = read_models.revision(viewer, pk)
    reply_to = read_models.reply_target(viewer, rev, _int(request.POST.get("reply_to")))
    error = None
    try:
        services.comment_on_revision(revision=rev, author=request.user, body=request.POST.get("body", ""), reply_to=reply_to)
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if request.htmx:
        return render(
            request, "rubrics/partials/thread.html", {"rev": rev, "thread": read_models.comment_thread(viewer, rev), "comment_error": error}
        )
    if error:
        messages.error(request, error)
    return redirect(reverse("rubrics:revision", args=[rev.pk]) + "#thread")


@require_POST
@role_required(Role.RUBRIC_AUTHOR, Role.ADMIN)
def publish(request: SignedInRequest, name: str) -> HttpResponse:
    dataset = read_models.dataset(Viewer.of(request), name)
    try:
        version = services.publish_revisions(
            dataset=dataset, user=request.user, label=request.POST.get("label") or None, note=request.POST.get("note", "")
        )
    except ValidationError as exc:
        messages.error(request, gettext("Nothing was published: %(reasons)s") % {"reasons": " ".join(exc.messages)})
        return redirect("rubrics:dataset", dataset.name)
    messages.success(request, gettext("Published version %(version)s.") % {"version": version.label})
    return redirect(version.get_absolute_url())


@require_safe
@role_required(*STAFF_ROLES)
def stale(request: SignedInRequest, name: str) -> HttpResponse:
    viewer = Viewer.of(request)
    dataset = read_models.dataset(viewer, name)
    found = read_models.stale_list(viewer, dataset)
    return render(request, "rubrics/stale.html", {"dataset": dataset, "rows": found.rows, **found.totals})


@require_POST
@role_required(*STAFF_ROLES)
def flag(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    viewer = Viewer.of(request)
    lineage = read_models.criterion_lineage(viewer, key)
    question_id = read_models.question_of(viewer, lineage)
    try:
        services.flag_criterion(
            lineage=lineage,
            reason=request.POST.get("reason", ""),
            source="reviewer"
            if has_role(request.user, Role.SENIOR_REVIEWER) and not has_role(request.user, Role.RUBRIC_AUTHOR)
            else "author",
            flagged_by=request.user,
        )
    except ValidationError as exc:
        messages.error(request, gettext("Not flagged: %(reasons)s") % {"reasons": " ".join(exc.messages)})
    else:
        messages.success(request, gettext("The criterion is on the authors' work list."))
    return redirect("rubrics:editor", lineage.dataset.name, question_id)


@require_POST
@role_required(Role.RUBRIC_AUTHOR, Role.ADMIN)
def resolve(request: SignedInRequest, kind: str, pk: int) -> HttpResponse:
    try:
        entry = read_models.work_entry(Viewer.of(request), kind, pk)
        if isinstance(entry, CriterionFlag):
            services.resolve_flag(flag=entry, user=request.user, note=request.POST.get("note", ""))
        else:
            services.resolve_unclear_report(report=entry, user=request.user, note=request.POST.get("note", ""))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, gettext("Resolved."))
    return redirect("rubrics:index")


@require_safe
@role_required(*STAFF_ROLES, accepts_tokens=True)
def audit_log(request: SignedInRequest) -> HttpResponseBase:
    log = read_models.audit_log(Viewer.of(request), request.GET)
    # A bad filter shows the empty log with the reason; htmx swaps only 2xx answers.
    filter_errors = log.filters.messages
    if request.GET.get("format") == "csv" and not filter_errors:
        return _audit_csv(log)
    filters = {k: request.GET.get(k, "") for k in ("dataset", "item", "criterion", "person", "action")} | log.filters.values
    page = Paginator(log.entries, 100).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "page": page,
        # Each change a sentence in the reader's language; the stored states stay as data (the CSV export has them as JSON).
        "rows": [(e, reason_text(e.reason), change_sentences(e.before, e.after, AUDIT_VOCABULARY)) for e in page.object_list],
        "filters": filters,
        "filter_errors": filter_errors,
        "actions": AuditEntry.Action.choices,
        "datasets": log.datasets,
        "query": query.urlencode(),
    }
    template = "rubrics/partials/audit_table.html" if request.htmx else "rubrics/audit.html"
    return render(request, template, context, status=400 if filter_errors and not request.htmx else 200)


class _Echo:
    """A file that hands back what is written to it, so the CSV writer yields lines to stream."""

    def write(self, value: str) -> str:
        return value


def _audit_csv(log: read_models.AuditLog) -> HttpResponseBase:
    writer = SafeWriter(_Echo())

    def rows() -> Iterator[str]:
        yield "\ufeff" + writer.writerow(AUDIT_CSV_COLUMNS)
        for e in log.each():
            yield writer.writerow(
                [
                    e.created_at.isoformat(),
                    e.actor_name,
                    e.action,
                    e.dataset.name if e.dataset else "",
                    e.question_id,
                    str(e.criterion_key or ""),
                    e.revision_number or "",
                    f"{e.object_type}:{e.object_id}",
                    e.reason,
                    json.dumps(e.before, ensure_ascii=False) if e.before is not None else "",
                    json.dumps(e.after, ensure_ascii=False) if e.after is not None else "",
                ]
            )

    return attachment(rows(), "rubric-audit", "csv")
