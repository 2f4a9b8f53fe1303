"""Rubric-quality signals as pure functions: hit rate, human agreement, judge–human agreement.

Plain rows in, `Signal`s out; no ORM. An undefined statistic is `None` with the reason, never 0,
and every figure carries the number of units it was computed from.
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

import krippendorff
import numpy as np


@dataclass(frozen=True)
class Signal:
    value: float | None
    n: int  # units compared
    reason: str = ""  # why the value is None
    extra: dict = field(default_factory=dict)

    @property
    def defined(self) -> bool:
        return self.value is not None

    def as_dict(self) -> dict:
        return {"value": self.value, "n": self.n, "reason": self.reason or None, **self.extra}


def hit_rate(rows: Iterable[tuple[Hashable, Hashable, bool]]) -> Signal:
    """Share of responses the judge marked hit; rows are (response, model, hit), one per response.

    `saturated` is True when responses of at least two models were judged and every one was hit:
    the criterion no longer separates models (the benchmark's own filtering drops such criteria).
    """
    rows = list(rows)
    if not rows:
        return Signal(None, 0, "no judge verdicts on this revision yet", {"models": 0, "saturated": False})
    hits = np.fromiter((bool(h) for _, _, h in rows), dtype=bool, count=len(rows))
    models = len({m for _, m, _ in rows})
    saturated = bool(models >= 2 and hits.all())
    return Signal(float(hits.mean()), len(rows), "", {"models": models, "saturated": saturated})


def _units(ratings: Iterable[tuple[Hashable, Hashable, bool]]) -> dict[Hashable, dict[Hashable, bool]]:
    units: dict[Hashable, dict[Hashable, bool]] = defaultdict(dict)
    for unit, rater, hit in ratings:
        units[unit][rater] = bool(hit)
    return units


def pairwise_agreement(ratings: Iterable[tuple[Hashable, Hashable, bool]]) -> Signal:
    """Share of agreeing rater pairs over units rated by two or more raters; rows are (unit, rater, hit)."""
    units = [u for u in _units(ratings).values() if len(u) >= 2]
    if not units:
        return Signal(None, 0, "no response was judged by two or more experts")
    m = np.array([len(u) for u in units], dtype=float)
    k = np.array([sum(u.values()) for u in units], dtype=float)
    agreeing = (k * (k - 1) + (m - k) * (m - k - 1)) / 2
    total = m * (m - 1) / 2
    return Signal(float(agreeing.sum() / total.sum()), len(units), "", {"pairs": int(total.sum())})


def krippendorff_alpha(ratings: Iterable[tuple[Hashable, Hashable, bool]]) -> Signal:
    """Krippendorff's alpha (nominal) over units rated by two or more raters; rows are (unit, rater, hit)."""
    units = {key: u for key, u in _units(ratings).items() if len(u) >= 2}
    if not units:
        return Signal(None, 0, "no response was judged by two or more experts")
    raters = sorted({r for u in units.values() for r in u}, key=str)
    index = {r: i for i, r in enumerate(raters)}
    matrix = np.full((len(raters), len(units)), np.nan)
    for j, u in enumerate(units.values()):
        for rater, hit in u.items():
            matrix[index[rater], j] = 1.0 if hit else 0.0
    values = matrix[~np.isnan(matrix)]
    if np.all(values == values[0]):
        return Signal(None, len(units), "every judgment is the same, so alpha is undefined (no expected disagreement)")
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal", value_domain=[0.0, 1.0])
    return Signal(float(alpha), len(units))


def majority(hits: list[bool]) -> bool | None:
    """The majority label of two or more judgments, None without a strict majority."""
    if len(hits) < 2:
        return None
    yes = sum(hits)
    if yes * 2 > len(hits):
        return True
    if yes * 2 < len(hits):
        return False
    return None


def judge_human_agreement(rows: Iterable[tuple[bool, list[bool]]]) -> Signal:
    """Share of units where the judge's verdict equals the human majority; rows are (judge hit, human hits)."""
    compared = agreed = no_majority = 0
    for judge, humans in rows:
        label = majority(list(humans))
        if label is None:
            no_majority += 1
            continue
        compared += 1
        agreed += int(bool(judge) == label)
    extra = {"without_majority": no_majority}
    if not compared:
        reason = "no response has both a judge verdict and a majority of two or more expert judgments"
        return Signal(None, 0, reason, extra)
    return Signal(agreed / compared, compared, "", extra)


@dataclass(frozen=True)
class AmbiguityRule:
    """A criterion is ambiguous when experts' pairwise agreement is below `threshold` over at least `min_units`."""

    threshold: float = 0.75
    min_units: int = 5

    def is_ambiguous(self, agreement: Signal) -> bool:
        return agreement.defined and agreement.n >= self.min_units and agreement.value < self.threshold
