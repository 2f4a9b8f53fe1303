"""Reads for the leaderboard: every judge run of a version scored on all, hard and normal questions."""

import hashlib
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.core.cache import cache
from django.db import connection
from django.db.models import CharField, Exists, F, OrderBy, OuterRef, QuerySet, Value, Window
from django.db.models.functions import Cast, Collate, Concat, RowNumber

from heartbench_core.leaderboard.calibrated import ONLY_ALL_PAPER, CalibratedBoard, calibrated_boards, calibrated_of
from heartbench_core.lib.agreement_report import AltTest, CalibratedModel
from heartbench_core.lib.scoring import decay_percent
from heartbench_core.lib.taxonomy import ABILITIES, DIMENSIONS
from heartbench_core.models import Dataset, DatasetVersion, JudgeRun, StoredScores
from heartbench_core.services.scoring import ScoreResult
from heartbench_core.services.stored_scores import OVERALL_COLUMNS, run_key, scored_runs
from heartbench_core.verdict_sources import judge_runs_matching, no_judge_run

# Distinguishable on white, and in the order a legend reads them.
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#637939",
    "#843c39",
    "#7b4173",
)


@dataclass
class LeaderboardRow:
    rank: int | None
    run: JudgeRun
    all: ScoreResult
    hard: ScoreResult
    normal: ScoreResult
    colour: str
    calibrated: CalibratedModel | None = None  # the judge's score corrected by the experts' golden labels
    calibrated_reason: str | None = None  # why there is none
    board: CalibratedBoard | None = field(default=None, repr=False)

    @property
    def decay(self) -> float | None:
        """Relative drop from the full set to the hard set, in percent."""
        return decay_percent(self.all.overall, self.hard.overall)

    @property
    def ability_cells(self) -> list[tuple[float | None, int]]:
        """(score, questions averaged) for the 15 abilities in taxonomy order (all questions)."""
        return [(self.all.abilities.get(a.label), self.all.ability_questions.get(a.label, 0)) for a in ABILITIES]

    @property
    def dimension_cells(self) -> list[float | None]:
        return [self.all.dimensions[d] for d in DIMENSIONS]


def judge_runs_of(version: DatasetVersion, *, judge: str | None = None, run: str | None = None) -> list[JudgeRun]:
    runs = JudgeRun.objects.filter(version=version).select_related("model", "version__dataset")
    if judge:
        runs = runs.filter(judge=judge)
    if run:
        runs = runs.filter(label=run)
    return list(runs.order_by("model__name", "judge", "label"))


def leaderboard(
    version: DatasetVersion, *, judge: str | None = None, run: str | None = None, mode: str = "paper", scene: str | None = None
) -> list[LeaderboardRow]:
    """Rows ranked by overall score (all questions); runs with nothing scored come last, unranked. From stored scores."""
    runs = judge_runs_of(version, judge=judge, run=run)
    figures = _figures(runs, mode=mode, scene=scene)
    rows = [LeaderboardRow(rank=None, run=r, all=a, hard=h, normal=n, colour="") for r in runs for a, h, n in [figures[r.pk]]]
    rows.sort(key=lambda row: (row.all.overall is None, -(row.all.overall or 0.0), row.run.model.name, row.run.judge))
    rank = 0
    for n, row in enumerate(rows):
        row.colour = PALETTE[n % len(PALETTE)]
        if row.all.overall is not None:
            rank += 1
            row.rank = rank
    _add_calibrated(version, rows, whole=scene is None and mode == "paper")
    return rows


def _add_calibrated(version: DatasetVersion, rows: list[LeaderboardRow], *, whole: bool) -> None:
    """Each row's human-calibrated scores from its judge's latest report (one query), or why there are none."""
    if not rows:
        return
    if not whole:
        for row in rows:
            row.calibrated_reason = ONLY_ALL_PAPER
        return
    boards = calibrated_boards(version, {row.run.model.name for row in rows})
    for row in rows:
        row.board, row.calibrated, row.calibrated_reason = calibrated_of(boards, row.run.judge, row.run.model.name, row.run.label)


