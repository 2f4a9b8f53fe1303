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

import json
import zlib
from collections.abc import Iterable

import numpy as np
from django.db.models import Q

from heartbench_core.lib import scoring
from heartbench_core.models import DatasetVersion, JudgeRun, StoredScores
from heartbench_core.services.scoring import (
    RubricFrame,
    ScoredVerdicts,
    check_mode,
    question_frame,
    rubric_frame,
    score_frame,
    score_judge_runs,
)
from heartbench_core.verdict_sources import VerdictSet


def run_key(run_id: int) -> str:
    return f"judge:{run_id}"


def run_stamp(run: JudgeRun) -> str:
    return f"verdicts={run.verdict_count}"


def pack(scored: ScoredVerdicts) -> bytes:
    """The arrays of a scored source, and the ability labels they are laid out by, as bytes (exact: no rounding, no conversion)."""
    s = scored.scores
    arrays = {
        "norm": s.norm,
        "raw": s.raw,
        "present": s.present,
        "question_score": s.question_score,
        "catastrophic": s.catastrophic,
        "covered": scored.covered,
        "incomplete": scored.incomplete,
        "counts": np.array([scored.verdicts_used, scored.verdicts_stale, scored.verdicts_unmatched], dtype=np.int64),
    }
    layout = {
        "abilities": list(scored.frame.abilities),
        "arrays": [[name, a.dtype.str, list(a.shape)] for name, a in arrays.items()],
    }
    head = json.dumps(layout, ensure_ascii=False).encode()
    body = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays.values())
    return len(head).to_bytes(4, "little") + head + zlib.compress(body, 1)


def _layout(blob: bytes) -> tuple[dict, int] | None:
    """The layout written by `pack` and where the arrays start; None for bytes it did not write."""
    size = int.from_bytes(blob[:4], "little")
    try:
        layout = json.loads(blob[4 : 4 + size])
    except ValueError:
        return None
    return (layout, 4 + size) if isinstance(layout, dict) and "abilities" in layout and "arrays" in layout else None


def abilities_of(blob: bytes | memoryview) -> tuple[str, ...] | None:
    """The ability labels the stored arrays are laid out by (None when the bytes are not `pack`'s)."""
    found = _layout(bytes(blob))
    return tuple(found[0]["abilities"]) if found else None


def unpack(frame: RubricFrame, mode: str, blob: bytes | memoryview) -> ScoredVerdicts | None:
    """The scored source back from its bytes; None when they do not fit the frame (its questions or abilities differ)."""
    found = _layout(bytes(blob))
    if found is None or tuple(found[0]["abilities"]) != frame.abilities:
        return None
    layout, start = found
    body = zlib.decompress(bytes(blob)[start:])
    a: dict[str, np.ndarray] = {}
    offset = 0
    for name, dtype, shape in layout["arrays"]:
        kind = np.dtype(dtype)
        count = int(np.prod(shape)) if shape else 1
        a[name] = np.frombuffer(body, dtype=kind, count=count, offset=offset).reshape(shape).copy()
        offset += count * kind.itemsize
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


OVERALL_COLUMNS = {"all": "overall", "hard": "overall_hard", "normal": "overall_normal"}  # subset -> StoredScores column


def overalls(scored: ScoredVerdicts) -> dict[str, float | None]:
    """The overall score of each subset (every scene), as the StoredScores columns the leaderboard ranks by hold them."""
    return {column: scored.result(subset=subset, with_questions=False).overall for subset, column in OVERALL_COLUMNS.items()}


def _stored(scored: ScoredVerdicts, **fields: object) -> StoredScores:
    return StoredScores(**fields, arrays=pack(scored), **overalls(scored), overalls_stored=True)


def _keep(rows: list[StoredScores]) -> None:
    if rows:
        StoredScores.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["key", "mode"],
            update_fields=["version", "run", "campaign_id", "stamp", "arrays", *OVERALL_COLUMNS.values(), "overalls_stored"],
        )


