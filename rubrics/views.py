"""Rubric pages (staff only): work list, editor, review queue, revision, history with diff, audit log, stale list."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count, QuerySet
from django.http import Http404, HttpResponse, HttpResponseBase, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_date
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from annotation.knowledge import selectors as knowledge_selectors
from annotation.models import Case
from heartbench_core.blindness import blind_scope
from heartbench_core.change_sentences import change_sentences
from heartbench_core.csvsafe import SafeWriter
from heartbench_core.http import SignedInRequest
from heartbench_core.lib.textdiff import word_diff_html
from heartbench_core.models import CriterionLineage, Dataset, User
from heartbench_core.roles import STAFF_ROLES, Role, has_role, role_required
from heartbench_core.selectors import items_of
from rubrics import feedback, selectors, services
from rubrics.audit_text import AUDIT_VOCABULARY, reason_text
from rubrics.forms import CriterionForm, RetireForm, ability_choices, apply_errors
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision

if TYPE_CHECKING:
    from heartbench_core.blindness import ResponseIds

AUDIT_CSV_COLUMNS = ("time", "person", "action", "dataset", "question_id", "criterion", "revision", "object", "reason", "before", "after")
Status = CriterionRevision.Status


def _dataset(name: str) -> Dataset:
    return get_object_or_404(Dataset, name=name)


def _can_edit(user: User) -> bool:
    return has_role(user, Role.RUBRIC_AUTHOR)


def _signal_names() -> dict[str, str]:
    """What the work list calls each kind of signal."""
    return {
        "ambiguous": pgettext("work-list signal", "ambiguous (low agreement)"),
        "adjudicated": pgettext("work-list signal", "adjudicated as ambiguous"),
        "flag": pgettext("work-list reason", "flagged"),
        "unclear": pgettext("work-list reason", "reported unclear"),
        "stale": pgettext("work-list signal", "stale judgments"),
        "saturated": pgettext("work-list reason", "saturated"),
    }


class WorkRow(TypedDict):
    """A work-list entry as the page shows it: labels and links looked up once per page rather than per row."""

    w: selectors.WorkItem
    signal: str
    severity: str
    editor_url: str
    history_url: str
    resolve_url: str


_ANY_KEY = uuid.UUID(int=0)


def _work_rows(items: Iterable[selectors.WorkItem], names: dict[str, str], severities: dict[int, str]) -> list[WorkRow]:
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


class WorkFilters(TypedDict):
    """The work list's filters, as its query string gives them ("" when not set)."""

    signal: str
    ability: str
    dataset: str
    sort: str


def _work_filters(params: QueryDict, datasets: list[Dataset]) -> tuple[WorkFilters, list[str]]:
    """The work list's filters and the errors of those that were not understood (each names its parameter; it is then ignored)."""
    errors: list[str] = []

    def choice(name: str, allowed: Iterable[str], default: str = "") -> str:
        value = (params.get(name) or "").strip()
        if value and value not in allowed:
            errors.append(
                gettext("%(name)s: %(value)r is not one of %(allowed)s.") % {"name": name, "value": value, "allowed": ", ".join(allowed)}
            )
            return default
        return value or default

    filters: WorkFilters = {
        "signal": choice("signal", selectors.WORK_KINDS),
        "ability": (params.get("ability") or "").strip(),
        "dataset": choice("dataset", [d.name for d in datasets]),
        "sort": choice("sort", selectors.WORK_SORTS, selectors.WORK_SORTS[0]),
    }
    return filters, errors


