"""The agreement report assembled from plain arrays: the golden standard, the headline, the gate and the alerts."""

from dataclasses import dataclass, field

import numpy as np
import pytest

from heartbench_core.lib.agreement_report import (
    PROVENANCE_ADJUDICATED,
    PROVENANCE_MAJORITY,
    PROVENANCE_NONE,
    PROVENANCE_UNANIMOUS,
    Figure,
    GatePolicy,
    GroupRow,
    Interval,
    ItemAgreement,
    Resampling,
    _alerts,
    _gate,
    compute_report,
    golden_standard,
)


@dataclass
class Arrays:
    """Two items of one model: item q1 with two criteria, q2 with one; three experts per unit (k = 3)."""

    k: int = 3
    cr_id: np.ndarray = field(default_factory=lambda: np.array([10, 11]))
    cr_model: np.ndarray = field(default_factory=lambda: np.array([0, 0]))
    cr_item: np.ndarray = field(default_factory=lambda: np.array([0, 1]))
    model_names: list = field(default_factory=lambda: ["m"])
    item_question: list = field(default_factory=lambda: ["q1", "q2"])
    item_difficulty: list = field(default_factory=lambda: ["hard", "normal"])
    item_scene: list = field(default_factory=lambda: ["(none)", "(none)"])
    crit_id: np.ndarray = field(default_factory=lambda: np.array([100, 101, 102]))
    crit_ability: list = field(default_factory=lambda: ["温暖", "情绪感知", "道德"])
    crit_weight: np.ndarray = field(default_factory=lambda: np.array([3.0, 2.0, 5.0]))
    crit_catastrophic: np.ndarray = field(default_factory=lambda: np.zeros(3, bool))
    crit_lineage: list = field(default_factory=lambda: ["a", "b", "c"])
    crit_position: np.ndarray = field(default_factory=lambda: np.array([0, 1, 0]))
    crit_item: np.ndarray = field(default_factory=lambda: np.array([0, 0, 1]))
    u_cr: np.ndarray = field(default_factory=lambda: np.array([0, 0, 1]))
    u_crit: np.ndarray = field(default_factory=lambda: np.array([0, 1, 2]))
    # unit 0: 2 of 3 hit; unit 1: 0 of 3; unit 2: 2 of 2 so far (the third expert has not submitted)
    j_unit: np.ndarray = field(default_factory=lambda: np.array([0, 0, 0, 1, 1, 1, 2, 2]))
    j_expert: np.ndarray = field(default_factory=lambda: np.array([0, 1, 2, 0, 1, 2, 0, 1]))
    j_hit: np.ndarray = field(default_factory=lambda: np.array([1, 1, 0, 0, 0, 0, 1, 1], bool))
    j_time: np.ndarray = field(default_factory=lambda: np.full(8, 86400.0 * 20000))
    expert_ids: list = field(default_factory=lambda: [1, 2, 3])
    expert_names: list = field(default_factory=lambda: ["e1", "e2", "e3"])
    u_judge: np.ndarray = field(default_factory=lambda: np.array([1, 1, 1], np.int8))
    u_adjudicated: np.ndarray = field(default_factory=lambda: np.full(3, -1, np.int8))
    excluded: dict = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return int(self.u_cr.size)

    def unit_counts(self):
        hits = np.bincount(self.j_unit, weights=self.j_hit, minlength=self.n_units).astype(np.int64)
        return hits, np.bincount(self.j_unit, minlength=self.n_units).astype(np.int64)


ITEMS = Resampling("item", 40, 1000)


def model_row(key: str, *, rate: float, pairs: int, items: int, ci95: tuple[float, float]) -> GroupRow:
    """A by-model breakdown row with the figures an alert reads (the others defined and unremarkable)."""
    interval = Interval(*ci95, resampled=Resampling("item", items, 1000))
    figure = Figure(0.5, pairs)
    return GroupRow(
        key,
        key,
        pairs,
        pairs,
        items,
        ItemAgreement(Figure(rate, pairs), interval),
        figure,
        figure,
        figure,
        figure,
        Figure(0.6, pairs),
        3 * pairs,
    )


