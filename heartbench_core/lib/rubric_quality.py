"""Rubric-quality signals of one criterion from plain rows: hit rate, human agreement, judge–human agreement.

The rubric pages read rows (response, rater, hit); this module turns them into the per-unit
counts of `heartbench_core.lib.agreement` and calls its functions, so the rubric page and the
agreement report compute every shared figure, and the majority rule, in one place. A unit here
is one response (the criterion is fixed). An undefined figure is `None` with the reason, never 0,
and every figure carries the number of units it was computed from.
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from heartbench_core.lib.agreement import (
    BLIND_TEST,
    MajorityRule,
    Stat,
    judge_majority_agreement,
    krippendorff_alpha_nominal,
    pairwise_percent_agreement,
)
from heartbench_core.lib.agreement import hit_rate as share_of_hits

Rating = tuple[Hashable, Hashable, bool]


def hit_rate(rows: Iterable[Rating]) -> Stat:
    """Share of responses the judge marked hit; rows are (response, model, hit), one per response.

    `saturated` is True when responses of at least two models were judged and every one was hit:
    the criterion no longer separates models (the benchmark's own filtering drops such criteria).
    """
    rows = list(rows)
    if not rows:
        return Stat.undefined(0, "no judge verdicts on this revision yet", models=0, saturated=False)
    hits = np.fromiter((bool(h) for _, _, h in rows), dtype=bool, count=len(rows))
    models = len({m for _, m, _ in rows})
    share = share_of_hits(hits)
    return Stat(share.value, share.n, share.reason, {"models": models, "saturated": bool(models >= 2 and hits.all())})


def unit_counts(ratings: Iterable[Rating]) -> tuple[np.ndarray, np.ndarray]:
    """Per unit: (hits, ratings) from rows (unit, rater, hit); a rater's later row on a unit replaces the earlier."""
    units: dict[Hashable, dict[Hashable, bool]] = defaultdict(dict)
    for unit, rater, hit in ratings:
        units[unit][rater] = bool(hit)
    hits = np.fromiter((sum(u.values()) for u in units.values()), dtype=np.int64, count=len(units))
    counts = np.fromiter((len(u) for u in units.values()), dtype=np.int64, count=len(units))
    return hits, counts


def pairwise_agreement(ratings: Iterable[Rating]) -> Stat:
    """Share of agreeing rater pairs over units rated by two or more raters; rows are (unit, rater, hit)."""
    return pairwise_percent_agreement(*unit_counts(ratings))


def krippendorff_alpha(ratings: Iterable[Rating]) -> Stat:
    """Krippendorff's alpha (nominal) over units rated by two or more raters; rows are (unit, rater, hit)."""
    return krippendorff_alpha_nominal(*unit_counts(ratings))


def judge_human_agreement(rows: Iterable[tuple[bool, list[bool]]], rule: MajorityRule = BLIND_TEST) -> Stat:
    """Share of units where the judge's verdict equals the experts' majority under `rule`; rows are (judge hit, human hits).

    Units without a majority (ties, units short of the rule's ratings) are left out and counted.
    """
    rows = list(rows)
    judge = np.fromiter((bool(j) for j, _ in rows), dtype=bool, count=len(rows))
    hits = np.fromiter((sum(bool(h) for h in humans) for _, humans in rows), dtype=np.int64, count=len(rows))
    ratings = np.fromiter((len(humans) for _, humans in rows), dtype=np.int64, count=len(rows))
    return judge_majority_agreement(judge, hits, ratings, rule)


@dataclass(frozen=True)
class AmbiguityRule:
    """A criterion is ambiguous when experts' pairwise agreement is below `threshold` over at least `min_units`."""

    threshold: float = 0.75
    min_units: int = 5

    def is_ambiguous(self, agreement: Stat) -> bool:
        """True when the agreement is defined, measured on enough units, and below the threshold."""
        return agreement.value is not None and agreement.n >= self.min_units and agreement.value < self.threshold
