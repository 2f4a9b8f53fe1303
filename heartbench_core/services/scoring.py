"""Scores from any source of hit/miss verdicts: a judge run, the human golden standard, one expert.

`rubric_frame(version)` flattens a version's rubric into arrays (one query); `score_verdicts`
scores one model's verdicts against it; `score_judge_runs` scores many runs with one more query.
All arithmetic is in `heartbench_core.lib.scoring`. Other apps call `score_verdicts` (or
`score_verdict_table`) to score their own verdicts exactly as the benchmark does.
"""

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils.translation import gettext

from heartbench_core.lib import scoring
from heartbench_core.lib.taxonomy import ABILITIES, ABILITY_LABELS, DIMENSIONS
from heartbench_core.models import Criterion, Dataset, DatasetVersion, JudgeRun, JudgeVerdict

if TYPE_CHECKING:
    from heartbench_core.verdict_sources import VerdictSet

SUBSETS = ("all", "hard", "normal")


@dataclass(frozen=True)
class RubricFrame:
    """A version's rubric as flat arrays, one entry per criterion, criteria sorted by pk."""

    version: DatasetVersion
    question_ids: tuple[str, ...]  # in file order
    difficulty: np.ndarray  # (n_q,) str
    scene: np.ndarray  # (n_q,) str: primary scene
    criterion_id: np.ndarray  # (n_c,) int64, ascending
    question: np.ndarray  # (n_c,) question index
    position: np.ndarray  # (n_c,) 0-based place in the question's rubric
    ability: np.ndarray  # (n_c,) ability index, -1 for catastrophic criteria
    weight: np.ndarray  # (n_c,) float, NaN for null
    catastrophic: np.ndarray  # (n_c,) bool
    lineage: tuple[str, ...]  # (n_c,) lineage key as a string
    revision: np.ndarray  # (n_c,) int
    abilities: tuple[str, ...]  # ability labels: the taxonomy, then labels the dataset declares

    @property
    def n_questions(self) -> int:
        return len(self.question_ids)

    def ability_dimension(self) -> np.ndarray:
        index = {d: i for i, d in enumerate(DIMENSIONS)}
        by_label = {a.label: index[a.dimension] for a in ABILITIES}
        return np.array([by_label.get(label, -1) for label in self.abilities], dtype=np.intp)

    def subset_mask(self, subset: str = "all", scene: str | None = None) -> np.ndarray:
        """Questions of a subset (all, hard, normal), optionally of one primary scene."""
        _check_choice("subset", subset, SUBSETS)
        mask = np.ones(self.n_questions, dtype=bool) if subset == "all" else self.difficulty == subset
        if scene:
            mask &= self.scene == scene
        return mask


def question_frame(version: DatasetVersion, abilities: tuple[str, ...]) -> RubricFrame:
    """The question half of a rubric frame (one query): enough to aggregate stored per-question scores, not to score verdicts.

    `abilities` are the frame's ability labels as `rubric_frame` gave them when the scores were stored.
    """
    items = list(version.items.order_by("position").values_list("question_id", "difficulty", "primary_scene"))
    question_ids, difficulty, scene = zip(*items) if items else ((), (), ())
    none = np.zeros(0, dtype=np.int64)
    return RubricFrame(
        version=version,
        question_ids=question_ids,
        difficulty=np.array(difficulty, dtype=object),
        scene=np.array(scene, dtype=object),
        criterion_id=none,
        question=none.astype(np.intp),
        position=none.astype(np.intp),
        ability=none.astype(np.intp),
        weight=np.zeros(0),
        catastrophic=np.zeros(0, dtype=bool),
        lineage=(),
        revision=none,
        abilities=abilities,
    )


