"""Read models of the leaderboards (page and API) and of scores: they name models, so they are closed whole to an expert
of an open campaign on the dataset (heartbench_core.blindness), page and API alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import Http404
from django.utils.translation import gettext as _

from heartbench_core.blindness import CLOSED_MODEL
from heartbench_core.datasets.read_models import version_of
from heartbench_core.leaderboard import selectors
from heartbench_core.leaderboard.filters import LeaderboardFilters, ModelScoreFilters, ScoredLeaderboardFilters
from heartbench_core.leaderboard.selectors import LeaderboardRow
from heartbench_core.models import Dataset, DatasetVersion, JudgeRun
from heartbench_core.read_models import Viewer, read_model
from heartbench_core.selectors import scenes_of
from heartbench_core.services.scoring import ModelScores, ScoreResult, score_model, score_models

if TYPE_CHECKING:
    from heartbench_core.verdict_sources import VerdictSet


@dataclass(frozen=True)
class Leaderboard:
    version: DatasetVersion
    rows: list[LeaderboardRow]  # ranked over every run of the version (of the judge asked)
    filters: LeaderboardFilters  # what was asked, a bad value with its error

    def csv_rows(self) -> list[list[object]]:
        """The leaderboard as the CSV download writes it (header first)."""
        return selectors.leaderboard_csv_rows(self.rows)


@read_model
def leaderboard(viewer: Viewer, name: str, label: str, params: Mapping[str, Any]) -> Leaderboard:
    """The version's runs ranked by overall score, filtered as the API filters them (403 with the reason when its dataset is closed to the viewer)."""
    version = version_of(name, label)
    viewer.refuse_dataset(version.dataset_id)
    filters = LeaderboardFilters(params)
    given = filters.values
    rows = selectors.leaderboard(version, judge=given.get("judge"), run=given.get("run"), mode=filters.mode, scene=given.get("scene"))
    return Leaderboard(version, rows, filters)


@dataclass(frozen=True)
class LeaderboardPage:
    """A page of the leaderboard: ranked over every run, then searched and cut to a page, the chart drawing its first rows."""

    page: Page[LeaderboardRow]
    rows: list[LeaderboardRow]  # this page's
    charted: list[LeaderboardRow]  # the chart and its table of numbers
    chart: selectors.Chart
    chart_partial: bool  # the page holds more rows than the chart tells apart
    judges: list[str]  # to filter by
    scenes: list[str]


@read_model
def leaderboard_page(viewer: Viewer, board: Leaderboard, *, page_number: str | None) -> LeaderboardPage:
    """One page of a leaderboard read through `leaderboard`, searched by its `q`: a version judged for thousands of models shows 50 rows."""
    viewer.refuse_dataset(board.version.dataset_id)
    search = board.filters.search.casefold()
    found = [r for r in board.rows if search in r.run.model.name.casefold()] if search else board.rows
    page = Paginator(found, selectors.ROWS_PER_PAGE).get_page(page_number)
    shown = list(page.object_list)
    charted = shown[: selectors.CHART_SERIES]
    return LeaderboardPage(
        page=page,
        rows=shown,
        charted=charted,
        chart=selectors.ability_chart(charted),
        chart_partial=len(shown) > selectors.CHART_SERIES,
        judges=selectors.judges_of(board.version),
        scenes=scenes_of(board.version),
    )


@dataclass(frozen=True)
class ModelRuns:
    version: DatasetVersion
    run: JudgeRun  # the one shown
    other_runs: list[JudgeRun]
    scenes: list[str]  # of the version, to filter by
    filters: LeaderboardFilters  # what was asked, a bad value with its error


@read_model
def model_runs(viewer: Viewer, name: str, label: str, model: str, params: Mapping[str, Any]) -> ModelRuns:
    """One model's judge runs on a version, filtered as the scores API filters them (404 when none; 403 with the reason when its dataset is closed to the viewer)."""
    version = version_of(name, label)
    filters = LeaderboardFilters(params)
    runs = [
        r
        for r in selectors.judge_runs_of(version, judge=filters.values.get("judge"), run=filters.values.get("run"))
        if r.model.name == model
    ]
    if not runs:
        raise Http404(_("No judge run of this model on this version."))
    viewer.refuse_dataset(version.dataset_id, str(CLOSED_MODEL))
    return ModelRuns(version, runs[0], runs[1:], scenes_of(version), filters)


@read_model
def model_scores(viewer: Viewer, params: Mapping[str, Any]) -> tuple[ScoreResult, VerdictSet, bool]:
    """One model's scores from a verdict source (`score_model`), and whether per-question scores were asked; 403 with the reason when the dataset is closed to the viewer."""
    filters = ModelScoreFilters(params).check()
    given = filters.values
    scope = viewer.scope
    if scope and Dataset.objects.filter(name=given["dataset"], pk__in=sorted(scope.dataset_ids)).exists():
        raise PermissionDenied(CLOSED_MODEL)
    result, verdicts = score_model(
        dataset_name=given["dataset"],
        model_name=given["model"],
        source=given.get("source") or "judge",
        judge=given.get("judge"),
        run=given.get("run"),
        version_label=given.get("version"),
        subset=filters.scored_subset,
        scene=given.get("scene"),
        mode=filters.mode,
    )
    return result, verdicts, bool(given.get("questions"))


@dataclass(frozen=True)
class ScoredModels:
    rows: list[ModelScores]  # in rank order, those `q` and `top` kept
    ranked: int  # every model ranked, before `q` and `top`
    query: dict[str, Any]  # what was scored: dataset, source, subset, scene, catastrophic (with their defaults)


@read_model
def models_scores(viewer: Viewer, params: Mapping[str, Any]) -> ScoredModels:
    """Every model's scores from a verdict source on one version, ranked (`score_models`), filtered as the page filters them; closed like the leaderboard page."""
    filters = ScoredLeaderboardFilters(params).check()
    given = filters.values
    dataset = Dataset.objects.filter(name=given["dataset"]).first()
    if dataset is not None:
        viewer.refuse_dataset(dataset.pk)
    query = {
        "dataset": given["dataset"],
        "source": given.get("source") or "judge",
        "subset": filters.scored_subset,
        "scene": given.get("scene"),
        "catastrophic": filters.mode,
    }
    rows = score_models(
        dataset_name=query["dataset"],
        source=query["source"],
        judge=given.get("judge"),
        run=given.get("run"),
        version_label=given.get("version"),
        subset=query["subset"],
        scene=query["scene"],
        mode=query["catastrophic"],
    )
    ranked = len(rows)
    if search := filters.search.casefold():
        rows = [row for row in rows if search in row.model.casefold()]
    if (top := given.get("top")) is not None:
        rows = rows[:top]
    return ScoredModels(rows, ranked, query)
