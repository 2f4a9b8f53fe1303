"""A judge lenient on one ability and rewarding length: the corrected interval covers the experts' score, the judge's does not.

Seeded simulation of the HeartBench design: items in four difficulty × scene strata of unequal
size, 40% of each sampled for the experts, three abilities present on a fixed rubric. The experts'
per-(question, ability) score is the truth; the judge adds 12 points on the first ability and
0.8 points per unit of a response's length, plus noise. Each replicate draws new items.
"""

import numpy as np

from heartbench_core.lib import calibrated_scores as cs

REPLICATES = 600
MODELS = 2
item_stratum = np.repeat(np.arange(4), [40, 90, 150, 120])  # 400 items
STRATUM_EFFECT = np.array([-8.0, -2.0, 3.0, 6.0])
ABILITY_MEAN = np.array([55.0, 65.0, 70.0])
LENIENCY = np.array([12.0, 0.0, 0.0])
LENGTH_REWARD = 0.8
MEAN_LENGTH = np.array([10.0, 4.0])  # the first model writes long answers


def _design(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    q = item_stratum.size
    present = rng.random((q, ABILITY_MEAN.size)) < 0.7
    present[~present.any(axis=1), 0] = True
    sampled = np.zeros(q, bool)
    for h in np.unique(item_stratum):
        members = np.flatnonzero(item_stratum == h)
        sampled[rng.choice(members, size=round(0.4 * members.size), replace=False)] = True
    return present, sampled


def _truth(present: np.ndarray) -> np.ndarray:
    """The experts' expected overall and ability scores on this rubric (items' own effects average out)."""
    expected = ABILITY_MEAN[None, :] + STRATUM_EFFECT[item_stratum][:, None]
    ability = np.array([expected[present[:, a], a].mean() for a in range(ABILITY_MEAN.size)])
    return np.concatenate([[ability.mean()], [ability.mean()], ability])


def _replicate(rng: np.random.Generator, present: np.ndarray, sampled: np.ndarray) -> cs.Calibration:
    q, a = present.shape
    item = rng.normal(0, 10, (MODELS, q, 1))
    experts = ABILITY_MEAN + STRATUM_EFFECT[item_stratum][None, :, None] + item + rng.normal(0, 8, (MODELS, q, a))
    length = rng.gamma(2.0, MEAN_LENGTH[:, None] / 2.0, (MODELS, q))
    judge = experts + LENIENCY + LENGTH_REWARD * length[:, :, None] + rng.normal(0, 6, (MODELS, q, a))
    nan = np.where(present, 0.0, np.nan)
    return cs.calibrate(
        judge_norm=judge + nan,
        gold_norm=np.where(sampled[None, :, None], experts, np.nan) + nan,
        scored=np.ones((MODELS, q), bool),
        labelled=np.repeat(sampled[None, :], MODELS, axis=0),
        present=present,
        stratum=item_stratum,
        sampled=sampled,
        ability_dimension=np.zeros(a, np.intp),
        n_dimensions=1,
        resamples=0,
    )


def _run() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20240531)
    present, sampled = _design(rng)
    truth = _truth(present)
    out: dict[str, list[np.ndarray]] = {k: [] for k in ("corrected", "judge", "width", "experts_width", "judge_hit")}
    for _ in range(REPLICATES):
        r = _replicate(rng, present, sampled)
        out["corrected"].append((r.low <= truth) & (truth <= r.high))
        # The naive interval: the judge's verdicts on every item taken for the experts', the same stratified CLT interval.
        out["judge"].append((r.judge_low <= truth) & (truth <= r.judge_high))
        out["judge_hit"].append(np.abs(r.judge - truth) < 1.0)
        out["width"].append(r.high - r.low)
        out["experts_width"].append(r.experts_high - r.experts_low)
    return {k: np.array(v) for k, v in out.items()}


RESULT = _run()


def test_the_corrected_interval_covers_the_experts_score_at_least_93_percent_of_the_time() -> None:
    coverage = RESULT["corrected"].mean(axis=0)  # (models, estimands)
    assert coverage.min() >= 0.93, coverage


def test_the_judge_only_score_misses_the_experts_score() -> None:
    coverage = RESULT["judge"].mean(axis=0)
    assert coverage[:, 0].max() < 0.93, coverage  # overall
    assert coverage[:, 2].max() < 0.93, coverage  # the ability the judge is lenient on
    assert RESULT["judge_hit"][:, :, 0].mean() < 0.05


def test_the_corrected_interval_is_never_wider_than_the_experts_only_one() -> None:
    assert (RESULT["width"] <= RESULT["experts_width"] + 1e-9).all()
    assert RESULT["width"].mean() < 0.9 * RESULT["experts_width"].mean()
