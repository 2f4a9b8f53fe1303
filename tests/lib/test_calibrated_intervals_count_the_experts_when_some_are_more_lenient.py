"""With lenient and harsh experts who each rate many items, the calibrated scores' intervals count the experts and keep their level.

`tests/lib/calibrated_design.py` simulates golden labels from expert votes: three experts of a
pool of 25 per sampled response, each expert's leniency persistent across the items they rate.
The corrected (PPI++) interval that adds the experts' part (`calibrate(votes=...)`) covers the
true score — what the whole expert population would give — at its level; the same interval over
the items alone treats the 25 experts as the only ones there are and falls short. Where the
experts do not differ, counting them costs little width.
"""

import numpy as np

from tests.lib import calibrated_design as design

BIAS_SD = 1.0
REPLICATES = 400


def _coverage(bias_sd: float, seed: int) -> tuple[float, float, float]:
    """(coverage over items and experts, over items alone, mean width ratio) of every model's corrected overall."""
    truth = design.truth(bias_sd)
    rng = np.random.default_rng(seed)
    crossed, items_only, widths = [], [], []
    for _ in range(REPLICATES):
        r = design.replicate(rng, bias_sd)
        both, alone = design.calibrate(r, experts=True), design.calibrate(r, experts=False)
        crossed.append((both.low[:, 0] <= truth) & (truth <= both.high[:, 0]))
        items_only.append((alone.low[:, 0] <= truth) & (truth <= alone.high[:, 0]))
        widths.append((both.high[:, 0] - both.low[:, 0]) / (alone.high[:, 0] - alone.low[:, 0]))
    return float(np.mean(crossed)), float(np.mean(items_only)), float(np.mean(widths))


def test_the_corrected_interval_over_items_and_experts_covers_the_truth_where_items_alone_fall_short():
    # 0.941–0.953 over three seeds of 200–400 replicates × 4 models (items alone 0.67–0.68).
    crossed, items_only, _ = _coverage(BIAS_SD, 31)
    assert crossed >= 0.93, f"coverage {crossed:.3f} over items and experts"
    assert items_only < 0.93, f"resampling items alone was expected to fall short: {items_only:.3f}"
    assert items_only < 0.8


def test_without_a_rater_effect_the_interval_is_hardly_wider_and_keeps_its_level():
    # 1.04–1.05 times as wide, coverage 0.945–0.956, over three seeds.
    crossed, items_only, ratio = _coverage(0.0, 32)
    assert ratio <= 1.15, f"{ratio:.3f} times as wide as the interval over items alone"
    assert crossed >= 0.93 and items_only >= 0.92


def test_the_experts_part_is_said_and_reaches_the_differences():
    r = design.replicate(np.random.default_rng(5), BIAS_SD)
    both = design.calibrate(r, experts=True, resamples=300, seed=3)
    alone = design.calibrate(r, experts=False, resamples=300, seed=3)
    assert set(both.rater_experts.tolist()) == {design.POOL} and both.difference_experts == design.POOL
    assert not alone.rater_experts.any() and alone.difference_experts == 0
    # The same estimates; the intervals of the corrected and experts-only scores widen, the judge's does not.
    np.testing.assert_allclose(both.corrected, alone.corrected)
    assert np.all(both.high - both.low > alone.high - alone.low)
    assert np.all(both.experts_high - both.experts_low > alone.experts_high - alone.experts_low)
    np.testing.assert_allclose(both.judge_high - both.judge_low, alone.judge_high - alone.judge_low)
    # A difference moves with the experts where their influence on the two models differs (0 where it does not repeat).
    assert not np.allclose(both.difference_high - both.difference_low, alone.difference_high - alone.difference_low)
