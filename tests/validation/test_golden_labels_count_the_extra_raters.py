"""The golden standard of a response given extra raters reads all its blind verdicts, and the report says what they changed."""

import pytest

from annotation.models import Assignment
from heartbench_core.lib.agreement_report import ReportResult, compute_report
from tests.annotation.manage.split_helpers import criteria_of, responses, split_campaign, submit
from validation.models import GoldenLabel
from validation.selectors import load_campaign_arrays
from validation.services.golden import refresh_golden_labels

pytestmark = pytest.mark.django_db


@pytest.fixture
def extended(cast):
    """A campaign where one response split 2–1 (hit) on every criterion and was given two more experts."""
    campaign, experts = split_campaign(cast, budget=2, extra_experts=2)
    cr = responses(campaign)[0]
    n = len(criteria_of(cr))
    for expert, hits in zip(experts[:3], ([True] * n, [True] * n, [False] * n), strict=True):
        submit(expert, cr, hits)
    cr.refresh_from_db()
    assert cr.extra_raters == 2
    return campaign, experts, cr, n


def _labels(cr):
    return dict(GoldenLabel.objects.filter(campaign_response=cr).values_list("criterion_id", "hit"))


def test_the_gold_waits_for_the_extra_raters_then_takes_the_majority_of_all(extended):
    campaign, experts, cr, n = extended
    refresh_golden_labels(campaign=campaign)
    assert _labels(cr) == {}  # three of five: waiting, not the majority of three
    # The first extra rater agrees with the minority on the first criterion only.
    submit(experts[3], cr, [False] + [True] * (n - 1))
    refresh_golden_labels(campaign=campaign)
    assert _labels(cr) == {}  # four of five: still waiting (no tie is ever read off a half-finished extension)
    # The second extra rater agrees with the minority on the first criterion only: 2 hits, 3 misses there.
    submit(experts[4], cr, [False] + [True] * (n - 1))
    refresh_golden_labels(campaign=campaign)
    labels = _labels(cr)
    first = criteria_of(cr)[0].pk
    assert len(labels) == n and labels[first] is False
    assert all(hit for criterion, hit in labels.items() if criterion != first)
    row = GoldenLabel.objects.get(campaign_response=cr, criterion_id=first)
    assert (row.expert_hits, row.expert_ratings) == (2, 5)


def test_the_report_says_how_many_were_extended_and_how_their_gold_changed(extended):
    campaign, experts, cr, n = extended
    data = load_campaign_arrays(campaign)
    block = compute_report(data, resamples=50).split_extension
    assert block is not None
    assert (block.extended_responses, block.completed_responses, block.flipped) == (1, 0, 0)
    for expert in experts[3:5]:
        submit(expert, cr, [False] + [True] * (n - 1))
    report = compute_report(load_campaign_arrays(campaign), resamples=50)
    block = report.split_extension
    assert (block.extended_responses, block.completed_responses, block.criteria, block.flipped, block.responses_changed) == (1, 1, n, 1, 1)
    # Stored and read back, and a stored report without the block still reads (as None).
    stored = report.to_dict()
    assert ReportResult.from_dict(stored).split_extension == block
    del stored["split_extension"]
    assert ReportResult.from_dict(stored).split_extension is None


def test_a_campaign_without_extensions_has_no_block(cast):
    campaign, experts = split_campaign(cast, on=False)
    cr = responses(campaign)[0]
    for expert in experts[:3]:
        submit(expert, cr)
    report = compute_report(load_campaign_arrays(campaign), resamples=50)
    assert report.split_extension is None and "split_extension" not in report.to_dict()
    assert Assignment.objects.filter(campaign_response=cr).count() == 3
