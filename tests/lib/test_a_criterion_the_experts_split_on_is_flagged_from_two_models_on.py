"""A criterion the experts split on is flagged with 2 to 14 models: its split count against the other criteria's rate.

A criterion belongs to one item, so it has one unit per model. The alpha alert needed 5 of them
and could never fire with fewer than 5 models. `agreement.criterion_splits` counts, per criterion,
the units (with the campaign's k ratings) on which the experts did not all agree, and flags it when
at least 2 are split and that many or more is unlikely (one-sided binomial p ≤ 0.05) at the split
rate of the campaign's other criteria. The p-value is checked against scipy's binomtest.
"""

import numpy as np
import pytest
from scipy.stats import binomtest

from heartbench_core.lib import agreement as st
from heartbench_core.lib.agreement_report import compute_report
from tests.lib.test_agreement_report import Arrays


def criteria(models, splits_of_criterion, *, criteria=40, others_split_every=10, k=3):
    """hits, ratings, criterion per unit: `models` units a criterion; criterion 0 split on `splits_of_criterion` of them."""
    crit = np.repeat(np.arange(criteria), models)
    hits = np.full(crit.size, k)
    ratings = np.full(crit.size, k)
    hits[:splits_of_criterion] = 2  # 2 of 3 hit: split
    others = np.flatnonzero(crit > 0)
    hits[others[::others_split_every]] = 1
    return hits, ratings, crit


@pytest.mark.parametrize("models", [2, 3, 5, 14])
def test_a_criterion_split_on_every_response_is_flagged_whatever_the_number_of_models(models):
    hits, ratings, crit = criteria(models, models)
    s = st.criterion_splits(hits, ratings, crit, 40, min_ratings=3)
    assert s.flagged[0] and s.split[0] == models and s.units[0] == models and s.ratings[0] == 3 * models
    others = np.flatnonzero(crit > 0)
    rate = ((hits[others] > 0) & (hits[others] < 3)).mean()
    assert s.others_rate[0] == pytest.approx(rate) and s.others_units[0] == others.size
    assert s.p_value[0] == pytest.approx(binomtest(models, models, rate, alternative="greater").pvalue)
    assert not s.flagged[1:].any()


def test_one_split_of_two_is_not_evidence_and_neither_is_a_campaign_where_everything_splits():
    hits, ratings, crit = criteria(2, 1)
    assert not st.criterion_splits(hits, ratings, crit, 40, min_ratings=3).flagged.any()
    hits, ratings, crit = criteria(2, 2, others_split_every=2)  # the others split on half their units: 2 of 2 is p = 0.25
    s = st.criterion_splits(hits, ratings, crit, 40, min_ratings=3)
    assert not s.flagged[0] and s.p_value[0] == pytest.approx(0.25, abs=0.01)


def test_units_short_of_the_campaigns_k_are_not_counted():
    hits, ratings, crit = criteria(3, 3)
    ratings[:3], hits[:3] = 2, 1  # criterion 0's units have 2 of their 3 ratings, split 1–1
    s = st.criterion_splits(hits, ratings, crit, 40, min_ratings=3)
    assert s.units[0] == 0 and np.isnan(s.p_value[0]) and not s.flagged[0]
    assert st.criterion_splits(hits, ratings, crit, 40, min_ratings=2).flagged[0]  # with k = 2 they count


def test_the_report_raises_the_split_alert_on_a_two_model_campaign():
    # Two models, so each criterion has two responses: the alpha alert (5 responses) could never fire.
    n_items, models = 30, 2
    crit_of_unit = np.arange(n_items * 2).repeat(models)  # two criteria an item, one unit per model
    n_units = crit_of_unit.size
    item_of_crit = np.arange(n_items).repeat(2)
    cr_of_unit = item_of_crit[crit_of_unit] * models + np.tile(np.arange(models), n_units // models)
    hits = np.full(n_units, 3)
    hits[crit_of_unit == 5] = 2  # criterion 5: the experts split on both responses
    hits[np.flatnonzero(crit_of_unit != 5)[::15]] = 1  # and on one in 15 elsewhere
    j_unit = np.repeat(np.arange(n_units), 3)
    j_hit = np.concatenate([[True] * h + [False] * (3 - h) for h in hits])
    data = Arrays(
        cr_id=np.arange(n_items * models) + 10,
        cr_model=np.tile(np.arange(models), n_items),
        cr_item=np.arange(n_items).repeat(models),
        model_names=["m0", "m1"],
        item_question=[f"q{i}" for i in range(n_items)],
        item_difficulty=["hard"] * n_items,
        item_scene=["s"] * n_items,
        crit_id=np.arange(n_items * 2) + 100,
        crit_ability=["温暖"] * (n_items * 2),
        crit_weight=np.full(n_items * 2, 1.0),
        crit_catastrophic=np.zeros(n_items * 2, bool),
        crit_lineage=[f"l{i}" for i in range(n_items * 2)],
        crit_position=np.tile([0, 1], n_items),
        crit_item=item_of_crit,
        u_cr=cr_of_unit,
        u_crit=crit_of_unit,
        j_unit=j_unit,
        j_expert=np.tile([0, 1, 2], n_units),
        j_hit=j_hit,
        j_time=np.full(j_unit.size, 86400.0 * 20000),
        expert_ids=[1, 2, 3],
        expert_names=["e1", "e2", "e3"],
        u_judge=np.ones(n_units, np.int8),
        u_adjudicated=np.full(n_units, -1, np.int8),
    )
    report = compute_report(data, resamples=100)
    (alert,) = [a for a in report.alerts if a.kind == "split_criterion"]
    assert alert.subject == "l5"
    assert alert.message.startswith(
        "criterion q2 #2 (Warmth): the experts split on 2 of 2 responses, against 7% of the other criteria's 118"
    )
    assert not [a for a in report.alerts if a.kind == "low_alpha_criterion"]