def rubric_frame(version: DatasetVersion) -> RubricFrame:
    """Flatten a version's rubric into arrays (two queries)."""
    items = list(version.items.order_by("position").values_list("id", "question_id", "difficulty", "primary_scene"))
    item_ids, question_ids, difficulty, scene = zip(*items) if items else ((), (), (), ())
    q_index = {item_id: i for i, item_id in enumerate(item_ids)}
    rows = list(
        Criterion.objects.filter(item__version=version)
        .order_by("id")
        .values_list("id", "item_id", "position", "ability", "weight", "catastrophic", "lineage_id", "revision")
    )
    # One tuple per column: as fast as reading rows by position, and each column has a name.
    criterion_id, item_id, position, ability, weight, catastrophic, lineage, revision = zip(*rows) if rows else ((),) * 8
    labels = list(ABILITY_LABELS)
    extra = sorted({a for a, cat in zip(ability, catastrophic) if not cat and a not in ABILITY_LABELS})
    labels.extend(extra)
    a_index = {label: i for i, label in enumerate(labels)}
    n = len(rows)
    return RubricFrame(
        version=version,
        question_ids=question_ids,
        difficulty=np.array(difficulty, dtype=object),
        scene=np.array(scene, dtype=object),
        criterion_id=np.fromiter(criterion_id, dtype=np.int64, count=n),
        question=np.fromiter((q_index[i] for i in item_id), dtype=np.intp, count=n),
        position=np.fromiter(position, dtype=np.intp, count=n),
        ability=np.fromiter((-1 if cat else a_index[a] for a, cat in zip(ability, catastrophic)), dtype=np.intp, count=n),
        weight=np.fromiter((np.nan if w is None else w for w in weight), dtype=float, count=n),
        catastrophic=np.fromiter(catastrophic, dtype=bool, count=n),
        lineage=tuple(str(key) for key in lineage),
        revision=np.fromiter(revision, dtype=np.int64, count=n),
        abilities=tuple(labels),
    )


@dataclass(frozen=True)
class QuestionResult:
    question_id: str
    score: float | None  # None when no ability of the question could be scored
    catastrophic: bool
    abilities: dict[str, float]  # Norm per ability present in the question
    difficulty: str
    scene: str


@dataclass
class ScoreResult:
    """Scores of one model from one verdict source over one subset, with the counts behind them."""

    overall: float | None
    abilities: dict[str, float | None]
    ability_questions: dict[str, int]
    dimensions: dict[str, float | None]
    questions_scored: int
    questions_dropped: int
    questions_incomplete: int
    questions_catastrophic: int
    catastrophic: str
    subset: str
    scene: str | None
    version: str
    questions: list[QuestionResult] = field(default_factory=list)
    undefined: dict[str, str] = field(default_factory=dict)
    verdicts_used: int = 0
    verdicts_stale: int = 0
    verdicts_unmatched: int = 0

    def as_json(self, *, include_questions: bool = False) -> dict:
        """The `score --format json` object (plus per-question scores when asked)."""
        body: dict[str, object] = {
            "overall": self.overall,
            "abilities": self.abilities,
            "dimensions": self.dimensions,
            "questions_scored": self.questions_scored,
            "questions_dropped": self.questions_dropped,
            "catastrophic": self.catastrophic,
            "subset": self.subset,
            "scene": self.scene,
            "version": self.version,
            "ability_questions": self.ability_questions,
            "questions_incomplete": self.questions_incomplete,
            "questions_catastrophic": self.questions_catastrophic,
            "verdicts_used": self.verdicts_used,
            "verdicts_stale": self.verdicts_stale,
            "verdicts_unmatched": self.verdicts_unmatched,
            "undefined": self.undefined,
        }
        if include_questions:
            body["questions"] = [
                {
                    "question_id": q.question_id,
                    "score": q.score,
                    "catastrophic": q.catastrophic,
                    "abilities": q.abilities,
                    "difficulty": q.difficulty,
                    "scene": q.scene,
                }
                for q in self.questions
            ]
        return body


