"""Leaderboard pages: models ranked by their judge-run scores. They name models, so experts never see them,
nor does staff while an expert of an open campaign on the dataset (heartbench_core.blindness)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from heartbench_core import selectors
from heartbench_core.blindness import CLOSED_DATASET, CLOSED_MODEL, blind_scope
from heartbench_core.csvsafe import SafeWriter
from heartbench_core.http import HtmxHttpRequest
from heartbench_core.leaderboard import selectors as leaderboard_selectors
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.lib.taxonomy import ABILITIES, DIMENSIONS
from heartbench_core.models import Dataset, DatasetVersion
from heartbench_core.roles import Role, role_required
from heartbench_core.services.scoring import SUBSETS
from heartbench_core.services.stored_scores import scored_runs


def _version(name: str, label: str) -> DatasetVersion:
    dataset = get_object_or_404(Dataset, name=name)
    return get_object_or_404(dataset.versions.select_related("dataset"), label=label)


def _mode(request: HttpRequest) -> str:
    mode = request.GET.get("catastrophic") or "paper"
    return mode if mode in CATASTROPHIC_MODES else "paper"


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard(request: HtmxHttpRequest, name: str, label: str) -> HttpResponse:
    version = _version(name, label)
    if blind_scope(request.user).hides_dataset(version.dataset_id):
        raise PermissionDenied(CLOSED_DATASET)
    judge = request.GET.get("judge") or None
    scene = request.GET.get("scene") or None
    mode = _mode(request)
    rows = leaderboard_selectors.leaderboard(version, judge=judge, mode=mode, scene=scene)
    if request.GET.get("format") == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="leaderboard-{version.dataset.name}-{version.label}.csv"'
        SafeWriter(response).writerows(leaderboard_selectors.leaderboard_csv_rows(rows))
        return response
    # Ranked over every run, then searched and cut to a page: a version judged for thousands of models shows 50 rows
    # and draws the first of them that the chart tells apart.
    search = (request.GET.get("q") or "").strip()
    found = [r for r in rows if search.casefold() in r.run.model.name.casefold()] if search else rows
    page = Paginator(found, leaderboard_selectors.ROWS_PER_PAGE).get_page(request.GET.get("page"))
    shown = list(page.object_list)
    charted = shown[: leaderboard_selectors.CHART_SERIES]  # the chart and its table of numbers
    context = {
        "version": version,
        "dataset": version.dataset,
        "rows": shown,
        "page": page,
        "total": len(rows),
        "page_query": urlencode({k: v for k, v in (("judge", judge), ("scene", scene), ("catastrophic", mode), ("q", search)) if v}),
        "chart": leaderboard_selectors.ability_chart(charted),
        "charted": charted,
        "chart_partial": len(shown) > leaderboard_selectors.CHART_SERIES,
        "abilities": ABILITIES,
        "dimensions": DIMENSIONS,
        "judges": leaderboard_selectors.judges_of(version),
        "scenes": selectors.scenes_of(version),
        "filters": {"judge": judge or "", "scene": scene or "", "catastrophic": mode, "q": search},
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_body.html" if request.htmx else "heartbench_core/leaderboard.html"
    return render(request, template, context)


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard_model(request: HtmxHttpRequest, name: str, label: str, model: str) -> HttpResponse:
    version = _version(name, label)
    runs = leaderboard_selectors.judge_runs_of(version, judge=request.GET.get("judge") or None, run=request.GET.get("run") or None)
    runs = [r for r in runs if r.model.name == model]
    if not runs:
        raise Http404(_("No judge run of this model on this version."))
    run = runs[0]
    if blind_scope(request.user).hides_model_on(version.dataset_id, run.model_id):
        raise PermissionDenied(CLOSED_MODEL)
    subset = request.GET.get("subset") or "all"
    if subset not in SUBSETS:
        subset = "all"
    scene = request.GET.get("scene") or None
    mode = _mode(request)
    result = scored_runs([run], mode=mode)[run.pk].result(subset=subset, scene=scene)
    sort = request.GET.get("sort") or "position"
    questions = list(result.questions)
    if sort == "score":
        questions.sort(key=lambda q: (q.score is None, q.score if q.score is not None else 0.0))
    context = {
        "version": version,
        "dataset": version.dataset,
        "run": run,
        "other_runs": runs[1:],
        "result": result,
        "question_rows": [(q, [q.abilities.get(a.label) for a in ABILITIES]) for q in questions],
        "abilities": ABILITIES,
        "scenes": selectors.scenes_of(version),
        "filters": {"subset": subset, "scene": scene or "", "catastrophic": mode, "sort": sort},
        "subsets": SUBSETS,
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_questions.html" if request.htmx else "heartbench_core/leaderboard_model.html"
    return render(request, template, context)
