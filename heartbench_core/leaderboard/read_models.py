"""Read models of the leaderboards (page and API) and of scores: they name models, so they are closed whole to an expert
of an open campaign on the dataset (heartbench_core.blindness), page and API alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

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
from heartbench_core.services.datasets import get_version
from heartbench_core.services.scoring import ModelScores, ScoreResult, check_mode, score_model, score_models
from heartbench_core.services.stored_scores import scored_runs, store_run_overalls
from heartbench_core.verdict_sources import run_verdicts

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
    """Every run of the version ranked by overall score, filtered as the API filters them (the CSV download; 403 with the reason
    when its dataset is closed to the viewer)."""
    version = version_of(name, label)
    viewer.refuse_dataset(version.dataset_id)
    filters = LeaderboardFilters(params)
    given = filters.values
    rows = selectors.leaderboard(version, judge=given.get("judge"), run=given.get("run"), mode=filters.mode, scene=given.get("scene"))
    return Leaderboard(version, rows, filters)


@dataclass(frozen=True)
class LeaderboardPage:
    """A page of the leaderboard: ranked over every run, then searched and cut to a page, the chart drawing its first rows."""

    version: DatasetVersion
    total: int  # runs ranked, before the search
    page: Page[LeaderboardRow]
    rows: list[LeaderboardRow]  # this page's
    charted: list[LeaderboardRow]  # the chart and its table of numbers
    chart: selectors.Chart
    chart_partial: bool  # the page holds more rows than the chart tells apart
    judges: list[str]  # to filter by
    scenes: list[str]
    filters: LeaderboardFilters  # what was asked, a bad value with its error


class _RankedPages(Sequence[LeaderboardRow]):
    """The version's runs in leaderboard order as a sequence a Paginator cuts: its length is counted once, and only
    the slice a page asks for is read (ranked from the stored overall scores, its rows from their stored arrays)."""

    def __init__(self, version: DatasetVersion, *, judge: str | None, run: str | None, mode: str, search: str) -> None:
        self.version, self.judge, self.run, self.mode, self.search = version, judge, run, mode, search
        self.counted = selectors.ranked_runs(
            version, judge=judge, run=run, mode=mode, subset="all", search=search, top=None, offset=0, limit=0
        )

    def __len__(self) -> int:
        return self.counted.listed

    @overload
    def __getitem__(self, index: int) -> LeaderboardRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[LeaderboardRow]: ...
    def __getitem__(self, index: int | slice) -> LeaderboardRow | list[LeaderboardRow]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        start, stop, _ = index.indices(len(self))
        ranked = selectors.ranked_runs(
            self.version,
            judge=self.judge,
            run=self.run,
            mode=self.mode,
            subset="all",
            search=self.search,
            top=None,
            offset=start,
            limit=stop - start,
            counted=self.counted,
        )
        return selectors.leaderboard_rows(self.version, ranked.rows, mode=self.mode)


@read_model
def leaderboard_page(viewer: Viewer, name: str, label: str, params: Mapping[str, Any]) -> LeaderboardPage:
    """One page (`page`) of the version's leaderboard, filtered as the API filters it (403 with the reason when its dataset is
    closed to the viewer): 50 rows.

    On every scene the runs are ranked from their stored overall scores and only the page's rows are
    read (runs not yet stored are scored and stored first), so the page does not grow with the models.
    A scene ranks every run (`leaderboard`), then keeps the page.
    """
    version = version_of(name, label)
    viewer.refuse_dataset(version.dataset_id)
    filters = LeaderboardFilters(params)
    given, mode, search = filters.values, filters.mode, filters.search
    judge, run, scene = given.get("judge"), given.get("run"), given.get("scene")
    found: Sequence[LeaderboardRow]
    if scene:
        rows = selectors.leaderboard(version, judge=judge, run=run, mode=mode, scene=scene)
        total = len(rows)
        found = [r for r in rows if search.casefold() in r.run.model.name.casefold()] if search else rows
    else:
        store_run_overalls(selectors.unstored_runs(version, judge=judge, run=run, mode=mode), mode=mode)
        found = _RankedPages(version, judge=judge, run=run, mode=mode, search=search)
        total = found.counted.ranked
    page_number = params.get("page")
    page = Paginator(found, selectors.ROWS_PER_PAGE).get_page(page_number)
    shown = list(page.object_list)
    charted = shown[: selectors.CHART_SERIES]
    return LeaderboardPage(
        version=version,
        total=total,
        page=page,
        rows=shown,
        charted=charted,
        chart=selectors.ability_chart(charted),
        chart_partial=len(shown) > selectors.CHART_SERIES,
        judges=list(JudgeRun.objects.filter(version=version).order_by("judge").values_list("judge", flat=True).distinct()),
        scenes=scenes_of(version),
        filters=filters,
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
class ModelsScoresPage:
    """A page of every model's scores from a verdict source on one version, ranked."""

    ranked: int  # models ranked, before the search and `top`
    listed: int  # models listed: those the search finds, cut to `top` (over every page)
    rows: list[ModelScores]  # this page's
    page: int  # its number (from 1)
    offset: int  # models listed before it
    query: dict[str, Any]  # what was scored: dataset, source, subset, scene, catastrophic (with their defaults)


