"""Plan a blind test before it is created: what interval a design buys, and what it costs.

A design is a share of the dataset's items (every model's response to a sampled item is
labelled) and k raters per response. For each design of a grid the planner estimates, by
simulating the design from a pilot:

- the expected 95% interval half-width of the judge's agreement with the experts' majority:
  each simulated campaign resamples the pilot's items (and, per item, as many of its responses
  as the planned models), and draws experts from a pool whose leniencies are resampled from the
  pilot's, k per response, each rating many responses, so a lenient expert moves many golden
  labels at once, as the report's interval counts it;
- the expected 95% half-width of the difference between two models' human-calibrated scores
  (prediction-powered, power-tuned): the judge scores every item, experts the sampled ones;
  the variance of the corrected difference is computed from the pilot's per-item score
  differences under the judge and under simulated golden labels of k raters.

The pilot is a unit table: one entry per (response, criterion) the judge and the experts
judged. `fit_pilot` turns it into a generative model: each unit's chance that an expert says
*hit* (beta-binomial shrinkage of its votes) and each expert's leniency (how often they say hit
where their co-raters did not, on the log-odds scale, shrunk toward none). With no pilot,
`assumed_pilot` builds one from stated assumptions on the version's real criteria.

Pure NumPy; the caller says which pilot it used (or that the figures are assumptions).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from heartbench_core.lib import scoring
from heartbench_core.lib.split_extension import extension_order, split_units

Z95 = 1.959963984540054
MIN_PILOT_ITEMS = 10  # below, resampling the pilot's items says little about the dataset's
MIN_PILOT_EXPERTS = 3


class PlanError(ValueError):
    """A plan that cannot be made as asked (the message says why)."""


@dataclass(frozen=True)
class PilotUnits:
    """What a pilot holds, one entry per unit (response, criterion) with the judge's verdict and ≥ 1 expert rating."""

    unit_response: np.ndarray  # int: response index
    unit_judge: np.ndarray  # bool: the judge's verdict
    unit_ability: np.ndarray  # int: ability index (scoring)
    unit_weight: np.ndarray  # float, NaN for a null weight
    unit_catastrophic: np.ndarray  # bool
    response_item: np.ndarray  # int: item index of each response
    response_model: np.ndarray  # int: model index of each response
    judgment_unit: np.ndarray  # int: unit of each blind expert verdict
    judgment_expert: np.ndarray  # int: expert index of each verdict
    judgment_hit: np.ndarray  # bool
    n_abilities: int

    @property
    def n_items(self) -> int:
        return int(np.unique(self.response_item).size)

    @property
    def n_experts(self) -> int:
        return int(np.unique(self.judgment_expert).size)


@dataclass(frozen=True)
class FittedPilot:
    units: PilotUnits
    # Each unit's chance that a typical expert says hit is Beta(unit_alpha, unit_beta): what the pilot's votes leave uncertain.
    unit_alpha: np.ndarray
    unit_beta: np.ndarray
    leniency: np.ndarray  # log-odds shift of each pilot expert (shrunk)
    judge_agreement: float  # the pilot's raw agreement of the judge with the experts' majority
    # How often the judge sides with what most experts would say (a unit's chance above one half): matched so that
    # simulated panels of the pilot's size agree with the judge as often as the pilot's did; None: not matched (assumed pilot).
    judge_accuracy: float | None = None
    pilot_raters: int = 3


@dataclass(frozen=True)
class Design:
    share: float  # of the dataset's items
    raters: int  # k per response


@dataclass(frozen=True)
class Extension:
    """Extra raters where the verdicts split: a response whose k verdicts split by one vote on at least `min_share`
    of its criteria is offered to two more experts (most split first), up to `budget_share` of the responses."""

    min_share: float = 0.5
    budget_share: float = 0.1


@dataclass(frozen=True)
class Costs:
    seconds_per_criterion: float  # median active time an expert spends per criterion judged
    criteria_per_item: float  # mean criteria per item of the version
    piece_rate: float  # paid per submitted response (0: unpaid)


