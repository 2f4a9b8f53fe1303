"""The report's calibrated scores resample the experts with the items, say so, and store it.

How the experts' part is computed is checked by simulation (test_calibrated_intervals_count_the_experts_*)
and against rescoring (test_leaving_a_vote_out_moves_the_golden_norms_*); here, that the report feeds
it the campaign's votes, that every corrected and experts-only interval says how many experts it
resampled, and that with the experts left fixed (as reports did before) nothing else changes.
"""

import numpy as np

from heartbench_core.lib.agreement_report import ReportResult, compute_report
from tests.lib.test_the_report_carries_the_human_calibrated_scores import campaign, population


def _scores(block):
    for m in block.models:
        yield from (m.overall, *m.by_dimension, *m.by_ability)


def test_the_calibrated_intervals_resample_the_experts_and_say_how_many():
    data = campaign()
    pop = population(data)
    both = compute_report(data, resamples=200, population=pop).calibrated_scores
    alone = compute_report(data, resamples=200, population=pop, resample_experts=False).calibrated_scores
    assert both is not None and alone is not None and both.models
    experts = int(np.unique(data.j_expert).size)
    wider = 0
    for s, t in zip(_scores(both), _scores(alone), strict=True):
        assert s.corrected == t.corrected and s.experts == t.experts and s.judge == t.judge
        if s.corrected_ci95.defined:
            assert s.corrected_ci95.resampled.experts == experts and s.experts_ci95.resampled.experts == experts
            assert t.corrected_ci95.resampled.experts is None
            assert s.corrected_ci95.low <= t.corrected_ci95.low and s.corrected_ci95.high >= t.corrected_ci95.high
            wider += s.corrected_ci95.high - s.corrected_ci95.low > t.corrected_ci95.high - t.corrected_ci95.low + 1e-9
    assert wider > 0
    assert both.differences and all(d.ci95.resampled.experts == experts for d in both.differences)
    assert all(d.ci95.resampled.experts is None for d in alone.differences)


def test_the_experts_resampled_are_stored_and_read_back():
    data = campaign()
    report = compute_report(data, resamples=50, population=population(data))
    back = ReportResult.from_dict(report.to_dict())
    assert back.calibrated_scores == report.calibrated_scores
    assert back.calibrated_scores.models[0].overall.corrected_ci95.resampled.experts
