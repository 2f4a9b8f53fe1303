"""Pages of the dataset browser, and the role-aware home page."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from heartbench_core.datasets import read_models as datasets
from heartbench_core.http import HtmxHttpRequest
from heartbench_core.lib.textdiff import field_changes, word_diff_html
from heartbench_core.models import DatasetVersion
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, has_role, role_required
from heartbench_core.services.datasets import diff_versions


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect("login")
    if has_role(request.user, Role.EXPERT) and not has_role(request.user, *STAFF_ROLES):
        return redirect("annotation:home")
    if has_role(request.user, Role.ADMIN):  # an admin starts from what waits for them
        return redirect("annotation:needs_action")
    return render(request, "heartbench_core/home.html", {"datasets": datasets.datasets(Viewer.of(request))})


@require_safe
@role_required(*STAFF_ROLES)
def dataset_list(request: HttpRequest) -> HttpResponse:
    return render(request, "heartbench_core/dataset_list.html", {"datasets": datasets.datasets(Viewer.of(request))})


@require_safe
@role_required(*STAFF_ROLES)
def dataset_detail(request: HttpRequest, name: str) -> HttpResponse:
    found = datasets.dataset_page(Viewer.of(request), name)
    return render(request, "heartbench_core/dataset_detail.html", {"dataset": found.dataset, "versions": found.versions})


@require_safe
@role_required(*STAFF_ROLES)
def version_detail(request: HtmxHttpRequest, name: str, label: str) -> HttpResponse:
    found = datasets.version_page(Viewer.of(request), name, label, request.GET)
    page = Paginator(found.items, 50).get_page(request.GET.get("page"))
    context = {
        "version": found.version,
        "dataset": found.version.dataset,
        "page": page,
        "scenes": found.scenes,
        "filters": {"difficulty": "", "scene": "", "q": "", **found.filters.values},
        "filter_errors": found.filters.messages,
    }
    template = "heartbench_core/partials/item_table.html" if request.htmx else "heartbench_core/version_detail.html"
    return render(request, template, context)


@require_safe
@role_required(*STAFF_ROLES)
def version_diff(request: HttpRequest, name: str) -> HttpResponse:
    viewer = Viewer.of(request)
    found = datasets.dataset_page(viewer, name)
    dataset, versions = found.dataset, found.versions
    a_label = request.GET.get("a") or (versions[1].label if len(versions) > 1 else None)
    b_label = request.GET.get("b") or (versions[0].label if versions else None)
    log = None
    a = b = None
    if a_label and b_label:
        by_label = {v.label: v for v in versions}
        a, b = by_label.get(a_label), by_label.get(b_label)
        if a is None or b is None:
            raise Http404(_("No such version."))
        log = diff_versions(a, b)
    readable = _readable_changes(viewer, a, b, log) if log and a is not None and b is not None else None
    return render(
        request,
        "heartbench_core/version_diff.html",
        {"dataset": dataset, "versions": versions, "a": a, "b": b, "log": log, "readable": readable},
    )


def _readable_changes(viewer: Viewer, a: DatasetVersion, b: DatasetVersion, log: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The changelog's changes as people read them: "field: before → after", reworded text as a word diff of old and new.

    Diffs are per character in Chinese (`heartbench_core.lib.textdiff.word_diff_html`, escaped there); an item's changed
    fields are read from both versions' rows (one query each), the dialogue one turn per line.
    """
    changed = [e["question_id"] for e in log.get("items_changed", [])]
    fields = ("dialogue", "difficulty", "primary_scene", "secondary_scene", "extra")

    def states(version: DatasetVersion) -> dict[str, dict[str, Any]]:
        rows = datasets.changed_items(viewer, version, changed, fields)
        return {r["question_id"]: {f: _turns(r[f]) if f == "dialogue" else r[f] for f in fields} for r in rows}

    old, new = (states(a), states(b)) if changed else ({}, {})
    items = []
    for entry in log.get("items_changed", []):
        qid = entry["question_id"]
        shown = [f for f in entry["fields"] if f != "rubric"]
        before = {f: old.get(qid, {}).get(f) for f in shown}
        after = {f: new.get(qid, {}).get(f) for f in shown}
        changes = [
            {"field": c.field, "before": c.before, "after": c.after, "status": c.status, "diff": mark_safe(c.diff_html) or None}
            for c in field_changes(before, after)
        ]
        items.append({"question_id": qid, "changes": changes, "rubric": "rubric" in entry["fields"]})
    reworded = [{**e, "diff": mark_safe(word_diff_html(e["before"], e["after"]))} for e in log.get("criteria_reworded", [])]
    return {"items": items, "reworded": reworded}


def _turns(dialogue: Any) -> str:
    """A dialogue as text, one turn per line ("A: …")."""
    if not isinstance(dialogue, list):
        return "" if dialogue is None else str(dialogue)
    return "\n".join(f"{t.get('role', '')}: {t.get('content', '')}" if isinstance(t, dict) else str(t) for t in dialogue)


@require_safe
@role_required(*STAFF_ROLES)
def item_detail(request: HttpRequest, name: str, label: str, question_id: str) -> HttpResponse:
    found = datasets.item_page(Viewer.of(request), name, label, question_id)
    return render(
        request,
        "heartbench_core/item_detail.html",
        {"version": found.version, "dataset": found.version.dataset, "item": found.item, "criteria": found.criteria},
    )
