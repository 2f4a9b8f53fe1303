"""The planner's expected half-width is the one campaigns of the planned design achieve.

A known generative world (items whose criteria experts find more or less clear-cut, a judge that
agrees with the experts' majority on most of them, experts who differ in leniency): one pilot
campaign is drawn from it, the planner reads only the pilot, and campaigns of the planned size are
then drawn from the world itself. The spread of their agreement figures must be within 15% of what
the planner said.
"""

import numpy as np
import pytest

from heartbench_core.lib import planner

ITEMS, MODELS, CRITERIA, POOL, ABILITIES = 296, 14, 12, 25, 15
CONSISTENCY, HIT_RATE, JUDGE_AGREEMENT, LENIENCY_SD = 0.75, 0.55, 0.87, 0.9


def _campaign(rng, *, share, raters, world_abilities, world_weights):
    """One campaign drawn from the world: fresh items, responses and a fresh panel of experts."""
    n_items = round(share * ITEMS)
    items = rng.choice(ITEMS, size=n_items, replace=False)
    n_resp = n_items * MODELS
    unit_response = np.repeat(np.arange(n_resp), CRITERIA)
    response_item = np.repeat(items, MODELS)
    unit_item = response_item[unit_response]
    prior = (1 - CONSISTENCY) / CONSISTENCY
    p = rng.beta(HIT_RATE * prior, (1 - HIT_RATE) * prior, size=unit_response.size)
    judge = np.where(rng.random(p.size) < JUDGE_AGREEMENT, p > 0.5, p <= 0.5)
    lenient = rng.normal(0, LENIENCY_SD, POOL)
    chosen = np.argsort(rng.random((n_resp, POOL)), axis=1)[:, :raters]
    logit = np.log(np.clip(p, 1e-4, 1 - 1e-4) / np.clip(1 - p, 1e-4, 1))
    votes_p = 1 / (1 + np.exp(-(logit[:, None] + lenient[chosen][unit_response])))
    verdicts = rng.random(votes_p.shape) < votes_p
    gold = verdicts.sum(axis=1) * 2 > raters
    agreement = float(np.mean(gold == judge))
    crit = np.tile(np.arange(CRITERIA), n_resp)
    units = planner.PilotUnits(
        unit_response=unit_response,
        unit_judge=judge,
        unit_ability=world_abilities[unit_item, crit],
        unit_weight=world_weights[unit_item, crit],
        unit_catastrophic=np.zeros(unit_response.size, bool),
        response_item=response_item,
        response_model=np.tile(np.arange(MODELS), n_items),
        judgment_unit=np.repeat(np.arange(unit_response.size), raters),
        judgment_expert=chosen[unit_response].ravel(),
        judgment_hit=verdicts.ravel(),
        n_abilities=ABILITIES,
    )
    return agreement, units


def _world(seed):
    rng = np.random.default_rng(seed)
    abilities = rng.integers(0, ABILITIES, size=(ITEMS, CRITERIA))
    weights = rng.choice([-3.0, -1.0, 1.0, 2.0, 3.0, 5.0], size=(ITEMS, CRITERIA))
    return rng, abilities, weights


def _achieved(rng, abilities, weights, *, share, raters, campaigns=800):
    estimates = [_campaign(rng, share=share, raters=raters, world_abilities=abilities, world_weights=weights)[0] for _ in range(campaigns)]
    low, high = np.quantile(estimates, [0.025, 0.975])
    return (high - low) / 2


COSTS = planner.Costs(seconds_per_criterion=20.0, criteria_per_item=CRITERIA, piece_rate=3.0)


@pytest.mark.parametrize("share,raters", [(0.3, 3), (0.15, 5)])
def test_the_planned_half_width_is_within_15_percent_of_the_achieved_one(share, raters):
    rng, abilities, weights = _world(7)
    _agreement, pilot = _campaign(rng, share=0.4, raters=3, world_abilities=abilities, world_weights=weights)
    fitted = planner.fit_pilot(pilot)
    result = planner.plan(fitted, dataset_items=ITEMS, models=MODELS, shares=(share,), raters=(raters,), pool=POOL, costs=COSTS, seed=1)
    (design,) = result.designs
    achieved = _achieved(rng, abilities, weights, share=share, raters=raters)
    assert abs(design.agreement_half_width - achieved) / achieved <= 0.15, (design.agreement_half_width, achieved)