@dataclass(frozen=True)
class RankedRuns:
    """One page of a version's judge runs in leaderboard order, read from the stored overall scores."""

    ranked: int  # runs ranked, before the search and `top`
    listed: int  # runs listed: those the search finds, cut to `top`
    rows: list[tuple[int | None, int, JudgeRun]]  # this page's: rank among every run (None: nothing scored), position, run


def judged_version(dataset: Dataset, version: DatasetVersion | None, *, judge: str | None, run: str | None) -> DatasetVersion:
    """The version asked, or the newest with a judge run matching the filters (ValidationError when none matches)."""
    found = judge_runs_matching(dataset, version=version, judge=judge, run=run).order_by("-version__number").first()
    if found is None:
        raise no_judge_run(dataset=dataset, version=version, judge=judge, run=run)
    return found.version


def unstored_runs(version: DatasetVersion, *, judge: str | None, run: str | None, mode: str) -> list[JudgeRun]:
    """The matching runs of the version without a current stored row holding its overall scores (usually none)."""
    current = StoredScores.objects.filter(
        run=OuterRef("pk"),
        mode=mode,
        overalls_stored=True,
        stamp=Concat(Value("verdicts="), Cast(OuterRef("verdict_count"), CharField()), output_field=CharField()),
    )
    runs = JudgeRun.objects.filter(version=version).exclude(Exists(current)).select_related("model", "version__dataset")
    if judge:
        runs = runs.filter(judge=judge)
    if run:
        runs = runs.filter(label=run)
    return list(runs.order_by("pk"))


def _rank_order(column: str) -> list[OrderBy]:
    """Best overall first, unscored last; ties by model name, then judge/run, in code-point order (as Python sorts them)."""
    name: Any = F("run__model__name")
    tie: Any = Concat(F("run__judge"), Value("/"), F("run__label"), output_field=CharField())
    if connection.vendor == "postgresql":
        name, tie = Collate(name, "C"), Collate(tie, "C")
    return [F(column).desc(nulls_last=True), name.asc(), tie.asc()]


def ranked_runs(
    version: DatasetVersion,
    *,
    judge: str | None,
    run: str | None,
    mode: str,
    subset: str,
    search: str,
    top: int | None,
    offset: int,
    limit: int,
    counted: RankedRuns | None = None,
) -> RankedRuns:
    """A page of the version's stored judge runs ranked by the subset's overall score, read from its index.

    Ranks are those among every matching run, whatever the search: without one, a row's rank is its
    position; with one, the page's ranks are read from the ranking of every run (a window over the
    stored overall scores, no arrays). Five queries at most, whatever the number of runs; `counted`, an
    earlier answer to the same question, spares counting again.
    """
    column = OVERALL_COLUMNS[subset]
    order = _rank_order(column)
    base = StoredScores.objects.filter(version=version, mode=mode, run__isnull=False)
    if judge:
        base = base.filter(run__judge=judge)
    if run:
        base = base.filter(run__label=run)
    matching = base.filter(run__model__name__icontains=search) if search else base
    if counted is not None:
        ranked, listed = counted.ranked, counted.listed
    else:
        ranked = base.count()
        listed = matching.count() if search else ranked
    if top is not None:
        listed = min(listed, top)
    end = min(offset + limit, listed)
    page = list(
        matching.order_by(*order).select_related("run__model", "run__version__dataset").defer("arrays")[offset:end] if end > offset else []
    )
    places = _places(base, order, [s.pk for s in page]) if search else {s.pk: offset + n + 1 for n, s in enumerate(page)}
    rows = [(None if getattr(s, column) is None else places[s.pk], places[s.pk], s.run) for s in page]
    return RankedRuns(ranked=ranked, listed=listed, rows=rows)  # type: ignore[arg-type]  # run is not null: filtered above


