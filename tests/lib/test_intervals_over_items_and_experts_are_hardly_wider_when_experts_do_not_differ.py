"""When the experts do not differ (no lenient or harsh one), resampling them costs almost nothing.

The same simulated HeartBench design as the coverage test (`tests/lib/crossed_design.py`), with
every expert's leniency 0: the votes still have their noise, which the item bootstrap already
sees. The interval over items and experts must then be no more than 15% wider than the one over
items alone. Adding the textbook delete-one-expert jackknife to the item bootstrap instead counts
the noise of single votes twice and is wider than that.
"""

import numpy as np

from tests.lib import crossed_design as design

RESAMPLES = 400


def test_the_interval_over_items_and_experts_is_no_more_than_15_percent_wider():
    # 1.014–1.020 in three seeds of 400 blind tests, covering 0.940–0.958 of the time.
    rng = np.random.default_rng(41)
    items_only, crossed = [], []
    for d in range(200):
        (il, ih), (cl, ch) = design.intervals(design.blind_test(rng, 0.0), RESAMPLES, d)
        items_only.append(ih - il)
        crossed.append(ch - cl)
    ratio = float(np.mean(crossed) / np.mean(items_only))
    assert ratio <= 1.15, f"over items and experts {ratio:.3f} × as wide as over items alone"
    assert ratio >= 0.99  # resampling the experts as well never narrows it


def test_the_textbook_jackknife_over_experts_would_count_the_votes_noise_twice():
    rng = np.random.default_rng(42)
    items_only, jackknife = [], []
    for d in range(100):
        b = design.blind_test(rng, 0.0)
        (il, ih), _ = design.intervals(b, RESAMPLES, d)
        low, high = design.jackknife_interval(b, RESAMPLES, d)
        items_only.append(ih - il)
        jackknife.append(high - low)
    ratio = float(np.mean(jackknife) / np.mean(items_only))
    assert ratio > 1.15, f"the item bootstrap plus the plain jackknife over experts was expected to be wider: {ratio:.3f}"
