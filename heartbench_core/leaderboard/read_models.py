"""Read models of the leaderboards (page and API) and of scores: they name models, so they are closed whole to an expert
of an open campaign on the dataset (heartbench_core.blindness), page and API alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Page, Paginator
from django.http import Http404
from django.utils.translation import gettext as _

from heartbench_core.blindness import CLOSED_MODEL
from heartbench_core.datasets.read_models import version_of
from heartbench_core.leaderboard import selectors
from heartbench_core.leaderboard.selectors import LeaderboardRow
from heartbench_core.models import Dataset, DatasetVersion, JudgeRun
from heartbench_core.read_models import Viewer, read_model
from heartbench_core.selectors import scenes_of
from heartbench_core.services.datasets import get_version
from heartbench_core.services.scoring import SUBSETS, ModelScores, ScoreResult, check_mode, score_model, score_models
from heartbench_core.services.stored_scores import scored_runs, store_run_overalls
from heartbench_core.verdict_sources import run_verdicts

if TYPE_CHECKING:
    from heartbench_core.verdict_sources import VerdictSet


@dataclass(frozen=True)
class Leaderboard:
    version: DatasetVersion
    rows: list[LeaderboardRow]  # ranked over every run of the version (of the judge asked)

    def csv_rows(self) -> list[list[object]]:
        """The leaderboard as the CSV download writes it (header first)."""
        return selectors.leaderboard_csv_rows(self.rows)


@read_model
def leaderboard(viewer: Viewer, name: str, label: str, *, judge: str | None, scene: str | None, mode: str) -> Leaderboard:
    """The version's runs ranked by overall score (403 with the reason when its dataset is closed to the viewer)."""
    version = version_of(name, label)
    viewer.refuse_dataset(version.dataset_id)
    return Leaderboard(version, selectors.leaderboard(version, judge=judge, mode=mode, scene=scene))


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


class _RankedPages(Sequence[LeaderboardRow]):
    """The version's runs in leaderboard order as a sequence a Paginator cuts: its length is counted once, and only
    the slice a page asks for is read (ranked from the stored overall scores, its rows from their stored arrays)."""

    def __init__(self, version: DatasetVersion, *, judge: str | None, mode: str, search: str) -> None:
        self.version, self.judge, self.mode, self.search = version, judge, mode, search
        self.counted = selectors.ranked_runs(
            version, judge=judge, run=None, mode=mode, subset="all", search=search, top=None, offset=0, limit=0
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
            run=None,
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
def leaderboard_page(
    viewer: Viewer, name: str, label: str, *, judge: str | None, scene: str | None, mode: str, search: str, page_number: str | None
) -> LeaderboardPage:
    """One page of the version's leaderboard (403 with the reason when its dataset is closed to the viewer): 50 rows.

    On every scene the runs are ranked from their stored overall scores and only the page's rows are
    read (runs not yet stored are scored and stored first), so the page does not grow with the models.
    A scene ranks every run (`leaderboard`), then keeps the page.
    """
    version = version_of(name, label)
    viewer.refuse_dataset(version.dataset_id)
    if scene:
        rows = selectors.leaderboard(version, judge=judge, mode=mode, scene=scene)
        total = len(rows)
        found: Sequence[LeaderboardRow] = [r for r in rows if search.casefold() in r.run.model.name.casefold()] if search else rows
    else:
        store_run_overalls(selectors.unstored_runs(version, judge=judge, run=None, mode=mode), mode=mode)
        found = _RankedPages(version, judge=judge, mode=mode, search=search)
        total = found.counted.ranked
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
        judges=selectors.judges_of(version),
        scenes=scenes_of(version),
    )


@dataclass(frozen=True)
class ModelRuns:
    version: DatasetVersion
    run: JudgeRun  # the one shown
    other_runs: list[JudgeRun]
    scenes: list[str]  # of the version, to filter by


@read_model
def model_runs(viewer: Viewer, name: str, label: str, model: str, *, judge: str | None, run: str | None) -> ModelRuns:
    """One model's judge runs on a version (404 when none; 403 with the reason when its dataset is closed to the viewer)."""
    version = version_of(name, label)
    runs = [r for r in selectors.judge_runs_of(version, judge=judge, run=run) if r.model.name == model]
    if not runs:
        raise Http404(_("No judge run of this model on this version."))
    viewer.refuse_dataset(version.dataset_id, str(CLOSED_MODEL))
    return ModelRuns(version, runs[0], runs[1:], scenes_of(version))


@read_model
def model_scores(viewer: Viewer, *, dataset_name: str, **query: Any) -> tuple[ScoreResult, VerdictSet]:
    """One model's scores from a verdict source (`score_model`); 403 with the reason when the dataset is closed to the viewer."""
    scope = viewer.scope
    if scope and Dataset.objects.filter(name=dataset_name, pk__in=sorted(scope.dataset_ids)).exists():
        raise PermissionDenied(CLOSED_MODEL)
    return score_model(dataset_name=dataset_name, **query)


@dataclass(frozen=True)
class ModelsScoresPage:
    """A page of every model's scores from a verdict source on one version, ranked."""

    ranked: int  # models ranked, before the search and `top`
    listed: int  # models listed: those the search finds, cut to `top` (over every page)
    rows: list[ModelScores]  # this page's


@read_model
def models_scores_page(
    viewer: Viewer,
    *,
    dataset_name: str,
    source: str,
    judge: str | None,
    run: str | None,
    version_label: str | None,
    subset: str,
    scene: str | None,
    mode: str,
    search: str,
    top: int | None,
    offset: int,
    limit: int,
) -> ModelsScoresPage:
    """A page of every model's scores from a verdict source on one version, ranked; closed like the leaderboard page.

    A judge source on every scene is read from the stored overall scores: ranked by an index, only
    the page's runs are aggregated (runs not yet stored are scored and stored first), so the work does
    not grow with the models. Another source, or a scene, scores every model (`score_models`) and keeps
    the page. The search keeps the models whose name contains it (any case); ranks stay those of all.
    """
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
        if search:
            found = [row for row in rows if search.casefold() in row.model.casefold()]
        else:
            found = rows
        listed = found[:top] if top is not None else found
        return ModelsScoresPage(ranked=len(rows), listed=len(listed), rows=listed[offset : offset + limit])
    check_mode(mode)
    if subset not in SUBSETS:
        raise ValidationError({"subset": _("must be one of %(choices)s, not %(value)r") % {"choices": ", ".join(SUBSETS), "value": subset}})
    version = selectors.judged_version(dataset, get_version(dataset_name, version_label) if version_label else None, judge=judge, run=run)
    store_run_overalls(selectors.unstored_runs(version, judge=judge, run=run, mode=mode), mode=mode)
    page = selectors.ranked_runs(
        version, judge=judge, run=run, mode=mode, subset=subset, search=search, top=top, offset=offset, limit=limit
    )
    scored = scored_runs([r for _, _, r in page.rows], mode=mode)
    rows = [
        ModelScores(
            rank=rank, model=r.model.name, verdicts=run_verdicts(r), result=scored[r.pk].result(subset=subset, with_questions=False)
        )
        for rank, _, r in page.rows
    ]
    return ModelsScoresPage(ranked=page.ranked, listed=page.listed, rows=rows)