@dataclass(frozen=True)
class PlannedDesign:
    share: float
    raters: int
    items: int
    responses: int
    assignments: int
    judgments: int
    expert_hours: float
    money: float
    agreement_half_width: float  # NaN when undefined
    difference_half_width: float  # NaN when undefined (the reason is on the plan)
    extended: bool = False  # with extra raters where the verdicts split
    extended_responses: int = 0  # expected responses given two more raters


@dataclass(frozen=True)
class Plan:
    designs: tuple[PlannedDesign, ...]
    simulations: int  # simulated campaigns per design
    pilot_items: int
    pilot_experts: int
    pilot_responses: int
    pilot_judge_agreement: float
    difference_reason: str  # why the difference half-width is undefined ("" when defined)
    reduced: bool  # fewer simulations than asked, to answer in time
    precision: float  # Monte-Carlo relative standard error of a half-width at this many simulations


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fit_pilot(units: PilotUnits, *, seed: int = 0) -> FittedPilot:
    """Each unit's hit chance (beta-binomial shrinkage) and each expert's leniency (shrunk), from the pilot's blind verdicts."""
    if units.unit_response.size == 0 or units.judgment_unit.size == 0:
        raise PlanError("the pilot has no unit judged by both the judge and the experts")
    if units.n_items < MIN_PILOT_ITEMS:
        raise PlanError(f"the pilot has {units.n_items} items; at least {MIN_PILOT_ITEMS} are needed")
    if units.n_experts < MIN_PILOT_EXPERTS:
        raise PlanError(f"the pilot has {units.n_experts} experts; at least {MIN_PILOT_EXPERTS} are needed")
    n_units = units.unit_response.size
    votes = np.bincount(units.judgment_unit, weights=units.judgment_hit, minlength=n_units)
    ratings = np.bincount(units.judgment_unit, minlength=n_units).astype(float)
    rated = ratings > 0
    mean = float(votes[rated].sum() / ratings[rated].sum())
    # Method of moments for the beta-binomial: how much units differ beyond the raters' noise.
    many = ratings >= 2
    share = votes[many] / ratings[many]
    spread = float(share.var()) if share.size > 1 else 0.0
    r = float(np.mean(ratings[many])) if many.any() else 1.0
    base = mean * (1 - mean)
    rho = ((spread / base) - 1 / r) / (1 - 1 / r) if base > 0 and r > 1 else 0.5
    rho = float(np.clip(rho, 0.02, 0.98))
    prior = (1 - rho) / rho  # α + β
    unit_alpha, unit_beta = votes + mean * prior, ratings - votes + (1 - mean) * prior

    # Leniency: an expert's hits beyond their co-raters' on the same units, on the log-odds scale.
    others = (votes[units.judgment_unit] - units.judgment_hit) / np.maximum(ratings[units.judgment_unit] - 1, 1)
    shared = ratings[units.judgment_unit] > 1
    n_experts = int(units.judgment_expert.max()) + 1
    excess = np.bincount(units.judgment_expert[shared], weights=(units.judgment_hit - others)[shared], minlength=n_experts)
    count = np.bincount(units.judgment_expert[shared], minlength=n_experts).astype(float)
    present = np.bincount(units.judgment_expert, minlength=n_experts) > 0
    delta = np.divide(excess, count, out=np.zeros(n_experts), where=count > 0)
    # Shrink toward no leniency: an expert seen on few units says little (a verdict's noise is ≈ base).
    noise = base * (1 + 1 / max(r - 1, 1))
    signal = max(float(np.var(delta[present])) - float(np.mean(noise / np.maximum(count[present], 1))), 0.0)
    shrink = signal / (signal + noise / np.maximum(count, 1))
    # A shift b on the log-odds moves a unit's chance by ≈ b·p(1 − p): on average over the units, b·μ(1 − μ)(1 − ρ).
    leniency = (delta * shrink / max(base * (1 - rho), 1e-3))[present]

    judged = units.unit_judge
    gold = votes * 2 > ratings
    decided = rated & (votes * 2 != ratings)
    agreement = float(np.mean(judged[decided] == gold[decided])) if decided.any() else float("nan")
    fitted = FittedPilot(
        units=units,
        unit_alpha=unit_alpha,
        unit_beta=unit_beta,
        leniency=leniency,
        judge_agreement=agreement,
        pilot_raters=max(1, round(r)),
    )
    return match_judge_accuracy(fitted, np.random.default_rng(seed))