@dataclass
class ScoredVerdicts:
    """One model's verdicts scored per question; `result()` aggregates any subset of them."""

    frame: RubricFrame
    scores: scoring.QuestionScores
    covered: np.ndarray  # (n_q,) bool: every criterion of the question has a verdict
    incomplete: np.ndarray  # (n_q,) bool: some, not all, criteria have a verdict
    mode: str
    verdicts_used: int
    verdicts_stale: int
    verdicts_unmatched: int

    def result(
        self, *, subset: str = "all", scene: str | None = None, questions: Iterable[str] | None = None, with_questions: bool = True
    ) -> ScoreResult:
        """Aggregate the scored questions of a subset (and, if given, only the listed question ids).

        with_questions=False skips building the per-question rows (the leaderboard needs only aggregates).
        """
        frame = self.frame
        in_subset = frame.subset_mask(subset, scene)
        if questions is not None:
            wanted = set(questions)
            in_subset &= np.array([q in wanted for q in frame.question_ids], dtype=bool)
        selected = in_subset & self.covered
        agg = scoring.aggregate(self.scores, selected=selected, ability_dimension=frame.ability_dimension(), n_dimensions=len(DIMENSIONS))
        abilities, counts, undefined = {}, {}, {}
        for i, label in enumerate(frame.abilities):
            counts[label] = int(agg.ability_questions[i])
            abilities[label] = _number(agg.ability_score[i])
            if abilities[label] is None:
                undefined[label] = "no scored question has a criterion of this ability"
        dimensions = {}
        for i, name in enumerate(DIMENSIONS):
            dimensions[name] = _number(agg.dimension_score[i])
            if dimensions[name] is None:
                undefined[name] = "none of this dimension's abilities was scored"
        overall = _number(agg.overall)
        if overall is None:
            undefined["overall"] = "no question was scored"
        per_question = []
        if with_questions:
            norm, present = self.scores.norm.tolist(), self.scores.present.tolist()
            labels = frame.abilities
            for q in np.flatnonzero(selected).tolist():
                per_question.append(
                    QuestionResult(
                        question_id=frame.question_ids[q],
                        score=_number(self.scores.question_score[q]),
                        catastrophic=bool(self.scores.catastrophic[q]),
                        abilities={labels[a]: norm[q][a] for a, p in enumerate(present[q]) if p},
                        difficulty=str(frame.difficulty[q]),
                        scene=str(frame.scene[q]),
                    )
                )
        return ScoreResult(
            overall=overall,
            abilities=abilities,
            ability_questions=counts,
            dimensions=dimensions,
            questions_scored=int(selected.sum()),
            questions_dropped=int((in_subset & ~self.covered).sum()),
            questions_incomplete=int((in_subset & self.incomplete).sum()),
            questions_catastrophic=int((selected & self.scores.catastrophic).sum()),
            catastrophic=self.mode,
            subset=subset,
            scene=scene or None,
            version=frame.version.label,
            questions=per_question,
            undefined=undefined,
            verdicts_used=self.verdicts_used,
            verdicts_stale=self.verdicts_stale,
            verdicts_unmatched=self.verdicts_unmatched,
        )


def _number(x: float | np.floating) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _check_choice(field: str, value: str, choices: tuple[str, ...]) -> None:
    """Raise a ValidationError naming `field` unless `value` is one of `choices`."""
    if value not in choices:
        raise ValidationError(
            {field: gettext("must be one of %(choices)s, not %(value)r") % {"choices": ", ".join(choices), "value": value}}
        )


def check_mode(mode: str) -> None:
    """Raise a ValidationError naming `catastrophic` unless `mode` is a catastrophic rule."""
    _check_choice("catastrophic", mode, scoring.CATASTROPHIC_MODES)


