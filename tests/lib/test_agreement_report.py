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
        assert alert.kind == "judge_model_disagreement" and "on 40 items" in alert.message and "resampling the items" in alert.message
