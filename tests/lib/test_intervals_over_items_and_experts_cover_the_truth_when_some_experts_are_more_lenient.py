"""With lenient and harsh experts who each rate many items, the interval over items and experts keeps its level.

`tests/lib/crossed_design.py` simulates the HeartBench design: 118 sampled items (40% of 296)
answered by 14 models, three experts per response from a pool of 25 who each rate about 200
responses across nearly every item, and persistent expert biases (leniency on the logit scale
drawn from N(0, 1) for each pool). Each simulated blind test gets the report's interval of the
judge–gold agreement over items and experts (`crossed.with_experts` on
`agreement.clustered_mean_ci`), and the truth is the judge's agreement with the golden label as
the whole expert population would give it. Resampling items alone treats the 25 experts as the
only ones there are, and falls short; so does the pigeonhole bootstrap applied directly to the
votes, whose resampled majorities lose votes and sit below the estimate.
"""

import numpy as np

from tests.lib import crossed_design as design

BIAS_SD = 1.0
RESAMPLES = 400  # the report draws 1,000; 400 keep each tail's 2.5% to 10 resamples
DATASETS = 500


def test_the_interval_over_items_and_experts_covers_the_truth_where_items_alone_fall_short():
    # 0.943–0.953 for three seeds of 400 blind tests (items alone 0.695–0.728): 500 put the
    # estimate within ±0.02 of the true coverage.
    truth = design.truth(BIAS_SD)
    rng = np.random.default_rng(31)
    items_only = crossed = 0
    for d in range(DATASETS):
        (il, ih), (cl, ch) = design.intervals(design.blind_test(rng, BIAS_SD), RESAMPLES, d)
        items_only += il <= truth <= ih
        crossed += cl <= truth <= ch
    assert crossed / DATASETS >= 0.93, f"coverage {crossed / DATASETS:.3f} over items and experts, {DATASETS} simulated blind tests"
    assert items_only / DATASETS < 0.85, f"resampling items alone was expected to fall short: {items_only / DATASETS:.3f}"


def test_recounting_each_majority_from_drawn_votes_would_miss_the_truth():
    truth = design.truth(BIAS_SD)
    rng = np.random.default_rng(32)
    datasets, covered = 25, 0
    for d in range(datasets):
        low, high = design.pigeonhole_interval(design.blind_test(rng, BIAS_SD), 150, d)
        covered += low <= truth <= high
    assert covered / datasets < 0.5, f"the direct pigeonhole bootstrap was expected to miss: {covered / datasets:.3f}"


def test_the_simulated_design_is_the_heartbench_shape():
    b = design.blind_test(np.random.default_rng(0), BIAS_SD)
    assert np.unique(b.item).size == design.ITEMS == 118
    per_expert = np.bincount(b.j_expert, minlength=design.POOL)
    assert per_expert.size == 25 and per_expert.min() > 1000  # every expert rates many units
    items_per_expert = [np.unique(b.item[b.j_unit[b.j_expert == e]]).size for e in range(design.POOL)]
    assert min(items_per_expert) > 60  # … spread over many items
    assert np.all(np.bincount(b.j_unit) == 3)
    assert 0.7 < b.agree.mean() < 0.8