def test_costs_count_responses_assignments_judgments_hours_and_money():
    rng, abilities, weights = _world(3)
    _agreement, pilot = _campaign(rng, share=0.2, raters=3, world_abilities=abilities, world_weights=weights)
    result = planner.plan(
        planner.fit_pilot(pilot), dataset_items=ITEMS, models=MODELS, shares=(0.25, 0.5), raters=(3, 5), pool=POOL, costs=COSTS, seed=2
    )
    by = {(d.share, d.raters): d for d in result.designs}
    d = by[(0.25, 3)]
    assert (d.items, d.responses, d.assignments) == (74, 74 * MODELS, 74 * MODELS * 3)
    assert d.judgments == 74 * MODELS * 3 * CRITERIA
    assert d.expert_hours == pytest.approx(d.judgments * 20 / 3600)
    assert d.money == pytest.approx(d.assignments * 3.0)
    # More items narrow both intervals; the difference is defined with 14 models.
    assert by[(0.5, 3)].agreement_half_width < by[(0.25, 3)].agreement_half_width
    assert by[(0.5, 3)].difference_half_width < by[(0.25, 3)].difference_half_width
    assert result.difference_reason == ""
    cheapest = planner.cheapest_meeting(result, agreement=by[(0.5, 3)].agreement_half_width)
    assert cheapest is not None and cheapest.agreement_half_width <= by[(0.5, 3)].agreement_half_width


def test_a_pilot_too_small_or_an_impossible_design_is_refused_with_a_reason():
    rng, abilities, weights = _world(5)
    _agreement, pilot = _campaign(rng, share=0.02, raters=3, world_abilities=abilities, world_weights=weights)
    with pytest.raises(planner.PlanError, match="items"):
        planner.fit_pilot(pilot)
    _agreement, pilot = _campaign(rng, share=0.2, raters=3, world_abilities=abilities, world_weights=weights)
    fitted = planner.fit_pilot(pilot)
    with pytest.raises(planner.PlanError, match="pool"):
        planner.plan(fitted, dataset_items=ITEMS, models=MODELS, shares=(0.3,), raters=(30,), pool=POOL, costs=COSTS)
    with pytest.raises(planner.PlanError, match="share"):
        planner.plan(fitted, dataset_items=ITEMS, models=MODELS, shares=(1.5,), raters=(3,), pool=POOL, costs=COSTS)


def test_extra_raters_where_verdicts_split_add_two_assignments_per_extended_response_within_the_budget():
    rng, abilities, weights = _world(11)
    _agreement, pilot = _campaign(rng, share=0.3, raters=3, world_abilities=abilities, world_weights=weights)
    extension = planner.Extension(min_share=0.2, budget_share=0.1)
    result = planner.plan(
        planner.fit_pilot(pilot),
        dataset_items=ITEMS,
        models=MODELS,
        shares=(0.3,),
        raters=(3,),
        pool=POOL,
        costs=COSTS,
        seed=3,
        extension=extension,
    )
    plain, extended = result.designs
    assert not plain.extended and extended.extended and plain.responses == extended.responses
    assert 0 < extended.extended_responses <= 0.1 * extended.responses + 1
    assert extended.assignments == plain.assignments + 2 * extended.extended_responses
    assert extended.expert_hours > plain.expert_hours
    with pytest.raises(planner.PlanError, match="split share"):
        planner.plan(
            planner.fit_pilot(pilot),
            dataset_items=ITEMS,
            models=MODELS,
            shares=(0.3,),
            raters=(3,),
            pool=POOL,
            costs=COSTS,
            extension=planner.Extension(min_share=0, budget_share=0.1),
        )