@require_safe
@role_required(*STAFF_ROLES)
def index(request: SignedInRequest) -> HttpResponse:
    datasets = list(Dataset.objects.order_by("name"))
    filters, filter_errors = _work_filters(request.GET, datasets)
    hidden = _hidden(request.user)
    everything = [
        w
        for d in datasets
        if not filters["dataset"] or d.name == filters["dataset"]
        for w in selectors.work_list(d, leave_out=hidden, sort=filters["sort"])
    ]
    everything.sort(key=selectors.WorkItem.item_key if filters["sort"] == "item" else selectors.WorkItem.sort_key)
    names = {label: name for d in datasets for label, name in ability_choices(d)}
    if filters["ability"] and filters["ability"] not in names:
        filter_errors.append(gettext("ability: %(value)r is not an ability label.") % {"value": filters["ability"]})
        filters["ability"] = ""
    # The abilities the list holds, by label, with their names.
    abilities = [
        (label, names.get(label, label)) for label in sorted({w.ability for w in everything if w.ability} | {filters["ability"]} - {""})
    ]
    by_signal = Counter(w.kind for w in everything if not filters["ability"] or w.ability == filters["ability"])
    work = [
        w
        for w in everything
        if (not filters["signal"] or w.kind == filters["signal"]) and (not filters["ability"] or w.ability == filters["ability"])
    ]
    page = Paginator(work, selectors.WORK_PAGE_SIZE).get_page(request.GET.get("page"))
    names = _signal_names()
    severities = {3: pgettext("severity", "high"), 2: pgettext("severity", "medium"), 1: pgettext("severity", "low")}
    query = urlencode({k: v for k, v in filters.items() if v and not (k == "sort" and v == selectors.WORK_SORTS[0])})
    context = {
        "page": page,
        "rows": _work_rows(page.object_list, names, severities),
        "filters": filters,
        "filter_errors": filter_errors,
        "query": query,
        "signals": [(kind, names[kind], by_signal.get(kind, 0)) for kind in selectors.WORK_KINDS],
        "signal_total": sum(by_signal.values()),
        "abilities": abilities,
        "sorts": selectors.WORK_SORTS,
    }
    if request.htmx:
        return render(request, "rubrics/partials/work_list.html", context)
    context.update(
        datasets=datasets,
        queue_count=selectors.review_queue(request.user).count() if has_role(request.user, Role.SENIOR_REVIEWER) else None,
        drafts=CriterionRevision.objects.filter(author=request.user, status__in=[Status.DRAFT, Status.REJECTED])
        .exclude(children__isnull=False)
        .select_related("dataset")
        .order_by("-created_at")[:20],
        awaiting_publish=CriterionRevision.objects.awaiting_publication().count(),
    )
    return render(request, "rubrics/index.html", context, status=400 if filter_errors else 200)


@require_safe
@role_required(*STAFF_ROLES)
def dataset_items(request: SignedInRequest, name: str) -> HttpResponse:
    dataset = _dataset(name)
    version = selectors.latest_version(dataset)
    if version is None:
        raise Http404(gettext("This dataset has no versions."))
    q = request.GET.get("q") or None
    page = Paginator(items_of(version, q=q), 50).get_page(request.GET.get("page"))
    pending = dict(CriterionRevision.objects.filter(dataset=dataset).open().values_list("question_id").annotate(n=Count("id")))
    context = {
        "dataset": dataset,
        "version": version,
        "page": page,
        "q": q or "",
        "pending": pending,
        "approved": CriterionRevision.objects.filter(dataset=dataset).awaiting_publication().count(),
        "can_publish": has_role(request.user, Role.RUBRIC_AUTHOR, Role.ADMIN),
    }
    return render(request, "rubrics/dataset.html", context)


@require_safe
@role_required(*STAFF_ROLES)
def editor(request: SignedInRequest, name: str, question_id: str) -> HttpResponse:
    dataset = _dataset(name)
    version = selectors.latest_version(dataset)
    found = selectors.editor_rows(version, question_id) if version else None
    if found is None:
        raise Http404(gettext("No such item in the latest version."))
    item, rows, additions = found
    signals = selectors.cached_quality_signals(dataset, [r.criterion.lineage_id for r in rows], leave_out=_hidden(request.user))
    for row in rows:
        row.signals = signals.get(row.criterion.lineage_id)
    context = {
        "dataset": dataset,
        "version": version,
        "item": item,
        "rows": rows,
        "additions": additions,
        "can_edit": _can_edit(request.user),
        "add_form": CriterionForm(),
        "abilities": ability_choices(dataset),
    }
    return render(request, "rubrics/editor.html", context)


def _hidden(user: User) -> ResponseIds | None:
    """Responses of the open campaigns the user is an expert of: quality signals leave them out (None: nothing to leave out)."""
    scope = blind_scope(user)
    return scope.response_ids if scope else None


