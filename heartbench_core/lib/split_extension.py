"""Extra raters where the verdicts split: which responses to extend, and what the extension did to the gold.

A blind test gives each response k expert ratings per criterion. A criterion is *split* when its
k ratings are as close as they can be: one vote apart when k is odd (2–1 of 3), a tie when k is
even. A response whose share of split criteria reaches the campaign's threshold is offered to
two more experts (k → k + 2, so an odd k stays odd and the majority strict), most split first,
while the campaign's budget of extra assignments lasts.

The decision reads the experts' blind ratings and nothing else: never the judge's verdict. An
extension chosen where the judge disagrees with the experts could only move the gold toward the
judge on those responses, and the agreement figure would be biased upward (the simulation in
`tests/lib/test_split_extension.py` measures both). Pure NumPy; the planner of a blind test can
call `simulate_gold` to include the option in its designs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

EXTRA_RATERS = 2  # k → k + 2: the majority of an odd k stays strict


def split_units(hits: np.ndarray, ratings: np.ndarray) -> np.ndarray:
    """Per unit: its ratings are split as closely as they can be (one vote apart, or tied), with at least two ratings."""
    h, m = np.asarray(hits, np.int64), np.asarray(ratings, np.int64)
    return (m >= 2) & (np.abs(2 * h - m) <= 1)


@dataclass(frozen=True, slots=True)
class SplitShare:
    """How split one response's k verdicts are: `split` of its `criteria` rated."""

    split: int
    criteria: int

    @property
    def share(self) -> float | None:
        """The share of split criteria; None when no criterion was rated."""
        return self.split / self.criteria if self.criteria else None

    def reaches(self, min_share: float) -> bool:
        """Whether the share reaches the campaign's threshold (a response without rated criteria never does)."""
        share = self.share
        return share is not None and share >= min_share - 1e-12


def split_share(hits: np.ndarray, ratings: np.ndarray) -> SplitShare:
    """The split criteria of one response, from its per-criterion hit votes and ratings."""
    ratings = np.asarray(ratings, np.int64)
    return SplitShare(split=int(split_units(hits, ratings).sum()), criteria=int((ratings > 0).sum()))


def extension_order(shares: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """Positions of the candidate responses, most split first; equal shares in the order of `tiebreak` (a keyed draw)."""
    shares, tiebreak = np.asarray(shares, np.float64), np.asarray(tiebreak, np.float64)
    return np.lexsort((tiebreak, -shares))


def first_k_counts(j_unit: np.ndarray, j_hit: np.ndarray, j_time: np.ndarray, n_units: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: (hit votes, ratings) among its first k ratings by submission time (ties in the given order).

    What the gold would have been read from without extra raters: every unit is counted on the
    same k, whatever happened after.
    """
    j_unit = np.asarray(j_unit, np.int64)
    order = np.lexsort((np.arange(j_unit.size), np.asarray(j_time, np.float64), j_unit))
    unit = j_unit[order]
    if unit.size == 0:
        return np.zeros(n_units, np.int64), np.zeros(n_units, np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(unit)) + 1]
    rank = np.arange(unit.size) - np.repeat(starts, np.diff(np.r_[starts, unit.size]))
    keep = rank < max(int(k), 1)
    hit = np.asarray(j_hit, np.int64)[order]
    hits = np.bincount(unit[keep], weights=hit[keep], minlength=n_units).astype(np.int64)
    ratings = np.bincount(unit[keep], minlength=n_units).astype(np.int64)
    return hits, ratings


@dataclass(frozen=True, slots=True)
class GoldChange:
    """What the extra raters did to the golden labels of the extended responses."""

    extended_responses: int = field(metadata={"help_text": "Responses given two more experts because their k verdicts split."})
    completed_responses: int = field(metadata={"help_text": "Of them, those whose every extra rating is in."})
    criteria: int = field(metadata={"help_text": "Criteria of the completed ones with a majority both on the first k ratings and on all."})
    flipped: int = field(metadata={"help_text": "Of those criteria, how many had their majority label changed by the extra ratings."})
    responses_changed: int = field(metadata={"help_text": "Completed responses with at least one criterion flipped."})


def gold_change(
    u_cr: np.ndarray,
    cr_extra: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    ratings: np.ndarray,
    need: np.ndarray,
) -> GoldChange:
    """Compare, on the extended responses, the majority of the first k ratings (`before`) with the gold of all (`after`).

    `before` and `after` are labels per unit (−1 none, 0, 1); a response counts as completed once
    every unit of it has the ratings it waits for (`need`, k + its extra raters).
    """
    u_cr, cr_extra = np.asarray(u_cr, np.int64), np.asarray(cr_extra, np.int64)
    extended = cr_extra > 0
    n_cr = cr_extra.size
    on_extended = extended[u_cr] if u_cr.size else np.zeros(0, bool)
    short = np.asarray(ratings, np.int64) < np.asarray(need, np.int64)
    incomplete = np.bincount(u_cr[on_extended & short], minlength=n_cr) > 0
    done_cr = extended & ~incomplete & (np.bincount(u_cr[on_extended], minlength=n_cr) > 0)
    done = done_cr[u_cr] if u_cr.size else np.zeros(0, bool)
    compared = done & (np.asarray(before) >= 0) & (np.asarray(after) >= 0)
    flipped = compared & (np.asarray(before) != np.asarray(after))
    return GoldChange(
        extended_responses=int(extended.sum()),
        completed_responses=int(done_cr.sum()),
        criteria=int(compared.sum()),
        flipped=int(flipped.sum()),
        responses_changed=int((np.bincount(u_cr[flipped], minlength=n_cr) > 0).sum()),
    )


def simulate_gold(
    p_hit: np.ndarray,
    unit_response: np.ndarray,
    *,
    k: int,
    rng: np.random.Generator,
    min_share: float | None = None,
    budget: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """One simulated blind test: (gold label per unit, extended per response) for units with hit probabilities `p_hit`.

    Each unit gets k Bernoulli(p_hit) ratings from distinct, exchangeable experts. With
    `min_share`, responses whose split share reaches it are given two more ratings, most split
    first (ties at random), while `budget` extra assignments last. The gold is the strict
    majority of every rating (−1 for a tie). For the planner and the tests.
    """
    p_hit = np.asarray(p_hit, np.float64)
    unit_response = np.asarray(unit_response, np.int64)
    n_responses = int(unit_response.max()) + 1 if unit_response.size else 0
    ratings = np.full(p_hit.size, k, np.int64)
    hits = rng.binomial(k, p_hit).astype(np.int64)
    extended = np.zeros(n_responses, bool)
    if min_share is not None and budget >= EXTRA_RATERS and n_responses:
        split = np.bincount(unit_response, weights=split_units(hits, ratings), minlength=n_responses)
        criteria = np.bincount(unit_response, minlength=n_responses)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(criteria > 0, split / np.maximum(criteria, 1), 0.0)
        candidates = np.flatnonzero((criteria > 0) & (share >= min_share - 1e-12))
        order = candidates[extension_order(share[candidates], rng.random(candidates.size))]
        extended[order[: budget // EXTRA_RATERS]] = True
        more = extended[unit_response]
        hits = hits + np.where(more, rng.binomial(EXTRA_RATERS, p_hit), 0)
        ratings = ratings + np.where(more, EXTRA_RATERS, 0)
    label = np.where(2 * hits > ratings, 1, np.where(2 * hits < ratings, 0, -1)).astype(np.int8)
    return label, extended
