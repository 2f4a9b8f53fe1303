"""The agreement report, rewritten to stay fast at 100× HeartBench, gives every figure it gave before, bit for bit.

`tests/lib/report_oracle` keeps the computation as it was; both are run on the same generated
campaigns (clean and messy: incomplete units, ties, missing verdicts, adjudications, an
expert with a handful of judgments, more days than the over-time chart shows) and their stored
JSON must be equal, not merely close.
"""

from dataclasses import asdict, replace

import numpy as np
import pytest

from heartbench_core.lib import agreement_report as report
from tests.lib.report_oracle import report as oracle
from tests.lib.synthetic_campaign import synthetic_campaign


def both(data, **kwargs):
    # The oracle resampled items alone; the experts resampled with them are checked by
    # test_intervals_widen_for_the_experts_who_rated_many_items.
    new = report.compute_report(data, resample_experts=False, **kwargs).to_dict()
    # The alternative annotator test came after the oracle; test_alt_test_matches_a_plain_implementation checks it.
    assert new.pop("alt_test")["overall"]["epsilon"] == 0.2
    return new, oracle.compute_report(data, **kwargs).to_dict()


@pytest.mark.parametrize("messy", [False, True], ids=["clean", "messy"])
def test_a_heartbench_sized_campaign_gives_the_same_report(messy):
    new, old = both(synthetic_campaign(1, messy=messy))
    assert new == old


@pytest.mark.parametrize("seed", [1, 2])
def test_other_campaigns_and_seeds_give_the_same_report(seed):
    data = synthetic_campaign(0.5, seed=seed, items=40, messy=True)
    new, old = both(data, resamples=300, seed=seed + 10)
    assert new == old


def test_a_report_without_resamples_is_the_same():
    new, old = both(synthetic_campaign(0.3, items=20, messy=True), resamples=0)
    assert new == old


def test_a_campaign_of_one_item_is_the_same():
    new, old = both(synthetic_campaign(1, items=1, messy=True), resamples=200)
    assert new == old


def test_a_campaign_without_judge_verdicts_or_judgments_is_the_same():
    data = synthetic_campaign(0.3, items=10, messy=True)
    no_judge = replace(data, u_judge=np.full(data.n_units, -1, np.int8))
    assert both(no_judge, resamples=100)[0] == both(no_judge, resamples=100)[1]
    empty = np.zeros(0, np.int64)
    no_judgments = replace(data, j_unit=empty, j_expert=empty, j_hit=np.zeros(0, bool), j_time=np.zeros(0), expert_ids=[], expert_names=[])
    new, old = both(no_judgments, resamples=100)
    assert new == old


def test_the_alignment_and_change_between_judges_are_the_same():
    data = synthetic_campaign(0.5, items=30, messy=True)
    rng = np.random.default_rng(5)
    other = replace(data, u_judge=np.where(rng.random(data.n_units) < 0.1, 1 - np.maximum(data.u_judge, 0), data.u_judge).astype(np.int8))
    new_alignment = asdict(report.judge_alignment(data, resamples=200, resample_experts=False))
    assert new_alignment.pop("alt_test") is not None  # came after the oracle
    assert new_alignment.pop("calibrated_scores") is None  # came after the oracle; needs the judge's scores on every item
    assert new_alignment == asdict(oracle.judge_alignment(data, resamples=200))
    assert asdict(report.agreement_change(data, other, resamples=200)) == asdict(oracle.agreement_change(data, other, resamples=200))