class TestGoldenStandard:
    def test_the_majority_of_k_ratings_labels_a_unit_and_an_adjudication_overrides_it(self):
        hits, ratings = np.array([3, 2, 2, 1, 2]), np.array([3, 3, 2, 2, 4])
        label, provenance, tie = golden_standard(hits, ratings, 3, np.array([-1, -1, -1, 1, -1]))
        assert label.tolist() == [1, 1, -1, 1, -1]
        assert provenance.tolist() == [PROVENANCE_UNANIMOUS, PROVENANCE_MAJORITY, PROVENANCE_NONE, PROVENANCE_ADJUDICATED, PROVENANCE_NONE]
        assert tie.tolist() == [False, False, False, False, True]


class TestComputeReport:
    def test_the_headline_compares_only_units_with_a_majority_of_k_ratings(self):
        r = compute_report(Arrays(), resamples=50)
        assert (r.pairs, r.item_agreement.rate.value) == (2, 0.5)
        assert r.units.incomplete == 1 and r.units.with_golden_label == 2
        rows = {row.key: row for row in r.by_criterion}
        assert (rows["a"].item_agreement.rate.value, rows["b"].item_agreement.rate.value, rows["c"].pairs) == (1.0, 0.0, 0)

    def test_a_lower_k_labels_the_unit_still_waiting_for_its_third_rating(self):
        r = compute_report(Arrays(k=2), resamples=50)
        assert r.pairs == 3 and r.item_agreement.rate.value == pytest.approx(2 / 3)


class TestGate:
    def test_the_pure_gate_reports_the_lower_bound_even_when_the_point_decides(self):
        out = ItemAgreement(Figure(0.8, 100), Interval(0.7, 0.9, ITEMS))
        point = _gate(
            out, by_dimension=(), by_ability=(), policy=GatePolicy(threshold=0.75, min_pairs_per_dimension=0, min_pairs_per_ability=0)
        )
        bound = _gate(
            out,
            by_dimension=(),
            by_ability=(),
            policy=GatePolicy(threshold=0.75, min_pairs_per_dimension=0, min_pairs_per_ability=0, must_clear="lower_bound"),
        )
        assert point.passed is True and point.ci_low == 0.7
        assert bound.passed is False and bound.ci_low == 0.7

    def test_a_lower_bound_policy_without_an_interval_fails_and_says_why(self):
        out = ItemAgreement(Figure(0.9, 10), Interval(None, None, Resampling("item", 1, 1000), reason="fewer than 2 items"))
        gate = _gate(
            out,
            by_dimension=(),
            by_ability=(),
            policy=GatePolicy(min_pairs_per_dimension=0, min_pairs_per_ability=0, must_clear="lower_bound"),
        )
        assert gate.passed is False and "undefined (fewer than 2 items)" in gate.reasons[0]


class TestAlerts:
    def test_a_model_below_the_overall_agreement_is_flagged_with_its_items(self):
        overall = ItemAgreement(Figure(0.85, 1000), Interval(0.8, 0.9, ITEMS))
        model = model_row("m", rate=0.6, pairs=500, items=40, ci95=(0.5, 0.7))
        (alert,) = _alerts(overall, by_expert=(), by_criterion=(), by_model=(model,))
        assert (
            alert.kind == "judge_model_disagreement"
            and "on 40 items" in alert.message
            and "95% CI over the items up to 70%" in alert.message
        )