def assumed_pilot(
    *,
    item_units: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    n_abilities: int,
    models: int,
    experts: int,
    judge_agreement: float,
    hit_rate: float,
    consistency: float,
    leniency_sd: float,
    seed: int,
) -> FittedPilot:
    """A pilot made of stated assumptions on the version's real criteria (item_units: per item, abilities, weights, catastrophic).

    consistency: how clear-cut criteria are (the intra-class correlation of experts' verdicts, 0–1);
    the judge agrees with the experts' majority on `judge_agreement` of the units; experts' leniencies
    are normal on the log-odds scale with sd `leniency_sd`.
    """
    if not 0 < judge_agreement <= 1 or not 0 < hit_rate < 1 or not 0 < consistency < 1 or leniency_sd < 0:
        raise PlanError("assumptions out of range: agreement in (0, 1], hit rate and consistency in (0, 1), leniency sd ≥ 0")
    rng = np.random.default_rng(seed)
    prior = (1 - consistency) / consistency
    parts_r, parts_a, parts_w, parts_c, resp_item, resp_model = [], [], [], [], [], []
    response = 0
    for item, (ability, weight, catastrophic) in enumerate(item_units):
        for model in range(models):
            parts_r.append(np.full(ability.size, response))
            parts_a.append(ability)
            parts_w.append(weight)
            parts_c.append(catastrophic)
            resp_item.append(item)
            resp_model.append(model)
            response += 1
    unit_response = np.concatenate(parts_r) if parts_r else np.zeros(0, np.int64)
    n = unit_response.size
    p = rng.beta(hit_rate * prior, (1 - hit_rate) * prior, size=n)
    majority_hit = p > 0.5
    judge = np.where(rng.random(n) < judge_agreement, majority_hit, ~majority_hit)
    units = PilotUnits(
        unit_response=unit_response,
        unit_judge=judge,
        unit_ability=np.concatenate(parts_a) if parts_a else np.zeros(0, np.int64),
        unit_weight=np.concatenate(parts_w) if parts_w else np.zeros(0),
        unit_catastrophic=np.concatenate(parts_c) if parts_c else np.zeros(0, bool),
        response_item=np.asarray(resp_item, np.int64),
        response_model=np.asarray(resp_model, np.int64),
        judgment_unit=np.zeros(0, np.int64),
        judgment_expert=np.zeros(0, np.int64),
        judgment_hit=np.zeros(0, bool),
        n_abilities=n_abilities,
    )
    leniency = rng.normal(0.0, leniency_sd, size=max(experts, 1))
    known = 1e6  # the assumed chances are known exactly
    return FittedPilot(units=units, unit_alpha=p * known, unit_beta=(1 - p) * known, leniency=leniency, judge_agreement=judge_agreement)


@dataclass(frozen=True)
class _Draws:
    """Per simulated expert panel t and pilot response r: units the judge agrees with the majority on, and gold-based scores."""

    agree: np.ndarray  # (T, n_responses)
    gold_score: np.ndarray  # (T, n_responses), NaN where a response has no scored ability
    extended_share: float = 0.0  # mean share of responses given two more raters


def _plausible_chances(fitted: FittedPilot, rng: np.random.Generator, accuracy: float | None = None) -> np.ndarray:
    """Each unit's chance of a hit, drawn from what its votes leave open and from the judge's verdict on it.

    The votes alone (a beta posterior) ignore that the judge's verdict also tells which way a unit
    leans; a draw that contradicts it is kept with probability (1 − a)/a, a the judge's accuracy.
    """
    p = rng.beta(fitted.unit_alpha, fitted.unit_beta)
    a = fitted.judge_accuracy if accuracy is None else accuracy
    if a is None or a <= 0.5:
        return p
    keep_against = (1 - a) / a
    todo = np.flatnonzero((p > 0.5) != fitted.units.unit_judge)
    for _ in range(12):
        todo = todo[rng.random(todo.size) >= keep_against]  # these draws are refused: draw again
        if todo.size == 0:
            break
        p[todo] = rng.beta(fitted.unit_alpha[todo], fitted.unit_beta[todo])
        todo = todo[(p[todo] > 0.5) != fitted.units.unit_judge[todo]]
    return p


