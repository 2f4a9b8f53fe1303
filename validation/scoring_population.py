"""The judge's scores on every item of a campaign's version: what the report's human-calibrated scores correct.

Read from the judge runs' stored scores (the leaderboard's), so a report adds two or three queries.
"""

from __future__ import annotations

import numpy as np
from django.db.models import Count

from annotation.models import Campaign
from heartbench_core.lib.agreement_report import ScoringPopulation
from heartbench_core.lib.reasons import Reason
from heartbench_core.models import JudgeRun
from heartbench_core.services.stored_scores import scored_runs

NOT_A_BLIND_TEST = Reason("not_a_blind_test")
CATASTROPHIC_LEFT_OUT = Reason("catastrophic_left_out")
OTHER_VERSION = Reason("other_version")
SCORING_MODE = "paper"  # the leaderboard's default catastrophic rule


def _without(reason: str) -> ScoringPopulation:
    none = np.zeros(0, np.intp)
    return ScoringPopulation((), none, (), np.zeros((0, 0), bool), none, {}, {}, reason)


def scoring_population(campaign: Campaign, runs: list[JudgeRun], *, exclude_catastrophic: bool = False) -> ScoringPopulation | None:
    """The judge's per-question scores of each model of the runs on every item of the campaign's version (None without runs)."""
    if not runs:
        return None
    if campaign.kind != Campaign.Kind.BLIND_TEST:
        return _without(NOT_A_BLIND_TEST)
    if exclude_catastrophic:
        return _without(CATASTROPHIC_LEFT_OUT)
    same = [r for r in runs if r.version_id == campaign.version_id]
    if not same:
        return _without(OTHER_VERSION)
    scored = scored_runs(same, mode=SCORING_MODE)
    frame = scored[same[0].pk].frame
    criteria = dict(campaign.version.items.annotate(n=Count("criteria")).order_by().values_list("question_id", "n"))
    strata = [f"{d}\x1f{s}" for d, s in zip(frame.difficulty.tolist(), frame.scene.tolist())]
    _, stratum = np.unique(np.array(strata, dtype=object), return_inverse=True) if strata else (None, np.zeros(0, np.intp))
    return ScoringPopulation(
        question_ids=tuple(frame.question_ids),
        stratum=np.asarray(stratum, np.intp),
        abilities=tuple(frame.abilities),
        present=scored[same[0].pk].scores.present,
        criteria=np.array([criteria.get(q, 0) for q in frame.question_ids], dtype=np.int64),
        judge_norm={r.model.name: scored[r.pk].scores.norm for r in same},
        scored={r.model.name: scored[r.pk].covered for r in same},
    )