def leaderboard_rows(version: DatasetVersion, ranked: list[tuple[int | None, int, JudgeRun]], *, mode: str) -> list[LeaderboardRow]:
    """The leaderboard rows of these runs (all questions, every scene), from their stored scores: a page's, not the version's.

    The page's figures are kept in the cache as a scene's are (`_figures`): a page seen again reads
    no stored arrays.
    """
    figures = _figures([run for _, _, run in ranked], mode=mode, scene=None)
    rows = [
        LeaderboardRow(
            rank=rank,
            run=run,
            all=figures[run.pk][0],
            hard=figures[run.pk][1],
            normal=figures[run.pk][2],
            colour=PALETTE[(place - 1) % len(PALETTE)],
        )
        for rank, place, run in ranked
    ]
    _add_calibrated(version, rows, whole=mode == "paper")
    return rows


def _places(base: QuerySet[StoredScores], order: list[OrderBy], ids: list[int]) -> dict[int, int]:
    """Each of these rows' position in `base` ordered by `order` (one query: the window runs over `base`, the rows are picked after)."""
    if not ids:
        return {}
    inner = base.annotate(sid=F("pk"), place=Window(RowNumber(), order_by=order)).values_list("sid", "place")
    sql, params = inner.query.sql_with_params()
    marks = ", ".join(["%s"] * len(ids))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ranked.sid, ranked.place FROM ({sql}) ranked WHERE ranked.sid IN ({marks})", [*params, *ids])
        return {int(sid): int(place) for sid, place in cursor.fetchall()}


# Part of the cache key of the leaderboard's figures: change it when what a ScoreResult holds or how it is computed changes.
FIGURES_VERSION = "leaderboard-figures-1"
FIGURES_SECONDS = 24 * 3600


def _figures(runs: list[JudgeRun], *, mode: str, scene: str | None) -> dict[int, tuple[ScoreResult, ScoreResult, ScoreResult]]:
    """Each run's scores on all, hard and normal questions (without per-question rows), from the cache when the runs are unchanged.

    Scoring a run from its stored arrays is milliseconds, so a version judged for hundreds of
    models took seconds; the figures of all of them are kept under a key naming every run with its
    verdict count (what makes its stored scores usable), creation time and stored-score rows, so a
    new or re-imported run, or scores forgotten, compute them again, and a key that outlives a test
    database meets no other runs.
    """
    if not runs:
        return {}
    # The stored rows' ids too: scores forgotten (a rubric or verdict change) are stored again under new ids.
    stored = sorted(StoredScores.objects.filter(key__in=[run_key(r.pk) for r in runs], mode=mode).values_list("pk", flat=True))
    digest = hashlib.sha256(
        repr((FIGURES_VERSION, mode, scene, [(r.pk, r.verdict_count, r.created_at.timestamp()) for r in runs], stored)).encode()
    ).hexdigest()
    key = f"leaderboard:{runs[0].version_id}:{digest}"
    found = cache.get(key)
    if isinstance(found, dict) and found.keys() == {r.pk for r in runs}:
        return found
    scored = scored_runs(runs, mode=mode)
    figures = {
        r.pk: tuple(scored[r.pk].result(subset=subset, scene=scene, with_questions=False) for subset in ("all", "hard", "normal"))
        for r in runs
    }
    cache.set(key, figures, FIGURES_SECONDS)
    return figures  # type: ignore[return-value]  # three subsets each


# Rows of the leaderboard page, and series the chart draws (one colour each, told apart).
ROWS_PER_PAGE = 50
CHART_SERIES = len(PALETTE)


class ChartColumn(TypedDict):
    x: float
    label: str  # the ability label
    name: str  # its English name


class ChartGridline(TypedDict):
    y: float
    value: int  # the score it marks


class ChartDot(TypedDict):
    x: float
    y: float
    value: float  # the ability score
    ability: str  # its label (Chinese); the page adds the English name in English


class ChartSeries(TypedDict):
    colour: str
    label: str  # model (judge/run)
    points: str  # "x,y x,y ...", for a polyline
    dots: list[ChartDot]


