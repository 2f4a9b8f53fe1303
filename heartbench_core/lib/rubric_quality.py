"""Rubric-quality signals of one criterion from plain rows: hit rate, human agreement, judge–human agreement.

The rubric pages read rows (response, rater, hit); this module turns them into the per-unit
counts of `heartbench_core.lib.agreement` and calls its functions, so the rubric page and the
agreement report compute every shared figure, and the majority rule, in one place. The criterion
is fixed, so a unit of the human figures is one response; a unit of the judge–human figure is one
campaign response, as in the report, waiting for its campaign's k ratings. An undefined figure is
`None` with the reason, never 0, and every figure carries the number of units it was computed from.
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

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
from heartbench_core.lib.reasons import Reason

Rating = tuple[Hashable, Hashable, bool]


def hit_rate(rows: Iterable[Rating]) -> Stat:
    """Share of responses the judge marked hit; rows are (response, model, hit), one per response.

    `saturated` is True when responses of at least two models were judged and every one was hit:
    the criterion no longer separates models (the benchmark's own filtering drops such criteria).
    """
    rows = list(rows)
    if not rows:
        return Stat.undefined(0, Reason("no_revision_verdicts"), models=0, saturated=False)
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


@dataclass(frozen=True, eq=False)
class CampaignOverlaps(MajorityRule):
    """The majority rule of units pooled from several campaigns: unit u waits for `overlaps[u]` ratings, its campaign's k."""

    overlaps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def complete(self, ratings: np.ndarray) -> np.ndarray:
        """Per unit: it has the ratings its own campaign waits for."""
        ratings = np.asarray(ratings, np.int64)
        return (ratings >= np.maximum(self.overlaps, 1)) & (ratings > 0)

    def describe(self) -> str:
        """The rule in words, for reasons and pages."""
        return Reason("majority_rule_overlap")


def judge_human_agreement(
    rows: Iterable[tuple[bool, Sequence[bool]] | tuple[bool, Sequence[bool], int]], rule: MajorityRule = BLIND_TEST
) -> Stat:
    """Share of units where the judge's verdict equals the experts' majority; rows are (judge hit, human hits[, k]).

    A row that carries k is a campaign's unit (one campaign response): it waits for that campaign's k
    ratings, as the agreement report's golden standard does. Rows without k follow `rule`. Units
    without a majority (ties, units short of their ratings) are left out and counted.
    """
    rows = list(rows)
    judge = np.fromiter((bool(row[0]) for row in rows), dtype=bool, count=len(rows))
    hits = np.fromiter((sum(bool(h) for h in row[1]) for row in rows), dtype=np.int64, count=len(rows))
    ratings = np.fromiter((len(row[1]) for row in rows), dtype=np.int64, count=len(rows))
    overlaps = np.fromiter((row[2] if len(row) > 2 else rule.min_ratings for row in rows), dtype=np.int64, count=len(rows))
    distinct = np.unique(overlaps)
    if distinct.size == 1 and int(distinct[0]) != rule.min_ratings:
        rule = MajorityRule(min_ratings=int(distinct[0]))
    elif distinct.size > 1:
        rule = CampaignOverlaps(min_ratings=int(distinct.min()), overlaps=overlaps)
    return judge_majority_agreement(judge, hits, ratings, rule)


@dataclass(frozen=True)
class AmbiguityRule:
    """A criterion is ambiguous when experts' pairwise agreement is below `threshold` over at least `min_units`."""

    threshold: float = field(default=0.75, metadata={"help_text": "Pairwise agreement below this is ambiguous…"})
    min_units: int = field(default=5, metadata={"help_text": "…over at least this many responses."})

    def is_ambiguous(self, agreement: Stat) -> bool:
        """True when the agreement is defined, measured on enough units, and below the threshold."""
        return agreement.value is not None and agreement.n >= self.min_units and agreement.value < self.threshold