def _simulated_agreement(fitted: FittedPilot, accuracy: float, rng: np.random.Generator, panels: int = 4) -> float:
    """The judge's mean agreement with simulated panels of the pilot's size on the pilot's units (decided units only)."""
    units = fitted.units
    k = fitted.pilot_raters
    total = 0.0
    for _ in range(panels):
        p = _plausible_chances(fitted, rng, accuracy)
        shift = rng.choice(fitted.leniency, size=(units.unit_response.size, k), replace=True)
        votes = (rng.random(shift.shape) < 1.0 / (1.0 + np.exp(-(_logit(p)[:, None] + shift)))).sum(axis=1)
        decided = votes * 2 != k
        total += float(np.mean((votes * 2 > k)[decided] == units.unit_judge[decided]))
    return total / panels


def match_judge_accuracy(fitted: FittedPilot, rng: np.random.Generator) -> FittedPilot:
    """The pilot with the judge's accuracy at which simulated panels agree with the judge as often as the pilot's experts did."""
    target = fitted.judge_agreement
    if not np.isfinite(target):
        return fitted
    low, high = 0.5, 0.999
    if _simulated_agreement(fitted, low, rng) >= target:
        return replace(fitted, judge_accuracy=low)
    for _ in range(10):
        middle = (low + high) / 2
        if _simulated_agreement(fitted, middle, rng) < target:
            low = middle
        else:
            high = middle
    return replace(fitted, judge_accuracy=(low + high) / 2)


def _panel_draws(
    fitted: FittedPilot, *, raters: int, pool: int, panels: int, rng: np.random.Generator, extension: Extension | None = None
) -> _Draws:
    units = fitted.units
    n_resp = units.response_item.size
    n_units = units.unit_response.size
    agree = np.empty((panels, n_resp))
    hits_each = []
    k = min(raters, pool)
    extend = extension is not None and k + 2 <= pool
    extended_total = 0.0
    for t in range(panels):
        base = _logit(_plausible_chances(fitted, rng))  # a plausible world the pilot's votes came from
        lenient = rng.choice(fitted.leniency, size=pool, replace=True)
        # k distinct experts of the pool per response, each expert rating many responses.
        order = np.argsort(rng.random((n_resp, pool)), axis=1)
        chosen = order[:, :k]
        shift = lenient[chosen][units.unit_response]  # (n_units, k)
        p = 1.0 / (1.0 + np.exp(-(base[:, None] + shift)))
        votes = (rng.random((n_units, k)) < p).sum(axis=1)
        gold = votes * 2 > k  # k even: a tie is a miss (the platform's rule waits for a strict majority)
        if extend and extension is not None:
            # Split by one vote (a tie when k is even), never by what the judge said.
            split = split_units(votes, np.full(n_units, k))
            share = np.bincount(units.unit_response, weights=split, minlength=n_resp) / np.maximum(
                np.bincount(units.unit_response, minlength=n_resp), 1
            )
            eligible = np.flatnonzero(share >= extension.min_share)
            budget = int(extension.budget_share * n_resp)
            picked = eligible[extension_order(share[eligible], rng.random(eligible.size))][:budget]
            if picked.size:
                more = np.isin(units.unit_response, picked)
                extra_shift = lenient[order[:, k : k + 2]][units.unit_response[more]]
                extra_p = 1.0 / (1.0 + np.exp(-(base[more][:, None] + extra_shift)))
                total = votes[more] + (rng.random((int(more.sum()), 2)) < extra_p).sum(axis=1)
                gold = gold.copy()
                gold[more] = total * 2 > k + 2
            extended_total += picked.size / max(n_resp, 1)
        agree[t] = np.bincount(units.unit_response, weights=(gold == units.unit_judge), minlength=n_resp)
        hits_each.append(gold)
    scores = scoring.score_questions_each(
        question=units.unit_response,
        ability=units.unit_ability,
        weight=units.unit_weight,
        hits=hits_each,
        catastrophic=units.unit_catastrophic,
        n_questions=n_resp,
        n_abilities=units.n_abilities,
    )
    return _Draws(agree=agree, gold_score=np.stack([s.question_score for s in scores]), extended_share=extended_total / max(panels, 1))


