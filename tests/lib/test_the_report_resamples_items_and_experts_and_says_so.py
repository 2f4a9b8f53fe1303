"""The report's intervals resample the experts with the items, and every interval says so.

On a HeartBench-sized campaign (118 items × 14 models, three experts a response from a pool of
25) with one lenient and one harsh expert: the headline, every breakdown row, the judge–expert
baseline and the gate's lower bound come from resamples of the items and the experts; the figures
themselves do not move; the Resampling block counts the experts, is stored, and reads back; a
stored report without the count reads as one that resampled items alone.
"""

import copy
from dataclasses import replace

import numpy as np
import pytest

from heartbench_core.lib import agreement_report as report
from tests.lib.synthetic_campaign import synthetic_campaign

RESAMPLES = 300


@pytest.fixture(scope="module")
def campaign():
    data = synthetic_campaign(1, experts=25, seed=3)
    rng = np.random.default_rng(3)
    hit = data.j_hit.copy()
    lenient, harsh = data.j_expert == 0, data.j_expert == 1
    hit[lenient & ~hit & (rng.random(hit.size) < 0.6)] = True
    hit[harsh & hit & (rng.random(hit.size) < 0.6)] = False
    return replace(data, j_hit=hit)


@pytest.fixture(scope="module")
def reports(campaign):
    both = report.compute_report(campaign, resamples=RESAMPLES, seed=2)
    items_only = report.compute_report(campaign, resamples=RESAMPLES, seed=2, resample_experts=False)
    return both, items_only


def width(interval):
    return interval.high - interval.low


def experts_rating(data):
    return int(np.unique(data.j_expert).size)


def test_the_headline_interval_widens_for_the_lenient_and_the_harsh_expert(campaign, reports):
    both, items_only = reports
    assert both.item_agreement.rate == items_only.item_agreement.rate  # the figure does not move
    ci = both.item_agreement.ci95
    assert ci.low < both.item_agreement.rate.value < ci.high
    assert width(ci) > 1.2 * width(items_only.item_agreement.ci95)
    assert ci.resampled == report.Resampling("item", 118, RESAMPLES, 0.95, "percentile", None, experts_rating(campaign))
    assert items_only.resampled.experts is None
    assert both.gate.ci_low == ci.low  # the gate's lower bound is the interval's


def test_every_breakdown_row_and_the_baseline_resample_the_experts(campaign, reports):
    both, items_only = reports
    widths = []
    for name, rows in both.breakdowns:
        for row, plain in zip(rows, getattr(items_only, name)):
            assert row.item_agreement.rate == plain.item_agreement.rate
            if row.item_agreement.ci95.defined:
                assert row.item_agreement.ci95.resampled.experts == experts_rating(campaign), (name, row.key)
                widths.append((width(row.item_agreement.ci95), width(plain.item_agreement.ci95)))
    # A row the two experts hardly touch keeps its width, up to the percentiles' noise; the rows together widen.
    assert all(w >= 0.95 * p for w, p in widths)
    assert sum(w for w, _ in widths) > 1.1 * sum(p for _, p in widths)
    baseline, plain = both.judge_expert_baseline, items_only.judge_expert_baseline
    assert baseline.difference == plain.difference
    assert baseline.difference_ci95.resampled.experts == experts_rating(campaign)
    assert width(baseline.difference_ci95) > width(plain.difference_ci95)
    assert all(r.item_agreement.ci95.resampled.experts is None for r in both.by_criterion)  # no interval per criterion


def test_the_alignment_page_s_figures_resample_the_experts_too(campaign, reports):
    alignment = report.judge_alignment(campaign, resamples=RESAMPLES, seed=2)
    assert alignment.item_agreement.ci95 == reports[0].item_agreement.ci95
    assert [r.item_agreement.ci95 for r in alignment.by_ability] == [r.item_agreement.ci95 for r in reports[0].by_ability]


def test_the_experts_count_is_stored_and_read_back_and_older_reports_read_without_it(reports):
    both, _ = reports
    stored = both.to_dict()
    assert stored["item_agreement"]["ci95"]["resampled"]["experts"] == both.resampled.experts
    assert stored["judge_expert_baseline"]["difference_ci95"]["resampled"]["experts"] == both.resampled.experts
    assert report.ReportResult.from_dict(stored) == both

    def drop_experts(value):
        if isinstance(value, dict):
            value.pop("experts", None) if "resamples" in value else None
            for v in value.values():
                drop_experts(v)
        elif isinstance(value, list):
            for v in value:
                drop_experts(v)

    older = copy.deepcopy(stored)
    drop_experts(older)
    read = report.ReportResult.from_dict(older)
    assert read.resampled.experts is None and read.judge_expert_baseline.difference_ci95.resampled.experts is None
    assert all(r.item_agreement.ci95.resampled.experts is None for _, rows in read.breakdowns for r in rows)
    assert read.to_dict() == older  # read and written back, an older report keeps its form