def store_run_overalls(runs: list[JudgeRun], *, mode: str) -> None:
    """Make sure each run has a current stored row with its overall scores filled: scored (and stored) when it has none,
    filled from its arrays when it was stored before the overall columns existed."""
    if not runs:
        return
    scored = scored_runs(runs, mode=mode)
    rows = list(StoredScores.objects.filter(key__in=[run_key(r.pk) for r in runs], mode=mode, overalls_stored=False).only("pk", "run_id"))
    for row in rows:
        if row.run_id in scored:
            for column, value in overalls(scored[row.run_id]).items():
                setattr(row, column, value)
            row.overalls_stored = True
    StoredScores.objects.bulk_update([r for r in rows if r.overalls_stored], [*OVERALL_COLUMNS.values(), "overalls_stored"], batch_size=500)


def _frame_for(version: DatasetVersion, blobs: list[bytes | memoryview]) -> RubricFrame:
    """The frame to aggregate stored arrays with: their questions only (one query) when every source is stored."""
    abilities = abilities_of(blobs[0])
    return question_frame(version, abilities) if abilities is not None else rubric_frame(version)


def scored_runs(runs: list[JudgeRun], *, mode: str = "paper", frame: RubricFrame | None = None) -> dict[int, ScoredVerdicts]:
    """`score_judge_runs` from stored scores: one query for the stored rows; only runs without a usable row read their verdicts.

    When every run is stored, the rubric's criteria are not read either (two queries in all).
    """
    check_mode(mode)
    if not runs:
        return {}
    rows = StoredScores.objects.filter(key__in=[run_key(r.pk) for r in runs], mode=mode).only("run_id", "stamp", "arrays")
    by_run = {row.run_id: row for row in rows}
    usable = {r.pk: by_run[r.pk].arrays for r in runs if r.pk in by_run and by_run[r.pk].stamp == run_stamp(r)}
    if frame is None and len(usable) == len(runs):
        frame = _frame_for(runs[0].version, list(usable.values()))
    out: dict[int, ScoredVerdicts] = {}
    for run in runs:
        found = unpack(frame, mode, usable[run.pk]) if frame is not None and run.pk in usable else None
        if found is not None:
            out[run.pk] = found
    missing = [run for run in runs if run.pk not in out]
    if missing:
        full = frame if frame is not None and len(frame.criterion_id) else rubric_frame(runs[0].version)
        computed = score_judge_runs(missing, mode=mode, frame=full)
        out.update(computed)
        _keep(
            [
                _stored(computed[run.pk], version_id=run.version_id, key=run_key(run.pk), mode=mode, run=run, stamp=run_stamp(run))
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
    keys = [s.key for s in sets if s.key]
    stored = {row.key: row for row in StoredScores.objects.filter(key__in=keys, mode=mode).only("key", "stamp", "arrays")} if keys else {}
    usable = {s.key: stored[s.key].arrays for s in sets if s.key in stored and stored[s.key].stamp == s.stamp}
    if frame is None and len(usable) == len(sets):
        frame = _frame_for(sets[0].version, list(usable.values()))
    out: list[ScoredVerdicts | None] = [unpack(frame, mode, usable[s.key]) if frame is not None and s.key in usable else None for s in sets]
    keep: list[StoredScores] = []
    if any(found is None for found in out):
        full = frame if frame is not None and len(frame.criterion_id) else rubric_frame(sets[0].version)
        for n, verdicts in enumerate(sets):
            if out[n] is not None:
                continue
            scored = score_frame(full, criterion_id=verdicts.criterion_id, hit=verdicts.hit, mode=mode)
            out[n] = scored
            if verdicts.key:
                keep.append(
                    _stored(
                        scored,
                        version=verdicts.version,
                        key=verdicts.key,
                        mode=mode,
                        run_id=verdicts.run_id,
                        campaign_id=verdicts.campaign_id,
                        stamp=verdicts.stamp,
                    )
                )
    _keep(keep)
    return [found for found in out if found is not None]


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
