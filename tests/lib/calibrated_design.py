"""A simulated blind test whose golden labels come from expert votes, for the calibrated scores' intervals over items and experts.

Every replicate draws 296 items (two strata of 148, 40% of each sampled for the experts), each
answered by 4 models, with two abilities of three criteria each (weight 1, no catastrophic one).
Whether a (response, criterion) unit is a hit is driven by a latent θ (the model's level, an item,
a criterion and a response effect on the logit scale). Three distinct experts of a pool of 25 rate
every criterion of a sampled response: expert e votes hit with probability logistic(θ + bₑ), bₑ
that expert's persistent leniency drawn afresh for each pool from N(0, bias_sd²); the golden label
is the majority of the three. The judge verdicts every response: hit with probability
logistic(θ + 1.2) on the first ability (lenient) and logistic(θ + 0.2) on the second.

Scores are the scorer's: per (response, ability) 100·ln(hits + 1)/ln 4. The truth a model's
interval should cover is its expected overall score with golden labels from three experts of the
whole population of experts, on the population of items (Monte Carlo over θ and the panels'
leniencies, exact over the votes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.special import expit

from heartbench_core.lib import calibrated_scores as cs

ITEMS, MODELS, POOL, K = 296, 4, 25, 3
ABILITIES, PER_ABILITY = 2, 3
CRITERIA = ABILITIES * PER_ABILITY
MODEL_LEVEL = np.array([0.9, 0.6, 0.3, 0.0])
ITEM_SD, CRITERION_SD, RESPONSE_SD = 0.7, 1.2, 0.6
JUDGE_LENIENCY = np.array([1.2, 0.2])
STRATUM = np.repeat([0, 1], ITEMS // 2)
SAMPLE = 0.4


@dataclass(frozen=True)
class Replicate:
    """What `calibrate` reads, and the votes the golden labels came from."""

    judge_norm: np.ndarray
    gold_norm: np.ndarray
    labelled: np.ndarray
    sampled: np.ndarray
    votes: cs.GoldVotes


def _norm(raw: np.ndarray) -> np.ndarray:
    return 100.0 * np.log(raw + 1.0) / np.log(PER_ABILITY + 1.0)


def replicate(rng: np.random.Generator, bias_sd: float) -> Replicate:
    sampled = np.zeros(ITEMS, bool)
    for h in (0, 1):
        members = np.flatnonzero(h == STRATUM)
        sampled[rng.choice(members, size=round(SAMPLE * members.size), replace=False)] = True
    theta = (
        MODEL_LEVEL[:, None, None]
        + rng.normal(0, ITEM_SD, (1, ITEMS, 1))
        + rng.normal(0, CRITERION_SD, (1, ITEMS, CRITERIA))
        + rng.normal(0, RESPONSE_SD, (MODELS, ITEMS, 1))
    )  # (M, Q, C)
    ability = np.arange(CRITERIA) // PER_ABILITY
    judge_hit = rng.random(theta.shape) < expit(theta + JUDGE_LENIENCY[ability])
    judge_norm = _norm(judge_hit.reshape(MODELS, ITEMS, ABILITIES, PER_ABILITY).sum(axis=3))
    # Units: every (model, item, criterion) of a sampled item; three experts per response.
    bias = rng.normal(0, bias_sd, POOL)
    m_idx, q_idx = np.nonzero(np.broadcast_to(sampled, (MODELS, ITEMS)))
    n_resp = m_idx.size
    panels = np.argsort(rng.random((n_resp, POOL)), axis=1)[:, :K]
    unit_response = np.repeat(np.arange(n_resp), CRITERIA)
    unit_k = np.tile(np.arange(CRITERIA), n_resp)
    unit_theta = theta[m_idx[unit_response], q_idx[unit_response], unit_k]
    vote_unit = np.repeat(np.arange(unit_response.size), K)
    vote_expert = panels[unit_response].ravel()
    vote_hit = rng.random(vote_unit.size) < expit(unit_theta[vote_unit] + bias[vote_expert])
    hits = np.bincount(vote_unit, weights=vote_hit, minlength=unit_response.size)
    label = (2 * hits > K).astype(np.int64)
    gold_raw = label.reshape(n_resp, ABILITIES, PER_ABILITY).sum(axis=2)
    gold_norm = np.full((MODELS, ITEMS, ABILITIES), np.nan)
    gold_norm[m_idx, q_idx] = _norm(gold_raw)
    labelled = np.zeros((MODELS, ITEMS), bool)
    labelled[m_idx, q_idx] = True
    votes = cs.gold_vote_changes(
        vote_unit=vote_unit,
        vote_expert=vote_expert,
        vote_hit=vote_hit,
        unit_response=unit_response,
        unit_criterion=q_idx[unit_response] * CRITERIA + unit_k,
        label=label,
        fixed=np.zeros(unit_response.size, bool),
        hits=hits,
        ratings=np.full(unit_response.size, K),
        crit_ability=np.tile(ability, ITEMS),
        crit_weight=np.ones(ITEMS * CRITERIA),
        crit_catastrophic=np.zeros(ITEMS * CRITERIA, bool),
        response_model=m_idx,
        response_question=q_idx,
        include=np.ones(n_resp, bool),
        n_abilities=ABILITIES,
        n_experts=POOL,
    )
    return Replicate(judge_norm, gold_norm, labelled, sampled, votes)


def calibrate(r: Replicate, *, experts: bool, resamples: int = 0, seed: int = 0) -> cs.Calibration:
    """The report's calibrated scores of a replicate, resampling the experts with the items or the items alone."""
    return cs.calibrate(
        judge_norm=r.judge_norm,
        gold_norm=r.gold_norm,
        scored=np.ones((MODELS, ITEMS), bool),
        labelled=r.labelled,
        present=np.ones((ITEMS, ABILITIES), bool),
        stratum=STRATUM,
        sampled=r.sampled,
        ability_dimension=np.zeros(ABILITIES, np.intp),
        n_dimensions=1,
        resamples=resamples,
        seed=seed,
        votes=r.votes if experts else None,
    )


@cache
def truth(bias_sd: float, draws: int = 200_000, seed: int = 7) -> np.ndarray:
    """(M,) each model's expected overall score with panels of three from the whole expert population."""
    rng = np.random.default_rng(seed)
    out = []
    combos = np.array(np.meshgrid(*[[0, 1]] * PER_ABILITY, indexing="ij")).reshape(PER_ABILITY, -1).T  # (8, 3)
    value = _norm(combos.sum(axis=1))
    for level in MODEL_LEVEL:
        theta = (
            level
            + rng.normal(0, ITEM_SD, (draws, 1))
            + rng.normal(0, CRITERION_SD, (draws, CRITERIA))
            + rng.normal(0, RESPONSE_SD, (draws, 1))
        )
        b = rng.normal(0, bias_sd, (draws, 1, K))
        p = expit(theta[:, :, None] + b)  # (draws, C, 3)
        p1, p2, p3 = p[..., 0], p[..., 1], p[..., 2]
        maj = p1 * p2 + p1 * p3 + p2 * p3 - 2 * p1 * p2 * p3  # (draws, C)
        per_ability = maj.reshape(draws, ABILITIES, PER_ABILITY)
        # The expected norm of each ability: exact over which of its criteria are hits, given θ and the panel.
        prob = np.prod(np.where(combos[None, None, :, :] == 1, per_ability[:, :, None, :], 1 - per_ability[:, :, None, :]), axis=3)
        out.append(float((prob @ value).mean()))
    return np.array(out)