def _item_responses(units: PilotUnits) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items of the pilot, and per item its responses padded into a matrix (−1 beyond its count)."""
    items, inverse = np.unique(units.response_item, return_inverse=True)
    counts = np.bincount(inverse, minlength=items.size)
    table = np.full((items.size, int(counts.max())), -1, np.int64)
    order = np.argsort(inverse, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    position = np.arange(order.size) - np.repeat(starts, counts)
    table[inverse[order], position] = order
    return items, counts, table


def _agreement_half_width(
    draws: _Draws,
    units_per_response: np.ndarray,
    counts: np.ndarray,
    table: np.ndarray,
    *,
    items: int,
    models: int,
    sims: int,
    rng: np.random.Generator,
) -> float:
    """Half the central 95% range of the agreement over simulated campaigns of `items` items × `models` responses."""
    panel = rng.integers(0, draws.agree.shape[0], size=sims)
    chosen_items = rng.integers(0, counts.size, size=(sims, items))
    # An item's responses stand in for the planned models' without repeating one before all are used.
    count = counts[chosen_items][:, :, None]
    start = (rng.random((sims, items, 1)) * count).astype(np.int64)
    pick = (start + np.arange(models)) % count
    responses = table[chosen_items[:, :, None], pick]  # (sims, items, models)
    agree = draws.agree[panel[:, None, None], responses].sum(axis=(1, 2))
    total = units_per_response[responses].sum(axis=(1, 2))
    estimate = agree / np.maximum(total, 1)
    low, high = np.quantile(estimate, [0.025, 0.975])
    return float((high - low) / 2)


def _difference_variances(fitted: FittedPilot, draws: _Draws) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per pair of pilot models: Var(judge difference), Var(gold difference), Cov(gold, judge), over the items both answered."""
    units = fitted.units
    judge_score = scoring.score_questions(
        question=units.unit_response,
        ability=units.unit_ability,
        weight=units.unit_weight,
        hit=units.unit_judge,
        catastrophic=units.unit_catastrophic,
        n_questions=units.response_item.size,
        n_abilities=units.n_abilities,
    ).question_score
    models = np.unique(units.response_model)
    if models.size < 2:
        return None
    items = np.unique(units.response_item)
    item_pos = np.searchsorted(items, units.response_item)
    model_pos = np.searchsorted(models, units.response_model)
    by = np.full((items.size, models.size), -1, np.int64)
    by[item_pos, model_pos] = np.arange(units.response_item.size)
    var_f, var_y, cov = [], [], []
    for a in range(models.size):
        for b in range(a + 1, models.size):
            both = (by[:, a] >= 0) & (by[:, b] >= 0)
            ra, rb = by[both, a], by[both, b]
            d_f = judge_score[ra] - judge_score[rb]
            d_y = draws.gold_score[:, ra] - draws.gold_score[:, rb]
            ok = np.isfinite(d_f) & np.all(np.isfinite(d_y), axis=0)
            if ok.sum() < 3:
                continue
            d_f, d_y = d_f[ok], d_y[:, ok]
            var_f.append(float(np.var(d_f, ddof=1)))
            var_y.append(float(np.mean(np.var(d_y, axis=1, ddof=1))))
            cov.append(float(np.mean([np.cov(row, d_f)[0, 1] for row in d_y])))
    if not var_f:
        return None
    return np.asarray(var_f), np.asarray(var_y), np.asarray(cov)


def ppi_difference_half_width(var_f: np.ndarray, var_y: np.ndarray, cov: np.ndarray, *, labelled: int, total: int) -> float:
    """Median over model pairs of the power-tuned PPI half-width of a score difference (labelled of total items)."""
    n, big_n = float(labelled), float(total)
    lam = np.divide(cov, (1 + n / big_n) * var_f, out=np.zeros_like(cov), where=var_f > 0)
    lam = np.clip(lam, 0.0, 1.0)
    variance = lam**2 * var_f / big_n + (var_y - 2 * lam * cov + lam**2 * var_f) / n
    return float(np.median(Z95 * np.sqrt(np.maximum(variance, 0.0))))