def _resolve_foreign(frame: RubricFrame, ids: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Map criterion pks of other versions onto this version's criteria through their lineage.

    A verdict carries over only when it is certainly about the same meaning: same revision, or
    no change of meaning since the older of the two revisions. Returns (positions or -1, stale, unmatched).
    """
    out = np.full(len(ids), -1, dtype=np.intp)
    if not len(ids):
        return out, 0, 0
    by_lineage = {key: i for i, key in enumerate(frame.lineage)}
    info = {
        row.id: row
        for row in Criterion.objects.filter(pk__in=[int(i) for i in set(ids.tolist())]).values_list(
            "id", "lineage_id", "revision", "lineage__meaning_revision", named=True
        )
    }
    stale = unmatched = 0
    for n, pk in enumerate(ids.tolist()):
        found = info.get(pk)
        target = by_lineage.get(str(found.lineage_id)) if found else None
        if found is None or target is None:
            unmatched += 1
            continue
        rev_v, meaning = found.revision, found.lineage__meaning_revision
        rev_t = int(frame.revision[target])
        if rev_v == rev_t or meaning <= min(rev_v, rev_t):
            out[n] = target
        else:
            stale += 1
    return out, stale, unmatched


def score_frame(frame: RubricFrame, *, criterion_id: np.ndarray, hit: np.ndarray, mode: str = "paper") -> ScoredVerdicts:
    """Score one model's verdicts (criterion pks and hits) against a rubric frame."""
    check_mode(mode)
    criterion_id = np.asarray(criterion_id, dtype=np.int64)
    hit = np.asarray(hit, dtype=bool)
    if len(frame.criterion_id):
        pos = np.minimum(np.searchsorted(frame.criterion_id, criterion_id), len(frame.criterion_id) - 1)
        own = frame.criterion_id[pos] == criterion_id
    else:
        pos, own = np.zeros(len(criterion_id), dtype=np.intp), np.zeros(len(criterion_id), dtype=bool)
    index = np.where(own, pos, -1)
    stale = unmatched = 0
    if not own.all():
        mapped, stale, unmatched = _resolve_foreign(frame, criterion_id[~own])
        index[~own] = mapped
    usable = index >= 0
    index, hit = index[usable], hit[usable]
    if len(index) and np.bincount(index).max() > 1:
        raise ValidationError(gettext("the verdicts hold more than one verdict for the same criterion of a response"))
    n_c = len(frame.criterion_id)
    judged = np.zeros(n_c, dtype=bool)
    judged[index] = True
    hits = np.zeros(n_c, dtype=bool)
    hits[index] = hit
    per_q_total = np.bincount(frame.question, minlength=frame.n_questions)
    per_q_judged = np.bincount(frame.question, weights=judged, minlength=frame.n_questions).astype(np.int64)
    covered = (per_q_total > 0) & (per_q_judged == per_q_total)
    incomplete = (per_q_judged > 0) & ~covered
    scores = scoring.score_questions(
        question=frame.question,
        ability=np.maximum(frame.ability, 0),
        weight=frame.weight,
        hit=hits,
        catastrophic=frame.catastrophic,
        n_questions=frame.n_questions,
        n_abilities=len(frame.abilities),
        mode=mode,
    )
    return ScoredVerdicts(
        frame=frame,
        scores=scores,
        covered=covered,
        incomplete=incomplete,
        mode=mode,
        verdicts_used=int(usable.sum()),
        verdicts_stale=stale,
        verdicts_unmatched=unmatched,
    )


def score_verdicts(
    *,
    version: DatasetVersion,
    rows: Iterable[tuple[int, bool]],
    mode: str = "paper",
    subset: str = "all",
    scene: str | None = None,
    questions: Iterable[str] | None = None,
    frame: RubricFrame | None = None,
) -> ScoreResult:
    """Score one model's (criterion pk, hit) verdicts against a version, exactly as the benchmark does.

    A question is scored only when every one of its criteria has a verdict; the others count as
    dropped. Verdicts against other versions' criteria carry over by lineage unless stale.
    """
    data = np.array([(int(c), bool(h)) for c, h in rows], dtype=np.int64).reshape(-1, 2)
    frame = frame or rubric_frame(version)
    scored = score_frame(frame, criterion_id=data[:, 0], hit=data[:, 1].astype(bool), mode=mode)
    return scored.result(subset=subset, scene=scene, questions=questions)


def score_verdict_table(
    *,
    version: DatasetVersion,
    rows: Iterable[tuple[object, int, bool]],
    mode: str = "paper",
    subset: str = "all",
    scene: str | None = None,
    questions: Iterable[str] | None = None,
) -> dict[object, ScoreResult]:
    """Score verdict rows of several models at once: (group key — e.g. a model name —, criterion pk, hit)."""
    groups: dict[object, list[tuple[int, bool]]] = {}
    for key, criterion_id, hit in rows:
        groups.setdefault(key, []).append((criterion_id, hit))
    frame = rubric_frame(version)
    wanted = list(questions) if questions is not None else None
    return {
        key: score_verdicts(version=version, rows=group, mode=mode, subset=subset, scene=scene, questions=wanted, frame=frame)
        for key, group in groups.items()
    }


def score_judge_runs(runs: list[JudgeRun], *, mode: str = "paper", frame: RubricFrame | None = None) -> dict[int, ScoredVerdicts]:
    """Score many judge runs of one version per question: one query for the rubric (unless given), one for all verdicts.

    Pages read these through `heartbench_core.services.stored_scores.scored_runs`, which keeps them.
    """
    check_mode(mode)
    if not runs:
        return {}
    versions = {r.version_id for r in runs}
    if len(versions) != 1:
        raise ValidationError(gettext("score_judge_runs takes runs of one dataset version"))
    frame = frame or rubric_frame(runs[0].version)
    # Tens of thousands of rows: fetch plain tuples straight into NumPy, skipping per-row ORM work.
    query = JudgeVerdict.objects.filter(run__in=[r.pk for r in runs]).order_by("run_id").values_list("run_id", "criterion_id", "hit")
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        data = np.array(cursor.fetchall(), dtype=np.int64).reshape(-1, 3)
    out = {}
    bounds = np.searchsorted(data[:, 0], [r.pk for r in runs] + [r.pk + 1 for r in runs])
    for n, run in enumerate(runs):
        lo, hi = bounds[n], bounds[n + len(runs)]
        out[run.pk] = score_frame(frame, criterion_id=data[lo:hi, 1], hit=data[lo:hi, 2].astype(bool), mode=mode)
    return out


def score_model(
    *,
    dataset_name: str,
    model_name: str,
    source: str = "judge",
    judge: str | None = None,
    run: str | None = None,
    version_label: str | None = None,
    subset: str = "all",
    scene: str | None = None,
    mode: str = "paper",
) -> "tuple[ScoreResult, VerdictSet]":
    """Score one model from a named verdict source; return (result, the VerdictSet used). Stored scores are used when current."""
    from heartbench_core.services.stored_scores import scored_verdicts
    from heartbench_core.verdict_sources import load_verdicts

    dataset, version = _scored_scope(dataset_name=dataset_name, version_label=version_label, subset=subset, mode=mode)
    verdicts = load_verdicts(source, dataset=dataset, version=version, model=model_name, judge=judge, run=run)
    scored = scored_verdicts(verdicts, mode=mode)
    return scored.result(subset=subset, scene=scene), verdicts


def _scored_scope(*, dataset_name: str, version_label: str | None, subset: str, mode: str) -> tuple[Dataset, DatasetVersion | None]:
    """Check the rule and the subset, and find the dataset and the version asked for (None: let the source choose)."""
    from heartbench_core.services.datasets import get_version

    check_mode(mode)
    _check_choice("subset", subset, SUBSETS)
    dataset = Dataset.objects.filter(name=dataset_name).first()
    if dataset is None:
        raise ValidationError({"dataset": gettext("no dataset named %(dataset)r") % {"dataset": dataset_name}})
    return dataset, get_version(dataset_name, version_label) if version_label else None


@dataclass
class ModelScores:
    """One model's scores in a list of every model of a source (`score_models`)."""

    rank: int | None  # by overall score; None when nothing was scored
    model: str
    verdicts: "VerdictSet"
    result: ScoreResult


def score_models(
    *,
    dataset_name: str,
    source: str = "judge",
    judge: str | None = None,
    run: str | None = None,
    version_label: str | None = None,
    subset: str = "all",
    scene: str | None = None,
    mode: str = "paper",
    models: Iterable[str] | None = None,
) -> list[ModelScores]:
    """Every model's scores from a verdict source on one version, ranked: each equals `score_model` for that model.

    The judge source gives one entry per matching run of the version (default: the newest version
    with runs); consensus, one per model of the newest campaign with a golden standard (`run` names
    one). Stored scores are used when current, so the queries do not grow with the verdicts.
    `models` keeps only the named ones.
    """
    from heartbench_core.services.stored_scores import scored_sources
    from heartbench_core.verdict_sources import list_verdicts

    dataset, version = _scored_scope(dataset_name=dataset_name, version_label=version_label, subset=subset, mode=mode)
    sets = list_verdicts(source, dataset=dataset, version=version, judge=judge, run=run)
    if models is not None:
        wanted = set(models)
        sets = [s for s in sets if s.meta.get("model") in wanted]
    if not sets:
        return []
    scored = scored_sources(sets, mode=mode)
    rows = [
        ModelScores(
            rank=None, model=str(s.meta.get("model", "")), verdicts=s, result=sv.result(subset=subset, scene=scene, with_questions=False)
        )
        for s, sv in zip(sets, scored)
    ]
    rows.sort(key=lambda r: (r.result.overall is None, -(r.result.overall or 0.0), r.model, r.verdicts.description))
    rank = 0
    for row in rows:
        if row.result.overall is not None:
            rank += 1
            row.rank = rank
    return rows


def upstream_overall_lines(result: ScoreResult) -> list[str]:
    """The upstream `overall_score_results.jsonl` lines: one per scored ability (sorted by label), then OVERALL."""
    rows: list[tuple[str, float | None]] = [(label, score) for label, score in sorted(result.abilities.items()) if score is not None]
    rows.append(("OVERALL", result.overall))
    # pandas' to_json, which wrote the reference file, keeps 10 decimal places.
    return [
        json.dumps({"ability": ability, "dimension_score": None if score is None else round(score, 10)}, ensure_ascii=False)
        for ability, score in rows
    ]


def export_upstream_overall(*, result: ScoreResult, path: str | Path) -> int:
    """Write the upstream overall_score_results.jsonl; return the number of lines."""
    if result.overall is None:
        raise ValidationError({"export_upstream": gettext("no question was scored, so there is no overall score to export")})
    lines = upstream_overall_lines(result)
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)
