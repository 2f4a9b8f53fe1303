"""The agreement report and the judge alignment carry the alternative annotator test: overall, per dimension and per ability, with the policy's ε.

The figures themselves are checked against a plain implementation in test_alt_test_matches_a_plain_implementation;
here, that the report computes them on its own arrays and groups, names the experts, stores them and reads them back,
and that a report stored before the test loads without it.
"""

import json
from pathlib import Path

import numpy as np

from heartbench_core.lib import alt_test as alt
from heartbench_core.lib.agreement_report import GatePolicy, ReportResult, compute_report, judge_alignment
from tests.lib.synthetic_campaign import synthetic_campaign

STORED = Path(__file__).parent / "stored_reports"


def campaign():
    return synthetic_campaign(0.3, items=40, messy=True)


def test_the_overall_test_is_that_of_the_campaign_s_arrays_with_the_policy_s_margin():
    data = campaign()
    report = compute_report(data, resamples=0, gate_policy=GatePolicy(alt_test_epsilon=0.3))
    expected = alt.alt_test(
        j_unit=data.j_unit,
        j_expert=data.j_expert,
        j_hit=data.j_hit,
        u_judge=data.u_judge,
        u_cr=data.u_cr,
        n_experts=len(data.expert_names),
        epsilon=0.3,
    )
    got = report.alt_test.overall
    assert got.epsilon == 0.3 and report.parameters.alt_test_epsilon == 0.3 and report.gate.policy.alt_test_epsilon == 0.3
    assert got.winning_rate.value == expected.winning_rate and got.winning_rate.n == expected.experts_tested > 0
    assert got.advantage_probability.value == round(expected.advantage_probability, 12)
    assert [e.expert for e in got.experts] == [data.expert_names[e.expert] for e in expected.experts]
    assert (got.experts_tested, got.experts_left_out, got.responses) == (
        expected.experts_tested,
        expected.experts_left_out,
        expected.responses,
    )


def test_each_dimension_and_ability_is_tested_on_its_own_criteria():
    data = campaign()
    report = compute_report(data, resamples=0)
    assert [r.key for r in report.alt_test.by_dimension] == [r.key for r in report.by_dimension]
    assert [r.key for r in report.alt_test.by_ability] == [r.key for r in report.by_ability]
    row = report.alt_test.by_ability[0]
    mine = np.array([data.crit_ability[c] == row.key for c in data.u_crit])
    alone = alt.alt_test(
        j_unit=data.j_unit,
        j_expert=data.j_expert,
        j_hit=data.j_hit,
        u_judge=np.where(mine, data.u_judge, -1),
        u_cr=data.u_cr,
        n_experts=len(data.expert_names),
    )
    assert row.test.winning_rate.value == alone.winning_rate and row.test.responses == alone.responses


def test_it_is_stored_and_read_back_unchanged():
    report = compute_report(campaign(), resamples=0)
    stored = json.loads(json.dumps(report.to_dict()))
    assert ReportResult.from_dict(stored) == report
    assert stored["alt_test"]["overall"]["passed"] == report.alt_test.overall.passed


def test_without_judge_verdicts_it_is_undefined_with_the_reason_never_zero():
    data = campaign()
    data.u_judge[:] = -1
    t = compute_report(data, resamples=0).alt_test.overall
    assert t.winning_rate.value is None and t.winning_rate.reason == alt.NO_JUDGE and t.passed is None
    assert t.advantage_probability.value is None and t.advantage_probability.reason == alt.NO_JUDGE


def test_a_report_stored_before_the_test_loads_without_it():
    for name in ("v1_first_reports", "v1_items_resampled", "v1_release_policy_before_items"):
        report = ReportResult.from_dict(json.loads((STORED / f"{name}.json").read_text()))
        assert report.alt_test is None and "alt_test" not in report.to_dict()
        assert report.parameters.alt_test_epsilon == alt.DEFAULT_EPSILON


def test_the_judge_alignment_carries_the_same_test():
    data = campaign()
    assert (
        judge_alignment(data, resamples=0, alt_test_epsilon=0.1).alt_test
        == compute_report(data, resamples=0, gate_policy=GatePolicy(alt_test_epsilon=0.1)).alt_test
    )
