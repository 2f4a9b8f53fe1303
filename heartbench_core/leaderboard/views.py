"""Leaderboard pages: models ranked by their judge-run scores. They name models, so experts never see them,
nor does staff while an expert of an open campaign on the dataset (heartbench_core.blindness)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from heartbench_core.csvsafe import SafeWriter
from heartbench_core.http import HtmxHttpRequest
from heartbench_core.leaderboard import read_models
from heartbench_core.lib.scoring import CATASTROPHIC_MODES
from heartbench_core.lib.taxonomy import ABILITIES, DIMENSIONS
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_required
from heartbench_core.services.scoring import SUBSETS
from heartbench_core.services.stored_scores import scored_runs


def _mode(request: HttpRequest) -> str:
    mode = request.GET.get("catastrophic") or "paper"
    return mode if mode in CATASTROPHIC_MODES else "paper"


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard(request: HtmxHttpRequest, name: str, label: str) -> HttpResponse:
    viewer = Viewer.of(request)
    judge = request.GET.get("judge") or None
    scene = request.GET.get("scene") or None
    mode = _mode(request)
    if request.GET.get("format") == "csv":
        board = read_models.leaderboard(viewer, name, label, judge=judge, scene=scene, mode=mode)
        version = board.version
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="leaderboard-{version.dataset.name}-{version.label}.csv"'
        SafeWriter(response).writerows(board.csv_rows())
        return response
    search = (request.GET.get("q") or "").strip()
    shown = read_models.leaderboard_page(
        viewer, name, label, judge=judge, scene=scene, mode=mode, search=search, page_number=request.GET.get("page")
    )
    version = shown.version
    context = {
        "version": version,
        "dataset": version.dataset,
        "rows": shown.rows,
        "page": shown.page,
        "total": shown.total,
        "page_query": urlencode({k: v for k, v in (("judge", judge), ("scene", scene), ("catastrophic", mode), ("q", search)) if v}),
        "chart": shown.chart,
        "charted": shown.charted,
        "chart_partial": shown.chart_partial,
        "abilities": ABILITIES,
        "dimensions": DIMENSIONS,
        "judges": shown.judges,
        "scenes": shown.scenes,
        "filters": {"judge": judge or "", "scene": scene or "", "catastrophic": mode, "q": search},
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_body.html" if request.htmx else "heartbench_core/leaderboard.html"
    return render(request, template, context)


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard_model(request: HtmxHttpRequest, name: str, label: str, model: str) -> HttpResponse:
    viewer = Viewer.of(request)
    found = read_models.model_runs(viewer, name, label, model, judge=request.GET.get("judge") or None, run=request.GET.get("run") or None)
    version, run = found.version, found.run
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
        "other_runs": found.other_runs,
        "result": result,
        "question_rows": [(q, [q.abilities.get(a.label) for a in ABILITIES]) for q in questions],
        "abilities": ABILITIES,
        "scenes": found.scenes,
        "filters": {"subset": subset, "scene": scene or "", "catastrophic": mode, "sort": sort},
        "subsets": SUBSETS,
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_questions.html" if request.htmx else "heartbench_core/leaderboard_model.html"
    return render(request, template, context)
