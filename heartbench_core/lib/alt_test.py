"""Can the judge replace an expert? The alternative annotator test, from a campaign's arrays: pure, no Django.

The test is that of Calderon, Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge"
(ACL 2025, arXiv 2501.10970), on this platform's data:

- **Instance**: a campaign response. Its criteria are rated together, in one assignment, so they
  are one annotation of the response rather than independent instances.
- **Leave one expert out**: for expert e and each response i that e rated, take every unit
  (response i, criterion c) that e rated and the judge gave a verdict on, and every *other* expert r
  who rated the same unit. e's score on i is the share of these (unit, r) pairs where e agrees with
  r; the judge's score is the share of the same pairs where the judge agrees with r.
- **Who wins a response**: the judge wins it (W_judge = 1) when its score is at least e's; e wins
  it (W_expert = 1) when e's score is at least the judge's; a tie is a win for both.
- **Per expert**: a one-sided one-sample t-test of d = W_expert − W_judge over e's responses,
  H0: mean(d) ≥ ε against H1: mean(d) < ε. ε is the cost–benefit margin of the dataset's release
  policy: how much worse than an expert the judge may be and still be preferred, for being cheap.
  Experts with fewer than `min_responses` such responses are left out (and counted).
- **Over the experts**: the Benjamini–Yekutieli procedure at level q over the tested experts' p
  values; the judge *beats* an expert whose hypothesis is rejected. The **winning rate** ω is the
  share of tested experts the judge beats; the judge can replace an expert when ω ≥ 0.5. The
  **advantage probability** ρ is the mean over tested experts of the share of their responses
  the judge wins.

Per ability and per dimension, the same test on that group's criteria only. A figure is
undefined (None, with its reason, never 0) when no expert has enough responses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heartbench_core.lib import agreement as st
from heartbench_core.lib.lazy_scipy import stats
from heartbench_core.lib.reasons import Reason

DEFAULT_EPSILON = 0.2  # the paper's rule of thumb when the annotators are experts
DEFAULT_Q = 0.05
MIN_RESPONSES = 30  # responses an expert must share with the judge and another expert to be tested
PASSING_WINNING_RATE = 0.5

NO_JUDGE = Reason("no_judge_verdict")
NO_OVERLAP = Reason("no_overlap")


def too_few_responses(min_responses: int) -> str:
    """Why the test is undefined when every expert has fewer than `min_responses` responses."""
    return Reason("too_few_responses", n=min_responses)


@dataclass(frozen=True, slots=True)
class ExpertTest:
    """One left-out expert: their responses, how often the judge and they win one, the test and its verdict."""

    expert: int  # index into the report's experts
    responses: int
    judge_wins: float  # share of the responses where the judge did at least as well as the expert
    expert_wins: float  # share of the responses where the expert did at least as well as the judge
    p: float  # one-sided t-test of mean(W_expert − W_judge) < ε
    p_adjusted: float  # Benjamini–Yekutieli
    judge_beats: bool  # the hypothesis that the expert is better by ε or more was rejected at q


@dataclass(frozen=True, slots=True)
class AltTestResult:
    """The alternative annotator test over a campaign's (or a group's) experts, with its counts and settings."""

    winning_rate: float | None  # share of tested experts the judge beats; None when no expert was tested
    advantage_probability: float | None  # mean over tested experts of the share of responses the judge wins
    reason: str | None  # why the figures are undefined
    epsilon: float
    q: float
    min_responses: int
    experts_tested: int
    experts_left_out: int  # experts who share some response with the judge and another expert, but too few
    responses: int  # responses on which some expert was compared with the judge
    experts: tuple[ExpertTest, ...]  # the tested experts, in the order of the report's experts

    @property
    def passed(self) -> bool | None:
        """The judge can replace an expert (winning rate ≥ 0.5); None when undefined."""
        return None if self.winning_rate is None else self.winning_rate >= PASSING_WINNING_RATE


def benjamini_yekutieli(p: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(adjusted p values, rejected at level q) of the Benjamini–Yekutieli procedure, which holds under any dependence."""
    p = np.asarray(p, np.float64)
    if not p.size:
        return p.copy(), np.zeros(0, bool)
    adjusted = stats.false_discovery_control(p, method="by")
    return adjusted, adjusted <= q


def alt_tests(
    *,
    j_unit: np.ndarray,
    j_expert: np.ndarray,
    j_hit: np.ndarray,
    u_judge: np.ndarray,
    u_cr: np.ndarray,
    n_experts: int,
    u_group: np.ndarray | None = None,
    n_groups: int = 1,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_responses: int = MIN_RESPONSES,
) -> tuple[AltTestResult, ...]:
    """The test per group of units (`u_group`: its group per unit, −1 in none; None: one group of every unit).

    `j_*` are the experts' judgments (one per expert and unit, in any order), `u_judge` the judge's verdict per unit
    (−1 none, 0 miss, 1 hit), `u_cr` each unit's response.
    """
    (results,) = alt_tests_by(
        j_unit=j_unit,
        j_expert=j_expert,
        j_hit=j_hit,
        u_judge=u_judge,
        u_cr=u_cr,
        n_experts=n_experts,
        groupings=[(u_group, n_groups)],
        epsilon=epsilon,
        q=q,
        min_responses=min_responses,
    )
    return results


