"""Every calibrated score that is defined has an interval: power tuning never keeps a λ whose estimated variance is negative.

The plug-in PPI++ variance with the labelled items among the judge's (their covariance estimated apart from the
variances) can come out below 0 where the judge tracks the golden labels closely; a synthetic campaign at 10×
HeartBench had 17 such ability scores, whose intervals were NaN and stopped the report. λ = 0 (the experts alone),
whose variance never is negative, is used there.
"""

import numpy as np

from heartbench_core.lib import calibrated_scores as cs
from heartbench_core.lib.agreement_report import compute_report
from tests.lib.synthetic_campaign import synthetic_campaign
from tests.lib.test_the_report_carries_the_human_calibrated_scores import population


def test_a_report_where_the_tuned_variance_goes_negative_has_every_interval():
    data = synthetic_campaign(10.0)
    block = compute_report(data, resamples=20, population=population(data)).calibrated_scores
    assert block is not None and block.models
    defined = 0
    for m in block.models:
        for s in (m.overall, *m.by_dimension, *m.by_ability):
            if s.corrected.defined:
                defined += 1
                assert s.corrected_ci95.defined and s.corrected_ci95.low <= s.corrected.value <= s.corrected_ci95.high
    assert defined > 100


def test_the_guard_falls_back_to_the_experts_where_the_tuned_variance_is_negative():
    # 8 of 10 items labelled: the judge's linearised values vary little over all items but much on the labelled
    # ones, where the experts follow half of them; λ = 1's plug-in variance is then below 0.
    rng = np.random.default_rng(4)
    f_l = rng.normal(0, 10, 8)
    kwargs = {
        "f_unlabelled": rng.normal(0, 0.1, 10),
        "stratum_unlabelled": np.zeros(10, np.intp),
        "y": 0.5 * f_l,
        "f_labelled": f_l,
        "stratum_labelled": np.zeros(8, np.intp),
        "shared": np.ones(8, bool),
        "weights": np.ones(1),
    }
    with np.errstate(invalid="ignore"):
        unguarded = cs.stratified_ppi(**kwargs, guard=False)
    assert np.isnan(unguarded.se[0]) and unguarded.lam[0] == 1.0  # the case the guard is for
    r = cs.stratified_ppi(**kwargs)
    assert r.lam[0] == 0.0 and np.isfinite(r.se[0]) and r.se[0] == r.experts_se[0] > 0
