"""Leaderboard pages: models ranked by their judge-run scores. They name models, so experts never see them,
nor does staff while an expert of an open campaign on the dataset (heartbench_core.blindness)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
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


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard(request: HtmxHttpRequest, name: str, label: str) -> HttpResponse:
    viewer = Viewer.of(request)
    if request.GET.get("format") == "csv":
        board = read_models.leaderboard(viewer, name, label, request.GET)
        version = board.version
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="leaderboard-{version.dataset.name}-{version.label}.csv"'
        SafeWriter(response).writerows(board.csv_rows())
        return response
    shown = read_models.leaderboard_page(viewer, name, label, request.GET)
    version, asked = shown.version, shown.filters
    filters = {"judge": "", "scene": "", **asked.values, "q": asked.search, "catastrophic": asked.mode}
    context = {
        **vars(shown),
        "dataset": version.dataset,
        "page_query": urlencode({k: v for k, v in filters.items() if v}),
        "abilities": ABILITIES,
        "dimensions": DIMENSIONS,
        "filters": filters,
        "filter_errors": asked.messages,
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_body.html" if request.htmx else "heartbench_core/leaderboard.html"
    return render(request, template, context)


@require_safe
@role_required(Role.ADMIN, Role.RUBRIC_AUTHOR)
def leaderboard_model(request: HtmxHttpRequest, name: str, label: str, model: str) -> HttpResponse:
    viewer = Viewer.of(request)
    found = read_models.model_runs(viewer, name, label, model, request.GET)
    version, run, filters = found.version, found.run, found.filters
    scene, mode, sort = filters.values.get("scene"), filters.mode, filters.values.get("sort") or "position"
    result = scored_runs([run], mode=mode)[run.pk].result(subset=filters.scored_subset, scene=scene)
    questions = list(result.questions)
    if sort == "score":
        questions.sort(key=lambda q: (q.score is None, q.score if q.score is not None else 0.0))
    context = {
        **vars(found),
        "dataset": version.dataset,
        "result": result,
        "question_rows": [(q, [q.abilities.get(a.label) for a in ABILITIES]) for q in questions],
        "abilities": ABILITIES,
        "filters": {"subset": filters.scored_subset, "scene": scene or "", "catastrophic": mode, "sort": sort},
        "filter_errors": filters.messages,
        "subsets": SUBSETS,
        "modes": CATASTROPHIC_MODES,
    }
    template = "heartbench_core/partials/leaderboard_questions.html" if request.htmx else "heartbench_core/leaderboard_model.html"
    return render(request, template, context)