def alt_tests_by(
    *,
    j_unit: np.ndarray,
    j_expert: np.ndarray,
    j_hit: np.ndarray,
    u_judge: np.ndarray,
    u_cr: np.ndarray,
    n_experts: int,
    groupings: Sequence[tuple[np.ndarray | None, int]],
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_responses: int = MIN_RESPONSES,
) -> tuple[tuple[AltTestResult, ...], ...]:
    """`alt_tests` under several groupings of the units at once (each `(u_group, n_groups)`), sharing the per-judgment work."""
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be at least 0 and below 1, got {epsilon!r}")
    if min_responses < 2:
        raise ValueError(f"min_responses must be at least 2 (a t-test needs two responses), got {min_responses!r}")
    j_unit = np.asarray(j_unit, np.intp)
    j_expert = np.asarray(j_expert, np.intp)
    j_hit = np.asarray(j_hit).astype(bool)
    u_judge = np.asarray(u_judge)
    u_cr = np.asarray(u_cr, np.intp)
    # Only judgments on units the judge gave a verdict on take part.
    on = u_judge[j_unit] >= 0 if j_unit.size else np.zeros(0, bool)
    unit, expert, hit = (j_unit, j_expert, j_hit) if on.all() else (j_unit[on], j_expert[on], j_hit[on])
    # Each judgment meets every other expert's rating of its unit (an expert rates a unit once: one
    # assignment per response). Of those, the judge agrees with some and the expert with some: the
    # instances compare their sums, so each judgment carries the difference (judge's − expert's).
    # It depends on the unit and on whether the judgment is a hit, nothing else: per unit, column 0
    # holds it for a miss and column 1 for a hit, and each judgment reads its own.
    ratings = np.bincount(unit, minlength=u_cr.size)
    hits = np.bincount(unit, weights=hit, minlength=u_cr.size).astype(np.int64)
    others = ratings - 1
    judge_hit = u_judge == 1
    # A miss agrees with the others' misses (others − h), a hit with the others' hits (h − 1); the
    # judge agrees with the others' hits (h less the judgment's) on a hit verdict, their misses otherwise.
    difference = np.empty((u_cr.size, 2), np.int64)
    difference[:, 0] = np.where(judge_hit, hits - (others - hits), 0)
    difference[:, 1] = np.where(judge_hit, 0, (others - (hits - 1)) - (hits - 1))
    met = (others > 0)[unit]
    del ratings, hits, others
    if not met.all():
        unit, expert, hit = unit[met], expert[met], hit[met]
    at = 2 * unit
    at += hit
    judge_less_expert = difference.ravel()[at]
    del at, difference
    # Each judgment's (response, expert) pair, numbered once for every grouping: the keys run in
    # response order but for short runs within a response (judgments come in unit order).
    pair_key = u_cr[unit].astype(np.int64)
    pair_key *= n_experts
    pair_key += expert
    del expert
    pairs, pair = st.sorted_unique_inverse(pair_key)
    del pair_key
    judged_any = bool((u_judge >= 0).any())
    out = []
    for u_group, n_groups in groupings:
        keep: slice | np.ndarray
        if u_group is None:
            group, keep = np.zeros(pair.size, np.int64), slice(None)
        else:
            group = np.asarray(u_group, np.int64)[unit]
            in_group = group >= 0
            keep = slice(None) if in_group.all() else np.flatnonzero(in_group)  # every judgment in a group: no copies
            group = group[keep]
        out.append(
            _grouped(
                pair[keep],
                pairs,
                group,
                judge_less_expert[keep],
                n_experts=n_experts,
                n_groups=n_groups,
                judged_any=judged_any,
                epsilon=epsilon,
                q=q,
                min_responses=min_responses,
            )
        )
    return tuple(out)