def _row_context(request: SignedInRequest, lineage: CriterionLineage) -> dict[str, Any]:
    question_id, _ = selectors.lineage_question(lineage)
    version = selectors.latest_version(lineage.dataset)
    found = selectors.editor_rows(version, question_id) if version else None
    if found is None:
        raise Http404(gettext("No such item."))
    rows = [r for r in found[1] if r.criterion.lineage_id == lineage.key]
    if not rows:
        raise Http404(gettext("This criterion is not in the latest version."))
    row = rows[0]
    row.signals = selectors.cached_quality_signals(lineage.dataset, [lineage.key], leave_out=_hidden(request.user)).get(lineage.key)
    return {"row": row, "dataset": lineage.dataset, "can_edit": _can_edit(request.user), "abilities": ability_choices(lineage.dataset)}


@require_safe
@role_required(*STAFF_ROLES)
def criterion_row(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    lineage = get_object_or_404(CriterionLineage.objects.select_related("dataset"), key=key)
    return render(request, "rubrics/partials/criterion_row.html", _row_context(request, lineage))


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(Role.RUBRIC_AUTHOR)
def edit_criterion(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    lineage = get_object_or_404(CriterionLineage.objects.select_related("dataset"), key=key)
    context = _row_context(request, lineage)
    row = context["row"]
    if request.method in ("GET", "HEAD"):
        source = row.open_revision or row.criterion
        form = CriterionForm(initial={"text": source.text, "ability": source.ability, "weight": source.weight, "base_revision": row.head})
        return _render_edit(request, context, form)
    form = CriterionForm(request.POST)
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            rev = services.edit_criterion(
                author=request.user,
                key=lineage.key,
                text=data["text"],
                ability=data["ability"],
                weight=data["weight"],
                reason=data["reason"],
                base_revision=data["base_revision"],
                meaning_changed=data["meaning_changed"],
            )
        except services.ConflictError as exc:
            # Keep everything the user typed; base it on the new head so a deliberate second save goes through.
            typed = request.POST.copy()
            typed["base_revision"] = str(exc.head)
            form = CriterionForm(typed)
            form.is_valid()
            form.add_error(None, exc.messages[0])
            context["conflict"] = True
            context["row"] = _row_context(request, lineage)["row"]
            status = 409
        except ValidationError as exc:
            apply_errors(form, exc)
            status = 400
        else:
            if request.htmx:
                return render(request, "rubrics/partials/criterion_row.html", _row_context(request, lineage))
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
    dataset = _dataset(name)
    form = CriterionForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.add_criterion(
                author=request.user,
                dataset=dataset,
                question_id=question_id,
                text=data["text"],
                ability=data["ability"],
                weight=data["weight"],
                reason=data["reason"],
            )
        except ValidationError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, gettext("New criterion proposed as a draft."))
            return redirect("rubrics:editor", dataset.name, question_id)
    problems = "; ".join(f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items())
    messages.error(request, gettext("The new criterion was not saved: %(problems)s") % {"problems": problems})
    return redirect(reverse("rubrics:editor", args=[dataset.name, question_id]) + "#add")


@require_POST
@role_required(Role.RUBRIC_AUTHOR)
def retire_criterion(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    lineage = get_object_or_404(CriterionLineage.objects.select_related("dataset"), key=key)
    form = RetireForm(request.POST)
    form.is_valid()
    question_id, _ = selectors.lineage_question(lineage)
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
    lineage = get_object_or_404(CriterionLineage.objects.select_related("dataset"), key=key)
    entries = selectors.criterion_history(lineage)
    question_id, _ = selectors.lineage_question(lineage)
    by_number = {e.number: e for e in entries}
    a = _int(request.GET.get("a"))
    b = _int(request.GET.get("b"))
    if b is None and entries:
        b = entries[-1].number
    if a is None and len(entries) > 1:
        a = entries[-2].number
    diff: dict[str, Any] | None = None
    if a is not None and b is not None:
        if a not in by_number or b not in by_number:
            raise Http404(gettext("No such revision of this criterion."))
        ea, eb = by_number[a], by_number[b]
        diff = {"a": ea, "b": eb, "html": mark_safe(word_diff_html(ea.text, eb.text))}  # escaped by word_diff_html
    context = {"lineage": lineage, "dataset": lineage.dataset, "question_id": question_id, "entries": entries, "diff": diff, "a": a, "b": b}
    if request.htmx:
        return render(request, "rubrics/partials/diff.html", context)
    # What the library and adjudication know of the criterion (none of it from a campaign the viewer rates in).
    causes = feedback.adjudication_causes(lineage.dataset, [str(lineage.key)], leave_out=_hidden(request.user)).get(
        str(lineage.key), Counter()
    )
    labels = dict(Case.Cause.choices)
    context.update(
        knowledge=knowledge_selectors.lineage_knowledge(request.user, lineage),
        causes=[(labels.get(cause, cause), n) for cause, n in causes.most_common()],
        decisions=sum(causes.values()),
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
    queue = list(selectors.review_queue(request.user))
    for rev in queue:
        rev.diff_html = _diff_against_approved(rev)
    return render(request, "rubrics/review_queue.html", {"queue": queue})


def _diff_against_approved(rev: CriterionRevision) -> tuple[SafeString, services.Content | None]:
    before = services.approved_content(rev.lineage)
    return mark_safe(word_diff_html(before.text if before else "", rev.text)), before  # escaped by word_diff_html


@require_safe
@role_required(*STAFF_ROLES)
def revision_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    rev = selectors.revision_detail(pk)
    if rev is None:
        raise Http404(gettext("No such revision."))
    html, before = _diff_against_approved(rev)
    user = request.user
    context = {
        "rev": rev,
        "before": before,
        "diff_html": html,
        "decisions": list(rev.decisions.select_related("reviewer")),
        "thread": selectors.comment_thread(rev),
        "panel_size": rev.dataset.review_panel_size,
        "can_submit": rev.status == Status.DRAFT and rev.author_id == user.pk,
        "can_review": rev.status == Status.SUBMITTED
        and rev.author_id != user.pk
        and has_role(user, Role.SENIOR_REVIEWER)
        and not rev.decisions.filter(reviewer=user).exists(),
        "can_revise": rev.status in (Status.DRAFT, Status.REJECTED)
        and _can_edit(user)
        and not rev.children.exists()
        and rev.change_kind != CriterionRevision.Kind.RETIREMENT,
    }
    template = "rubrics/partials/thread.html" if request.htmx and request.GET.get("part") == "thread" else "rubrics/revision.html"
    return render(request, template, context)


@require_POST
@role_required(*STAFF_ROLES)
def submit_revision(request: SignedInRequest, pk: int) -> HttpResponse:
    rev = get_object_or_404(CriterionRevision, pk=pk)
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
    rev = get_object_or_404(CriterionRevision, pk=pk)
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
    rev = get_object_or_404(CriterionRevision, pk=pk)
    reply_id = _int(request.POST.get("reply_to"))
    reply_to = rev.comments.filter(pk=reply_id).first() if reply_id is not None else None
    error = None
    try:
        services.comment_on_revision(revision=rev, author=request.user, body=request.POST.get("body", ""), reply_to=reply_to)
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if request.htmx:
        return render(
            request, "rubrics/partials/thread.html", {"rev": rev, "thread": selectors.comment_thread(rev), "comment_error": error}
        )
    if error:
        messages.error(request, error)
    return redirect(reverse("rubrics:revision", args=[rev.pk]) + "#thread")


@require_POST
@role_required(Role.RUBRIC_AUTHOR, Role.ADMIN)
def publish(request: SignedInRequest, name: str) -> HttpResponse:
    dataset = _dataset(name)
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
    dataset = _dataset(name)
    rows = selectors.stale_rows(dataset)
    return render(request, "rubrics/stale.html", {"dataset": dataset, "rows": rows, **selectors.stale_totals(rows)})


@require_POST
@role_required(*STAFF_ROLES)
def flag(request: SignedInRequest, key: uuid.UUID) -> HttpResponse:
    lineage = get_object_or_404(CriterionLineage.objects.select_related("dataset"), key=key)
    question_id, _ = selectors.lineage_question(lineage)
    try:
        services.flag_criterion(
            lineage=lineage,
            reason=request.POST.get("reason", ""),
            source="reviewer" if has_role(request.user, Role.SENIOR_REVIEWER) and not _can_edit(request.user) else "author",
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
    from annotation.models import UnclearCriterionReport

    try:
        if kind == "flag":
            services.resolve_flag(flag=get_object_or_404(CriterionFlag, pk=pk), user=request.user, note=request.POST.get("note", ""))
        elif kind == "unclear":
            services.resolve_unclear_report(
                report=get_object_or_404(UnclearCriterionReport, pk=pk), user=request.user, note=request.POST.get("note", "")
            )
        else:
            raise Http404(gettext("Unknown work-list entry."))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, gettext("Resolved."))
    return redirect("rubrics:index")


_KEY_PREFIX_CHARS = frozenset("0123456789abcdef-")


class AuditFilters(TypedDict):
    """The filters of `selectors.audit_entries`, as the audit log's query string gives them."""

    dataset: str | None
    item: str | None
    criterion: str | None
    person: str | None
    action: str | None
    since: date | None
    until: date | None


def _audit_filters(params: QueryDict) -> AuditFilters:
    """The audit log's filters from a query string; a bad one is a ValidationError naming its parameter.

    The criterion is a lineage key (a UUID) or the start of one. A filter holding a NUL character
    never gets here: RefuseUnstorableTextMiddleware (heartbench_core.input_text) answers it with a 400 first.
    """
    criterion = (params.get("criterion") or "").strip().lower() or None
    if criterion is not None:
        try:
            criterion = str(uuid.UUID(criterion)) if len(criterion) >= 36 else criterion
        except ValueError:
            criterion = None
        if criterion is None or not set(criterion) <= _KEY_PREFIX_CHARS:
            raise ValidationError(
                {
                    "criterion": [
                        gettext("%(value)r is not a criterion key (a UUID) or the start of one.") % {"value": params.get("criterion")}
                    ]
                }
            )
    return {
        "dataset": params.get("dataset") or None,
        "item": (params.get("item") or "").strip() or None,
        "criterion": criterion,
        "person": (params.get("person") or "").strip() or None,
        "action": params.get("action") if params.get("action") in AuditEntry.Action.values else None,
        "since": parse_date(params.get("since") or "") if _is_date(params.get("since")) else None,
        "until": parse_date(params.get("until") or "") if _is_date(params.get("until")) else None,
    }


def _is_date(value: str | None) -> bool:
    if not value:
        return False
    try:
        return parse_date(value) is not None
    except ValueError:
        return False


@require_safe
@role_required(*STAFF_ROLES, accepts_tokens=True)
def audit_log(request: SignedInRequest) -> HttpResponseBase:
    filters: dict[str, object]
    try:
        parsed = _audit_filters(request.GET)
    except ValidationError as exc:
        # A bad filter shows the empty log with the reason; htmx swaps only 2xx answers.
        filter_errors, entries = exc.messages, AuditEntry.objects.none()
        filters = {k: request.GET.get(k, "") for k in ("dataset", "item", "criterion", "person", "action")}
    else:
        filter_errors, entries = [], selectors.audit_entries(**parsed)
        if request.GET.get("format") == "csv":
            return _audit_csv(entries)
        filters = {k: (v or "") for k, v in parsed.items()}
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "page": page,
        # Each change a sentence in the reader's language; the stored states stay as data (the CSV export has them as JSON).
        "rows": [(e, reason_text(e.reason), change_sentences(e.before, e.after, AUDIT_VOCABULARY)) for e in page.object_list],
        "filters": filters,
        "filter_errors": filter_errors,
        "actions": AuditEntry.Action.choices,
        "datasets": Dataset.objects.order_by("name"),
        "query": query.urlencode(),
    }
    template = "rubrics/partials/audit_table.html" if request.htmx else "rubrics/audit.html"
    return render(request, template, context, status=400 if filter_errors and not request.htmx else 200)


class _Echo:
    """A file that hands back what is written to it, so the CSV writer yields lines to stream."""

    def write(self, value: str) -> str:
        return value


def _audit_csv(entries: QuerySet[AuditEntry]) -> StreamingHttpResponse:
    writer = SafeWriter(_Echo())

    def rows() -> Iterator[str]:
        yield "\ufeff" + writer.writerow(AUDIT_CSV_COLUMNS)
        for e in entries.iterator(chunk_size=2000):
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

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="rubric-audit.csv"'
    return response