@dataclass(frozen=True)
class Chart:
    """Geometry of the ability chart: one polyline of 15 ability scores per run."""

    width: int
    height: int
    left: int
    top: int
    plot_w: int
    plot_h: int
    columns: list[ChartColumn]
    gridlines: list[ChartGridline]
    series: list[ChartSeries]


def ability_chart(rows: list[LeaderboardRow]) -> Chart:
    """Lay out the ability-score chart (pure geometry; the template draws it as inline SVG)."""
    left, top, plot_w, plot_h = 96, 16, 820, 260
    step = plot_w / (len(ABILITIES) - 1)
    columns = [ChartColumn(x=round(left + i * step, 1), label=a.label, name=a.name) for i, a in enumerate(ABILITIES)]
    gridlines = [ChartGridline(y=round(top + plot_h * (1 - v / 100), 1), value=v) for v in (0, 20, 40, 60, 80, 100)]
    series: list[ChartSeries] = []
    for row in rows:
        dots: list[ChartDot] = []
        for col in columns:
            value = row.all.abilities.get(col["label"])
            if value is None:
                continue
            dots.append(ChartDot(x=col["x"], y=round(top + plot_h * (1 - value / 100), 1), value=value, ability=col["label"]))
        series.append(
            ChartSeries(
                colour=row.colour,
                label=f"{row.run.model.name} ({row.run.judge}/{row.run.label})",
                points=" ".join(f"{d['x']},{d['y']}" for d in dots),
                dots=dots,
            )
        )
    return Chart(
        width=left + plot_w + 24,
        height=top + plot_h + 120,
        left=left,
        top=top,
        plot_w=plot_w,
        plot_h=plot_h,
        columns=columns,
        gridlines=gridlines,
        series=series,
    )


def leaderboard_csv_rows(rows: list[LeaderboardRow]) -> list[list[object]]:
    """The leaderboard as CSV rows: the judge-only scores, then the experts-only and corrected overall with their intervals and counts."""
    header: list[object] = [
        "rank",
        "model",
        "judge",
        "run",
        "judge_only_all",
        "hard",
        "normal",
        "questions_scored",
        *(f"dimension_{d}" for d in DIMENSIONS),
        "experts_only",
        "experts_only_ci95_low",
        "experts_only_ci95_high",
        "corrected",
        "corrected_ci95_low",
        "corrected_ci95_high",
        "labelled_items",
        "corrected_rank",
        "rank_change",
        "calibrated_reason",
        "calibrated_report",
        "experts_resampled",
        "judge_winning_rate",
        "judge_can_replace_an_expert",
        "alt_test_epsilon",
    ]
    out = [header]
    for row in rows:
        c = row.calibrated
        o = c.overall if c else None
        out.append(
            [
                "" if row.rank is None else row.rank,
                row.run.model.name,
                row.run.judge,
                row.run.label,
                _blank(row.all.overall),
                _blank(row.hard.overall),
                _blank(row.normal.overall),
                row.all.questions_scored,
                *(_blank(v) for v in row.dimension_cells),
                _blank(o.experts.value if o else None),
                _blank(o.experts_ci95.low if o else None),
                _blank(o.experts_ci95.high if o else None),
                _blank(o.corrected.value if o else None),
                _blank(o.corrected_ci95.low if o else None),
                _blank(o.corrected_ci95.high if o else None),
                c.labelled_items if c else "",
                c.corrected_rank if c else "",
                c.rank_change if c else "",
                (o.corrected.reason or "") if o else (row.calibrated_reason or ""),
                row.board.report_id if row.board and c else "",
                _blank(row.board.experts_resampled) if row.board and c else "",
                *_alt_test_cells(row.board.alt_test if row.board and c else None),
            ]
        )
    return out


def _alt_test_cells(t: AltTest | None) -> list[object]:
    """The judge's winning rate, whether it can replace an expert, and ε, from the report the row's calibrated scores come from."""
    if t is None:
        return ["", "", ""]
    return [_blank(t.winning_rate.value), "" if t.passed is None else t.passed, t.epsilon]


def _blank(value: float | None) -> object:
    return "" if value is None else value