def _grouped(
    pair: np.ndarray,
    pairs: np.ndarray,
    group: np.ndarray,
    judge_less_expert: np.ndarray,
    *,
    n_experts: int,
    n_groups: int,
    judged_any: bool,
    epsilon: float,
    q: float,
    min_responses: int,
) -> tuple[AltTestResult, ...]:
    """The tests of one grouping, from each judgment's (response, expert) pair, group, and the judge's agreements less the expert's.

    pair: per judgment, its index among `pairs`, the sorted keys response × n_experts + expert.
    """
    # One instance per (response, left-out expert, group): sums over its (unit, other expert) pairs.
    # Its key numbers the pairs in order, so a cell per key is an array as long as pairs × groups
    # and the sums (of whole numbers, exact) are counted in one pass, without sorting the judgments.
    key = np.multiply(pair, n_groups, dtype=np.int64)
    key += group
    span = pairs.size * n_groups
    if span <= 4 * key.size + 1_000_000:
        instance = np.flatnonzero(np.bincount(key, minlength=span))
        score = np.bincount(key, weights=judge_less_expert, minlength=span)[instance]
    else:
        instance, at = st.sorted_unique_inverse(key)
        score = np.bincount(at, weights=judge_less_expert, minlength=instance.size)
    del key
    instance_group = instance % n_groups
    instance_pair = pairs[instance // n_groups]
    instance_response = instance_pair // n_experts
    # Both scores share their denominator (the pairs of the instance): compare the counts, exactly
    # (their difference summed: whole numbers, exact in floating point).
    judge_wins = score >= 0
    expert_wins = score <= 0

    # Per (group, expert), a small table: number of responses, sums for the t-test and the win shares.
    cells = n_groups * n_experts
    cell_of_instance = instance_group * n_experts + instance_pair % n_experts
    n = np.bincount(cell_of_instance, minlength=cells)
    wins_j = np.bincount(cell_of_instance, weights=judge_wins, minlength=cells)
    wins_e = np.bincount(cell_of_instance, weights=expert_wins, minlength=cells)
    # d = W_expert − W_judge is 1, 0 (a tie: both win) or −1, and every instance has a winner, so
    # Σd = wins_e − wins_j and Σd² = instances without a tie = 2n − wins_e − wins_j (whole numbers, exact).
    s1 = wins_e - wins_j
    s2 = 2 * n - wins_e - wins_j
    p = _t_test_less(n, s1, s2, epsilon)
    cell_group = np.arange(cells) // n_experts
    cell_expert = np.arange(cells) % n_experts
    # Responses compared per group: the distinct (response, group) pairs of the instances.
    response_group = st.sorted_unique(instance_response * n_groups + instance_group)
    responses_per_group = np.bincount(response_group % n_groups, minlength=n_groups)

    results = []
    for g in range(n_groups):
        mine = np.flatnonzero((cell_group == g) & (n > 0))
        tested = mine[n[mine] >= min_responses]
        adjusted, rejected = benjamini_yekutieli(p[tested], q)
        experts = tuple(
            ExpertTest(
                expert=int(cell_expert[c]),
                responses=int(n[c]),
                judge_wins=float(wins_j[c] / n[c]),
                expert_wins=float(wins_e[c] / n[c]),
                p=float(p[c]),
                p_adjusted=float(adjusted[i]),
                judge_beats=bool(rejected[i]),
            )
            for i, c in enumerate(tested.tolist())
        )
        winning: float | None = None
        advantage: float | None = None
        reason: str | None = None
        if experts:
            winning, advantage = float(rejected.mean()), float(np.mean(wins_j[tested] / n[tested]))
        else:
            reason = NO_JUDGE if not judged_any else NO_OVERLAP if not mine.size else too_few_responses(min_responses)
        results.append(
            AltTestResult(
                winning_rate=winning,
                advantage_probability=advantage,
                reason=reason,
                epsilon=float(epsilon),
                q=float(q),
                min_responses=int(min_responses),
                experts_tested=len(experts),
                experts_left_out=int(mine.size - tested.size),
                responses=int(responses_per_group[g]),
                experts=experts,
            )
        )
    return tuple(results)


def alt_test(
    *,
    j_unit: np.ndarray,
    j_expert: np.ndarray,
    j_hit: np.ndarray,
    u_judge: np.ndarray,
    u_cr: np.ndarray,
    n_experts: int,
    epsilon: float = DEFAULT_EPSILON,
    q: float = DEFAULT_Q,
    min_responses: int = MIN_RESPONSES,
) -> AltTestResult:
    """The test over every unit of a campaign."""
    return alt_tests(
        j_unit=j_unit,
        j_expert=j_expert,
        j_hit=j_hit,
        u_judge=u_judge,
        u_cr=u_cr,
        n_experts=n_experts,
        epsilon=epsilon,
        q=q,
        min_responses=min_responses,
    )[0]


def _t_test_less(n: np.ndarray, s1: np.ndarray, s2: np.ndarray, epsilon: float) -> np.ndarray:
    """One-sided one-sample t-test p values, H1: mean < ε, from counts, sums and sums of squares (integers).

    With no spread the mean is known exactly: p is 0 below ε and 1 at or above it (SciPy gives NaN
    for a mean exactly at ε, which no procedure can reject either).
    """
    n = n.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
        # The sums are integers, so n·s2 − s1² is exact: no spread is exactly 0.
        variance = (n * s2 - s1 * s1) / (n * (n - 1))
        t = (mean - epsilon) / np.sqrt(variance / n)
        p = stats.t.cdf(t, n - 1)
    # n < 2 (never tested: `min_responses` is at least 2) is read as no spread.
    flat = (n < 2) | (variance <= 0)
    return np.where(flat, np.where(mean < epsilon, 0.0, 1.0), p)