def plan(
    fitted: FittedPilot,
    *,
    dataset_items: int,
    models: int,
    shares: tuple[float, ...],
    raters: tuple[int, ...],
    pool: int,
    costs: Costs,
    simulations: int = 1000,
    panels: int = 60,
    budget_cells: float = 4e8,
    seed: int = 0,
    extension: Extension | None = None,
) -> Plan:
    """The grid of designs with their expected half-widths and costs."""
    if dataset_items < 1 or models < 1:
        raise PlanError("the dataset version needs at least one item and the plan at least one model")
    if pool < 2:
        raise PlanError("at least two experts are needed in the pool")
    if not shares or any(not 0 < s <= 1 for s in shares):
        raise PlanError("every share of items must be in (0, 1]")
    if not raters or any(k < 1 for k in raters):
        raise PlanError("raters per response must be at least 1")
    if extension is not None and not (0 < extension.min_share <= 1 and 0 < extension.budget_share <= 1):
        raise PlanError("extra raters: the split share and the budget share must be in (0, 1]")
    if any(k > pool for k in raters):
        raise PlanError(f"{max(raters)} raters per response need at least as many experts in the pool ({pool})")
    rng = np.random.default_rng(seed)
    units = fitted.units
    units_per_response = np.bincount(units.unit_response, minlength=units.response_item.size)
    _items, counts, table = _item_responses(units)
    # Degrade rather than time out: the sampled cells (simulations × items × models per design) fit a budget.
    largest = max(max(1, round(s * dataset_items)) for s in shares) * models * len(shares) * len(raters) * (2 if extension else 1)
    sims = int(min(simulations, max(100, budget_cells // max(largest, 1))))
    reduced = sims < simulations
    out = []
    difference_reason = ""
    variants: list[tuple[int, Extension | None]] = [(k, None) for k in sorted(set(raters))]
    if extension is not None:
        variants += [(k, extension) for k in sorted(set(raters)) if k + 2 <= pool]
    for k, ext in variants:
        draws = _panel_draws(fitted, raters=k, pool=pool, panels=panels, rng=rng, extension=ext)
        variances = _difference_variances(fitted, draws)
        if variances is None:
            difference_reason = "the pilot has fewer than two models with scored responses to the same items"
        for share in shares:
            n_items = max(1, round(share * dataset_items))
            responses = n_items * models
            extended = round(draws.extended_share * responses)
            assignments = responses * k + 2 * extended
            judgments = round(assignments * costs.criteria_per_item)
            half = _agreement_half_width(draws, units_per_response, counts, table, items=n_items, models=models, sims=sims, rng=rng)
            diff = ppi_difference_half_width(*variances, labelled=n_items, total=dataset_items) if variances is not None else float("nan")
            out.append(
                PlannedDesign(
                    share=share,
                    raters=k,
                    items=n_items,
                    responses=responses,
                    assignments=assignments,
                    judgments=judgments,
                    expert_hours=judgments * costs.seconds_per_criterion / 3600,
                    money=assignments * costs.piece_rate,
                    agreement_half_width=half,
                    difference_half_width=diff,
                    extended=ext is not None,
                    extended_responses=extended,
                )
            )
    out.sort(key=lambda d: (d.share, d.raters, d.extended))
    return Plan(
        designs=tuple(out),
        simulations=sims,
        pilot_items=units.n_items,
        pilot_experts=int(fitted.leniency.size),
        pilot_responses=int(units.response_item.size),
        pilot_judge_agreement=fitted.judge_agreement,
        difference_reason=difference_reason,
        reduced=reduced,
        # The standard error of a 2.5%/97.5% quantile range relative to itself, ≈ 1.1 / sqrt(sims) for a normal spread.
        precision=1.1 / np.sqrt(sims),
    )


def cheapest_meeting(plan_: Plan, *, agreement: float | None = None, difference: float | None = None) -> PlannedDesign | None:
    """The design with the fewest expert hours whose half-widths are within the targets (None when none is)."""
    fits = [
        d
        for d in plan_.designs
        if (agreement is None or (np.isfinite(d.agreement_half_width) and d.agreement_half_width <= agreement))
        and (difference is None or (np.isfinite(d.difference_half_width) and d.difference_half_width <= difference))
    ]
    return min(fits, key=lambda d: (d.expert_hours, d.judgments)) if fits else None