def _many_items(seed=3, n_items=30):
    """A larger campaign: n_items items with two criteria each, three experts, a judge that agrees most of the time."""
    rng = np.random.default_rng(seed)
    n_units = 2 * n_items
    truth = rng.random(n_units) < 0.5
    j_unit = np.repeat(np.arange(n_units), 3)
    j_hit = np.repeat(truth, 3) ^ (rng.random(3 * n_units) < 0.1)
    judge = (truth ^ (rng.random(n_units) < 0.2)).astype(np.int8)
    return Arrays(
        cr_id=np.arange(n_items) + 10,
        cr_model=np.zeros(n_items, int),
        cr_item=np.arange(n_items),
        item_question=[f"q{i}" for i in range(n_items)],
        item_difficulty=["hard"] * n_items,
        item_scene=["s"] * n_items,
        crit_id=np.arange(n_units) + 100,
        crit_ability=["温暖", "道德"] * n_items,
        crit_weight=np.full(n_units, 2.0),
        crit_catastrophic=np.zeros(n_units, bool),
        crit_lineage=[f"l{i}" for i in range(n_units)],
        crit_position=np.tile([0, 1], n_items),
        crit_item=np.repeat(np.arange(n_items), 2),
        u_cr=np.repeat(np.arange(n_items), 2),
        u_crit=np.arange(n_units),
        j_unit=j_unit,
        j_expert=np.tile([0, 1, 2], n_units),
        j_hit=j_hit,
        j_time=np.full(3 * n_units, 86400.0 * 20000),
        u_judge=judge,
        u_adjudicated=np.full(n_units, -1, np.int8),
    )


def test_judge_alignment_gives_exactly_the_report_s_headline_kappa_ac1_and_per_ability_rows():
    from heartbench_core.lib.agreement_report import judge_alignment

    data = _many_items()
    report = compute_report(data, resamples=200, seed=7)
    alignment = judge_alignment(data, resamples=200, seed=7)
    assert alignment.item_agreement == report.item_agreement
    assert (alignment.cohen_kappa, alignment.gwet_ac1) == (report.cohen_kappa, report.gwet_ac1)
    assert alignment.by_ability == report.by_ability
    assert (alignment.pairs, alignment.items, alignment.responses) == (report.pairs, report.items, report.responses)
    assert alignment.item_agreement.ci95.resampled.unit == "item" and alignment.item_agreement.ci95.resampled.units == 30


def test_judge_alignment_without_judge_verdicts_is_undefined_with_reasons_never_zero():
    from heartbench_core.lib.agreement_report import judge_alignment

    data = _many_items()
    data.u_judge = np.full(data.n_units, -1, np.int8)
    alignment = judge_alignment(data, resamples=50)
    assert alignment.pairs == 0 and alignment.units_with_judge == 0 and alignment.units_with_gold == 60
    assert alignment.item_agreement.rate.value is None and alignment.item_agreement.rate.reason
    assert alignment.cohen_kappa.value is None and alignment.item_agreement.ci95.reason


def test_the_change_between_two_judges_is_paired_on_common_units_and_resamples_items():
    from dataclasses import replace

    from heartbench_core.lib.agreement_report import agreement_change, judge_alignment

    before = _many_items()
    hits, ratings = before.unit_counts()
    gold, _p, _t = golden_standard(hits, ratings, 3, before.u_adjudicated)
    after = replace(before, u_judge=np.where(gold >= 0, gold, 0).astype(np.int8))  # a judge that always agrees
    change = agreement_change(before, after, resamples=300, seed=1)
    rate_before = judge_alignment(before, resamples=0).item_agreement.rate.value
    assert change.current_rate.value == 1.0 and change.previous_rate.value == pytest.approx(rate_before)
    assert change.difference.value == pytest.approx(1.0 - rate_before) and change.difference.n == before.n_units
    low, high = change.ci95.low, change.ci95.high
    assert low <= change.difference.value <= high and change.ci95.resampled.unit == "item"
    same = agreement_change(before, before, resamples=100)
    # No item's difference differs from another's: an interval would be the point [0, 0], so there is none, with the reason.
    assert same.difference.value == 0.0 and (same.ci95.low, same.ci95.high) == (None, None)
    assert same.ci95.reason == "every item has the same mean difference: no spread between items to estimate an interval from"


def test_no_common_pairs_leaves_the_change_undefined_with_the_reason():
    from dataclasses import replace

    from heartbench_core.lib.agreement_report import NO_COMMON_PAIRS, agreement_change

    before = _many_items()
    after = replace(before, u_judge=np.full(before.n_units, -1, np.int8))
    change = agreement_change(before, after)
    assert change.difference == Figure(None, 0, NO_COMMON_PAIRS) and change.ci95.reason == NO_COMMON_PAIRS
