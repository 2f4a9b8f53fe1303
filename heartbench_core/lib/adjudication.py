"""Which units need a senior reviewer's decision: the one definition the queue, its counts and the API share.

A unit is one (campaign response, criterion). Its golden label is the experts' strict majority
once it has k ratings (`agreement.MajorityRule`: at least 2 of 3 agreeing at k = 3). A unit
*needs a decision* when the experts' majority is undefined, or the project's rule says it cannot
be trusted, and nobody has decided it yet:

- `tie`: complete, and no strict majority (half hit, half miss: possible with an even number of
  ratings); the golden standard is undefined until someone decides;
- `ambiguous`: a rated unit of a criterion that experts reported unclear or that is flagged for
  the rubric authors (still open): the project's rule sends it to adjudication;
- `discussion_changed`: complete, and the experts' stances after the discussion (each rater's vote
  where they voted, their blind verdict where they did not) have another majority than their
  blind verdicts (another label, or none): the blind label stands until a reviewer weighs the
  discussion, and the queue lists such units first.

A complete unit whose experts split but still have a majority (2 of 3) has its golden label, and
so has a unanimous unit the judge contradicts (`judge_contradicts`: the judge is what the golden
standard measures; a reviewer overruling unanimous experts because the judge disagrees would bias
the judge's agreement upwards). Both are *compared* and may be looked at and decided, but need no
decision. Pure NumPy: no Django import.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from heartbench_core.lib.agreement import MajorityRule, majority_labels


@dataclass(frozen=True)
class UnitTriage:
    """Per-unit boolean arrays (one entry per unit) and each unit's pairwise expert agreement."""

    complete: np.ndarray  # the unit has the k ratings the majority rule waits for
    tie: np.ndarray  # complete without a strict majority
    split: np.ndarray  # complete, not unanimous (with or without a majority)
    unanimous: np.ndarray
    contradicts: np.ndarray  # the judge contradicts a unanimous expert verdict
    ambiguous: np.ndarray  # rated, and its criterion is reported unclear or flagged
    decided: np.ndarray  # a senior reviewer decided it
    compared: np.ndarray  # complete, or rated and ambiguous: the units a reviewer may look at
    needs_decision: np.ndarray  # (tie | ambiguous | discussion_changed) and not decided
    agreement: np.ndarray  # share of agreeing rater pairs (1.0 with fewer than two ratings)
    discussion_changed: np.ndarray  # complete, and the stances after the discussion have another majority


def triage_units(
    hits: np.ndarray,
    ratings: np.ndarray,
    *,
    k: int | np.ndarray,
    adjudicated: np.ndarray,
    judge: np.ndarray,
    ambiguous_criterion: np.ndarray,
    post_discussion_hits: np.ndarray | None = None,
) -> UnitTriage:
    """Classify every unit: hits and ratings per unit, adjudicated label (−1: none), judge verdict (−1: none), ambiguity,
    and the hit stances after the discussion (each rater's vote, else their blind verdict; None: no discussion)."""
    hits = np.asarray(hits, np.int64)
    ratings = np.asarray(ratings, np.int64)
    judge = np.asarray(judge, np.int64)
    # k is one number, or one per unit (k + 2 where a response was given extra raters: it waits for them all).
    rule = MajorityRule(min_ratings=1)
    complete = (ratings >= np.maximum(np.asarray(k, np.int64), 1)) & (ratings > 0)
    label, unanimous, _tie = majority_labels(hits, ratings, rule)
    label = np.where(complete, label, -1)
    unanimous = unanimous & complete
    tie = complete & (label < 0)
    split = complete & ~unanimous
    contradicts = unanimous & (judge >= 0) & ((judge == 1) != (hits == ratings))
    ambiguous = (ratings > 0) & np.asarray(ambiguous_criterion, bool)
    decided = np.asarray(adjudicated) >= 0
    if post_discussion_hits is None:
        changed = np.zeros(hits.shape, dtype=bool)
    else:
        post_label, _post_unanimous, _post_tie = majority_labels(np.asarray(post_discussion_hits, np.int64), ratings, rule)
        changed = complete & (post_label != label)
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = ratings * (ratings - 1) / 2
        agree = (hits * (hits - 1) + (ratings - hits) * (ratings - hits - 1)) / 2
        agreement = np.where(pairs > 0, agree / np.maximum(pairs, 1), 1.0)
    return UnitTriage(
        complete=complete,
        tie=tie,
        split=split,
        unanimous=unanimous,
        contradicts=contradicts,
        ambiguous=ambiguous,
        decided=decided,
        compared=complete | ambiguous,
        needs_decision=(tie | ambiguous | changed) & ~decided,
        agreement=agreement,
        discussion_changed=changed,
    )
