"""Each vote's change of its response's golden norms is what rescoring the response without that vote gives.

`calibrated_scores.gold_vote_changes` works out, per vote, how far leaving it out moves the scorer's
per-(response, ability) norm, with a tie counting half a hit, negative weights, catastrophic
criteria that zero the response, and adjudicated units no vote moves. Here every vote is left
out in turn and the response is scored again with `scoring.score_questions` on each way the
recounted labels can fall (a tie both ways, half each): the two must agree.
"""

import numpy as np

from heartbench_core.lib import calibrated_scores as cs
from heartbench_core.lib import scoring


def _design(rng):
    n_q, n_a, per_q = 6, 3, 7
    crit_q = np.repeat(np.arange(n_q), per_q)
    n_c = crit_q.size
    crit_ability = rng.integers(0, n_a, n_c)
    crit_weight = rng.choice([-2.0, 1.0, 2.0, 3.0], n_c)
    crit_cat = rng.random(n_c) < 0.15
    # Two models answer every question: response r = model * n_q + question; one unit per criterion.
    n_r = 2 * n_q
    unit_response = np.repeat(np.arange(n_r), per_q)
    unit_criterion = np.tile(np.arange(n_c).reshape(n_q, per_q), (2, 1)).ravel()
    ratings = rng.choice([2, 3, 4], unit_response.size, p=[0.2, 0.6, 0.2])
    vote_unit = np.repeat(np.arange(unit_response.size), ratings)
    vote_expert = rng.integers(0, 5, vote_unit.size)
    # Catastrophic criteria are rarely hit; others often.
    p = np.where(crit_cat[unit_criterion], 0.25, 0.6)[vote_unit]
    vote_hit = rng.random(vote_unit.size) < p
    hits = np.bincount(vote_unit, weights=vote_hit, minlength=unit_response.size)
    label = np.where(2 * hits > ratings, 1, np.where(2 * hits < ratings, 0, rng.integers(0, 2, ratings.size)))
    fixed = rng.random(ratings.size) < 0.1
    return {
        "n_q": n_q,
        "n_a": n_a,
        "crit_q": crit_q,
        "crit_ability": crit_ability,
        "crit_weight": crit_weight,
        "crit_cat": crit_cat,
        "unit_response": unit_response,
        "unit_criterion": unit_criterion,
        "ratings": ratings,
        "vote_unit": vote_unit,
        "vote_expert": vote_expert,
        "vote_hit": vote_hit,
        "hits": hits,
        "label": label,
        "fixed": fixed,
    }


def _norms(d, labels):
    """(responses, abilities) golden norms, NaN-free (0 where absent), for unit labels `labels`."""
    s = scoring.score_questions(
        question=d["unit_response"],
        ability=d["crit_ability"][d["unit_criterion"]],
        weight=d["crit_weight"][d["unit_criterion"]],
        hit=labels == 1,
        catastrophic=d["crit_cat"][d["unit_criterion"]],
        n_questions=d["unit_response"].max() + 1,
        n_abilities=d["n_a"],
    )
    return np.nan_to_num(s.norm)


def _by_rescoring(d):
    before = _norms(d, d["label"])
    out = {}
    for v in range(d["vote_unit"].size):
        u = d["vote_unit"][v]
        if d["fixed"][u]:
            continue
        h, m = d["hits"][u] - d["vote_hit"][v], d["ratings"][u] - 1
        outcomes = [(1, 1.0)] if 2 * h > m else [(0, 1.0)] if 2 * h < m else [(1, 0.5), (0, 0.5)]
        after = 0.0
        for value, p in outcomes:
            labels = d["label"].copy()
            labels[u] = value
            after = after + p * _norms(d, labels)
        r = d["unit_response"][u]
        for a in range(d["n_a"]):
            key = (r, a, d["vote_expert"][v])
            out[key] = out.get(key, 0.0) + after[r, a] - before[r, a]
    return out


def test_each_vote_moves_the_norms_as_rescoring_without_it_does():
    for seed in range(4):
        d = _design(np.random.default_rng(seed))
        n_r = d["unit_response"].max() + 1
        votes = cs.gold_vote_changes(
            vote_unit=d["vote_unit"],
            vote_expert=d["vote_expert"],
            vote_hit=d["vote_hit"],
            unit_response=d["unit_response"],
            unit_criterion=d["unit_criterion"],
            label=d["label"],
            fixed=d["fixed"],
            hits=d["hits"],
            ratings=d["ratings"],
            crit_ability=d["crit_ability"],
            crit_weight=d["crit_weight"],
            crit_catastrophic=d["crit_cat"],
            response_model=np.arange(n_r) // d["n_q"],
            response_question=np.arange(n_r) % d["n_q"],
            include=np.ones(n_r, bool),
            n_abilities=d["n_a"],
            n_experts=5,
        )
        got: dict = {}
        for m, q, e, row in zip(votes.model, votes.question, votes.expert, votes.change):
            for a, c in enumerate(row):
                key = (m * d["n_q"] + q, a, e)
                got[key] = got.get(key, 0.0) + c
        want = _by_rescoring(d)
        for key in set(got) | set(want):
            assert abs(got.get(key, 0.0) - want.get(key, 0.0)) < 1e-9, (seed, key, got.get(key), want.get(key))
        assert any(abs(v) > 1 for v in want.values())  # the example moves norms


def test_every_vote_of_an_included_response_is_counted_once():
    d = _design(np.random.default_rng(9))
    n_r = d["unit_response"].max() + 1
    votes = cs.gold_vote_changes(
        vote_unit=d["vote_unit"],
        vote_expert=d["vote_expert"],
        vote_hit=d["vote_hit"],
        unit_response=d["unit_response"],
        unit_criterion=d["unit_criterion"],
        label=d["label"],
        fixed=d["fixed"],
        hits=d["hits"],
        ratings=d["ratings"],
        crit_ability=d["crit_ability"],
        crit_weight=d["crit_weight"],
        crit_catastrophic=d["crit_cat"],
        response_model=np.arange(n_r) // d["n_q"],
        response_question=np.arange(n_r) % d["n_q"],
        include=np.ones(n_r, bool),
        n_abilities=d["n_a"],
        n_experts=5,
    )
    # One row per (expert, response) pair; its ordinary and catastrophic votes add up to every vote.
    pairs = {(r, e) for r, e in zip(d["unit_response"][d["vote_unit"]], d["vote_expert"])}
    assert len(votes.expert) == len(pairs)
    assert votes.ordinary.sum() + votes.catastrophic.sum() == d["vote_unit"].size
    cat_votes = d["crit_cat"][d["unit_criterion"][d["vote_unit"]]].sum()
    assert votes.catastrophic.sum() == cat_votes > 0