@read_model
def models_scores_page(viewer: Viewer, params: Mapping[str, Any], *, size: int) -> ModelsScoresPage:
    """A page (`page`, `size` models) of every model's scores from a verdict source on one version, ranked, filtered as the
    page filters them; closed like the leaderboard page.

    A judge source on every scene is read from the stored overall scores: ranked by an index, only
    the page's runs are aggregated (runs not yet stored are scored and stored first), so the work does
    not grow with the models. Another source, or a scene, scores every model (`score_models`) and keeps
    the page. The search keeps the models whose name contains it (any case); ranks stay those of all.
    """
    filters = ScoredLeaderboardFilters(params).check()
    given = filters.values
    dataset_name, version_label, top = given["dataset"], given.get("version"), given.get("top")
    judge, run = given.get("judge"), given.get("run")
    query = {
        "dataset": dataset_name,
        "source": given.get("source") or "judge",
        "subset": filters.scored_subset,
        "scene": given.get("scene"),
        "catastrophic": filters.mode,
    }
    source, subset, scene, mode, search = query["source"], query["subset"], query["scene"], query["catastrophic"], filters.search
    number = given.get("page") or 1
    offset = (number - 1) * size
    dataset = Dataset.objects.filter(name=dataset_name).first()
    if dataset is not None:
        viewer.refuse_dataset(dataset.pk)
    if source != "judge" or scene or dataset is None:
        rows = score_models(
            dataset_name=dataset_name,
            source=source,
            judge=judge,
            run=run,
            version_label=version_label,
            subset=subset,
            scene=scene,
            mode=mode,
        )
        found = [row for row in rows if search.casefold() in row.model.casefold()] if search else rows
        listed = found[:top] if top is not None else found
        return ModelsScoresPage(len(rows), len(listed), listed[offset : offset + size], number, offset, query)
    check_mode(mode)
    version = selectors.judged_version(dataset, get_version(dataset_name, version_label) if version_label else None, judge=judge, run=run)
    store_run_overalls(selectors.unstored_runs(version, judge=judge, run=run, mode=mode), mode=mode)
    page = selectors.ranked_runs(version, judge=judge, run=run, mode=mode, subset=subset, search=search, top=top, offset=offset, limit=size)
    scored = scored_runs([r for _, _, r in page.rows], mode=mode)
    rows = [
        ModelScores(
            rank=rank, model=r.model.name, verdicts=run_verdicts(r), result=scored[r.pk].result(subset=subset, with_questions=False)
        )
        for rank, _, r in page.rows
    ]
    return ModelsScoresPage(page.ranked, page.listed, rows, number, offset, query)
