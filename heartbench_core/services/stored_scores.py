"""Scores kept between requests: each verdict source's per-question scores, stored once and forgotten when their inputs change.

Scoring a model reads every verdict of its run (or every golden label of a campaign); a page or the
API asking again computes the same arrays again. Here the `ScoredVerdicts` arrays of one source and
catastrophic rule are stored as a `StoredScores` row on first use, and every later request
aggregates its subset and scene from them (`ScoredVerdicts.result`, the same code as before, so
the figures are identical). A write that changes what a row was computed from deletes it through
`forget_scores`: new verdicts of a run, a refreshed or adjudicated golden standard, an approved
change of a criterion's meaning. A judge run's row also carries the run's verdict count, so verdicts
added by a path that forgot to call `forget_scores` still make the row unusable.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import numpy as np
from django.db.models import Q

from heartbench_core.lib import scoring
from heartbench_core.models import JudgeRun, StoredScores
from heartbench_core.services.scoring import RubricFrame, ScoredVerdicts, check_mode, rubric_frame, score_frame, score_judge_runs
from heartbench_core.verdict_sources import VerdictSet

_ARRAYS = ("norm", "raw", "present", "question_score", "catastrophic", "covered", "incomplete", "counts")


def run_key(run_id: int) -> str:
    return f"judge:{run_id}"


def run_stamp(run: JudgeRun) -> str:
    return f"verdicts={run.verdict_count}"


def pack(scored: ScoredVerdicts) -> bytes:
    """The arrays of a scored source as .npz bytes (exact: no rounding, no conversion)."""
    buffer = io.BytesIO()
    s = scored.scores
    np.savez_compressed(
        buffer,
        norm=s.norm,
        raw=s.raw,
        present=s.present,
        question_score=s.question_score,
        catastrophic=s.catastrophic,
        covered=scored.covered,
        incomplete=scored.incomplete,
        counts=np.array([scored.verdicts_used, scored.verdicts_stale, scored.verdicts_unmatched], dtype=np.int64),
    )
    return buffer.getvalue()


def unpack(frame: RubricFrame, mode: str, blob: bytes | memoryview) -> ScoredVerdicts | None:
    """The scored source back from its bytes; None when they do not fit the rubric (its questions or abilities changed)."""
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as data:
        a = {name: data[name] for name in _ARRAYS}
    if a["norm"].shape != (frame.n_questions, len(frame.abilities)):
        return None
    used, stale, unmatched = (int(x) for x in a["counts"])
    return ScoredVerdicts(
        frame=frame,
        scores=scoring.QuestionScores(
            norm=a["norm"], raw=a["raw"], present=a["present"], question_score=a["question_score"], catastrophic=a["catastrophic"]
        ),
        covered=a["covered"],
        incomplete=a["incomplete"],
        mode=mode,
        verdicts_used=used,
        verdicts_stale=stale,
        verdicts_unmatched=unmatched,
    )


def _keep(rows: list[StoredScores]) -> None:
    if rows:
        StoredScores.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["key", "mode"], update_fields=["version", "run", "campaign_id", "stamp", "arrays"]
        )


def scored_runs(runs: list[JudgeRun], *, mode: str = "paper", frame: RubricFrame | None = None) -> dict[int, ScoredVerdicts]:
    """`score_judge_runs` from stored scores: one query for the stored rows; only runs without a usable row read their verdicts."""
    check_mode(mode)
    if not runs:
        return {}
    frame = frame or rubric_frame(runs[0].version)
    stored = {
        row.run_id: row
        for row in StoredScores.objects.filter(key__in=[run_key(r.pk) for r in runs], mode=mode).only("run_id", "stamp", "arrays")
    }
    out: dict[int, ScoredVerdicts] = {}
    missing = []
    for run in runs:
        row = stored.get(run.pk)
        found = unpack(frame, mode, row.arrays) if row is not None and row.stamp == run_stamp(run) else None
        if found is None:
            missing.append(run)
        else:
            out[run.pk] = found
    if missing:
        computed = score_judge_runs(missing, mode=mode, frame=frame)
        out.update(computed)
        _keep(
            [
                StoredScores(
                    version_id=run.version_id, key=run_key(run.pk), mode=mode, run=run, stamp=run_stamp(run), arrays=pack(computed[run.pk])
                )
                for run in missing
            ]
        )
    return out


def scored_verdicts(verdicts: VerdictSet, *, mode: str = "paper", frame: RubricFrame | None = None) -> ScoredVerdicts:
    """One source's scores: stored ones when its key has a usable row, else computed from its verdicts (and stored)."""
    return scored_sources([verdicts], mode=mode, frame=frame)[0]


def scored_sources(sets: list[VerdictSet], *, mode: str = "paper", frame: RubricFrame | None = None) -> list[ScoredVerdicts]:
    """Scores of several sources of one version, in order: one query for the stored rows, verdicts read only for the others."""
    check_mode(mode)
    if not sets:
        return []
    frame = frame or rubric_frame(sets[0].version)
    keys = [s.key for s in sets if s.key]
    stored = {row.key: row for row in StoredScores.objects.filter(key__in=keys, mode=mode).only("key", "stamp", "arrays")} if keys else {}
    out: list[ScoredVerdicts] = []
    keep: list[StoredScores] = []
    for verdicts in sets:
        row = stored.get(verdicts.key)
        found = unpack(frame, mode, row.arrays) if row is not None and row.stamp == verdicts.stamp else None
        if found is None:
            found = score_frame(frame, criterion_id=verdicts.criterion_id, hit=verdicts.hit, mode=mode)
            if verdicts.key:
                keep.append(
                    StoredScores(
                        version=verdicts.version,
                        key=verdicts.key,
                        mode=mode,
                        run_id=verdicts.run_id,
                        campaign_id=verdicts.campaign_id,
                        stamp=verdicts.stamp,
                        arrays=pack(found),
                    )
                )
        out.append(found)
    _keep(keep)
    return out


def forget_scores(
    *,
    runs: Iterable[int] = (),
    campaigns: Iterable[int] = (),
    datasets: Iterable[int] = (),
) -> int:
    """Delete the stored scores computed from these judge runs, campaigns' golden standards or datasets' rubrics; returns how many."""
    where = Q(pk__in=[])
    if run_ids := list(runs):
        where |= Q(run_id__in=run_ids)
    if campaign_ids := list(campaigns):
        where |= Q(campaign_id__in=campaign_ids)
    if dataset_ids := list(datasets):
        where |= Q(version__dataset_id__in=dataset_ids)
    if not (run_ids or campaign_ids or dataset_ids):
        return 0
    deleted, _ = StoredScores.objects.filter(where).delete()
    return deleted
