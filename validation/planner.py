"""The blind-test planner as the page, the API and `plan_blind_test` read it (admins; nothing is written).

Given a dataset version, the number of models, and a pilot — an earlier blind test on the same
dataset, or stated assumptions when there is none — it simulates a grid of designs (share of items
× raters per response) with `heartbench_core.lib.planner` and prices each: judgments, expert hours
at the median active time per criterion the platform measured (on the pilot, else on every
submitted assignment, else an assumption), and money at the piece rate. It says which pilot it
used and how many items it had, or that the figures are assumptions.

A person blind to the dataset (an expert in one of its campaigns) cannot plan on it: the pilot's
figures would tell them what the judge and the other experts said.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from statistics import median
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from annotation.models import Assignment, Campaign
from heartbench_core.blindness import blind_scope
from heartbench_core.lib import planner as lib
from heartbench_core.lib.taxonomy import ABILITY_LABELS
from heartbench_core.models import Criterion, DatasetVersion, User
from validation.selectors import load_campaign_arrays, select_judge_runs

DEFAULT_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5)
DEFAULT_RATERS = (3, 5)
ASSUMED_SECONDS_PER_CRITERION = 20.0


@dataclass(frozen=True)
class Assumptions:
    """What a plan without a pilot takes as given (each shown with the plan)."""

    judge_agreement: float = 0.87
    hit_rate: float = 0.5
    consistency: float = 0.7
    leniency_sd: float = 0.5
    seconds_per_criterion: float = ASSUMED_SECONDS_PER_CRITERION


@dataclass(frozen=True)
class PlanRequest:
    version: DatasetVersion
    models: int
    pilot: Campaign | None
    shares: tuple[float, ...] = DEFAULT_SHARES
    raters: tuple[int, ...] = DEFAULT_RATERS
    pool: int | None = None  # experts available; None: the pilot's, else the active experts
    piece_rate: float = 0.0
    target_agreement: float | None = None  # half-width, as a share (0.02 = ±2 points)
    target_difference: float | None = None  # half-width, in score points
    assumptions: Assumptions = Assumptions()
    extension: lib.Extension | None = None  # also plan each design with extra raters where the verdicts split
    simulations: int = 1000
    seed: int = 0


def plan_request(d: dict[str, Any], *, agreement_in_points: bool) -> PlanRequest:
    """A request from the page's or the API's cleaned input (the page asks the agreement's ± in points, the API as a share)."""
    target = d.get("target_agreement")
    if target is not None and agreement_in_points:
        target = target / 100
    extension = None
    if d.get("extension"):
        extension = lib.Extension(min_share=d.get("extension_min_share") or 0.5, budget_share=d.get("extension_budget_share") or 0.1)
    return PlanRequest(
        version=d["version"],
        models=d["models"],
        pilot=d.get("pilot"),
        shares=tuple(sorted(set(d["shares"]))),
        raters=tuple(sorted(set(d["raters"]))),
        pool=d.get("pool"),
        piece_rate=float(d.get("piece_rate") or 0),
        target_agreement=target,
        target_difference=d.get("target_difference"),
        assumptions=Assumptions(
            judge_agreement=d["judge_agreement"], leniency_sd=d["leniency_sd"], seconds_per_criterion=d["seconds_per_criterion"]
        ),
        extension=extension,
        simulations=d.get("simulations") or 1000,
        seed=d.get("seed") or 0,
    )


@dataclass(frozen=True)
class PlanView:
    request: PlanRequest
    plan: lib.Plan
    pool: int
    seconds_per_criterion: float
    seconds_measured_on: int  # submitted assignments the time was measured on (0: assumed)
    seconds_by_tier: dict[int, tuple[float, int]]  # expert tier → (median seconds per criterion, assignments)
    criteria_per_item: float
    dataset_items: int
    recommended: lib.PlannedDesign | None
    target_met: bool  # a design meets every target given (True when none was given)

    @property
    def assumed(self) -> bool:
        return self.request.pilot is None


def pilot_campaigns(user: User) -> QuerySet[Campaign]:
    """Blind tests that can serve as a pilot: on a dataset the viewer is not blind to."""
    from heartbench_core.models import Dataset

    visible = blind_scope(user).visible_on_datasets(Dataset.objects.all(), "pk")
    qs = Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, version__dataset__in=visible)
    return qs.select_related("version__dataset").order_by("-created_at")


def pilot_units(campaign: Campaign) -> lib.PilotUnits:
    """The pilot's units judged by both the judge and at least one expert (hidden gold checks left out)."""
    data = load_campaign_arrays(campaign, judge_runs=select_judge_runs(campaign))
    _hits, ratings = data.unit_counts()
    keep = (data.u_judge >= 0) & (ratings > 0)
    index = np.full(data.n_units, -1, np.int64)
    index[keep] = np.arange(int(keep.sum()))
    judged = keep[data.j_unit]
    ability_index = {label: i for i, label in enumerate(ABILITY_LABELS)}
    crit_ability = np.asarray([ability_index.get(a, len(ABILITY_LABELS)) for a in data.crit_ability], np.int64)
    u_crit = data.u_crit[keep]
    return lib.PilotUnits(
        unit_response=data.u_cr[keep],
        unit_judge=data.u_judge[keep] == 1,
        unit_ability=crit_ability[u_crit] if crit_ability.size else np.zeros(0, np.int64),
        unit_weight=np.asarray(data.crit_weight, float)[u_crit],
        unit_catastrophic=np.asarray(data.crit_catastrophic, bool)[u_crit],
        response_item=np.asarray(data.cr_item, np.int64),
        response_model=np.asarray(data.cr_model, np.int64),
        judgment_unit=index[data.j_unit[judged]],
        judgment_expert=np.asarray(data.j_expert, np.int64)[judged],
        judgment_hit=np.asarray(data.j_hit, bool)[judged],
        n_abilities=len(ABILITY_LABELS) + 1,
    )


@dataclass(frozen=True)
class MeasuredTime:
    """Median active seconds per criterion judged, over submitted assignments, overall and per expert tier."""

    seconds: float | None  # None: nothing measured
    assignments: int
    by_tier: dict[int, tuple[float, int]]  # tier → (median seconds per criterion, assignments)


def _seconds_per_criterion(campaign: Campaign | None) -> MeasuredTime:
    """What the platform measured (the pilot's assignments, else every campaign's), the newest 20,000 at most."""
    qs = Assignment.objects.filter(status=Assignment.Status.SUBMITTED, active_seconds__gt=0, campaign_response__is_gold=False)
    if campaign is not None:
        qs = qs.filter(campaign_response__campaign=campaign)
    rows = list(
        qs.annotate(
            criteria=Count("campaign_response__item__criteria"),
            tier=Coalesce("expert__expert_profile__tier_override", "expert__expert_profile__tier"),
        )
        .values_list("active_seconds", "criteria", "tier")
        .order_by("-pk")[:20000]
    )
    per = [(seconds / criteria, tier) for seconds, criteria, tier in rows if criteria]
    tiers: dict[int, list[float]] = {}
    for value, tier in per:
        if tier is not None:
            tiers.setdefault(int(tier), []).append(value)
    by_tier = {tier: (median(values), len(values)) for tier, values in sorted(tiers.items())}
    return MeasuredTime(median(v for v, _t in per) if per else None, len(per), by_tier)


def _version_shape(version: DatasetVersion) -> tuple[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    """Items of the version and, per item, its criteria's ability index, weight and catastrophic flag."""
    ability_index = {label: i for i, label in enumerate(ABILITY_LABELS)}
    rows = Criterion.objects.filter(item__version=version).values_list("item_id", "ability", "weight", "catastrophic").order_by("item_id")
    by_item: dict[int, list[tuple[int, float, bool]]] = {}
    for item_id, ability, weight, catastrophic in rows:
        by_item.setdefault(item_id, []).append(
            (ability_index.get(ability, len(ABILITY_LABELS)), float("nan") if weight is None else float(weight), bool(catastrophic))
        )
    shape = [
        (np.asarray([a for a, _w, _c in crits], np.int64), np.asarray([w for _a, w, _c in crits]), np.asarray([c for _a, _w, c in crits]))
        for crits in by_item.values()
    ]
    return version.items.count(), shape


def _active_experts() -> int:
    from annotation.models import ExpertProfile

    return ExpertProfile.objects.filter(availability=ExpertProfile.Availability.ACTIVE).count()


def make_plan(request: PlanRequest, *, user: User | None = None) -> PlanView:
    """Simulate the grid of designs for the request; a ValidationError naming the field when it cannot be planned."""
    version, pilot = request.version, request.pilot
    if user is not None and blind_scope(user).hides_dataset(version.dataset_id):
        raise ValidationError({"version": _("You judge in a blind test of this dataset: its figures are not yours to read.")})
    if pilot is not None:
        if pilot.kind != Campaign.Kind.BLIND_TEST:
            raise ValidationError({"pilot": _("%(name)s is not a blind test.") % {"name": pilot.name}})
        if pilot.version.dataset_id != version.dataset_id:
            raise ValidationError(
                {
                    "pilot": _("%(name)s is a blind test of %(dataset)s, not of %(planned)s: a pilot must be on the same dataset.")
                    % {"name": pilot.name, "dataset": pilot.version.dataset.name, "planned": version.dataset.name}
                }
            )
    if request.models < 1:
        raise ValidationError({"models": _("Plan for at least one model.")})
    dataset_items, shape = _version_shape(version)
    if dataset_items == 0 or not shape:
        raise ValidationError({"version": _("This version has no item with criteria to plan on.")})
    criteria_per_item = float(np.mean([s[0].size for s in shape]))
    assumptions = request.assumptions
    try:
        if pilot is not None:
            fitted = lib.fit_pilot(pilot_units(pilot), seed=request.seed)
        else:
            fitted = lib.assumed_pilot(
                item_units=shape[: min(len(shape), 120)],
                n_abilities=len(ABILITY_LABELS) + 1,
                models=min(request.models, 14),
                experts=request.pool or max(_active_experts(), 25),
                judge_agreement=assumptions.judge_agreement,
                hit_rate=assumptions.hit_rate,
                consistency=assumptions.consistency,
                leniency_sd=assumptions.leniency_sd,
                seed=request.seed,
            )
    except lib.PlanError as exc:
        raise ValidationError({"pilot" if pilot is not None else "assumptions": str(exc)}) from exc
    pool = request.pool or (int(fitted.leniency.size) if pilot is not None else max(_active_experts(), 25))
    measured = _seconds_per_criterion(pilot)
    if measured.seconds is None and pilot is not None:
        measured = _seconds_per_criterion(None)
    seconds = measured.seconds if measured.seconds is not None else assumptions.seconds_per_criterion
    costs = lib.Costs(seconds_per_criterion=seconds, criteria_per_item=criteria_per_item, piece_rate=request.piece_rate)
    try:
        plan = lib.plan(
            fitted,
            dataset_items=dataset_items,
            models=request.models,
            shares=request.shares,
            raters=request.raters,
            pool=pool,
            costs=costs,
            simulations=request.simulations,
            seed=request.seed,
            extension=request.extension,
        )
    except lib.PlanError as exc:
        raise ValidationError({"raters" if "raters" in str(exc) or "pool" in str(exc) else "shares": str(exc)}) from exc
    targets = request.target_agreement is not None or request.target_difference is not None
    recommended = lib.cheapest_meeting(plan, agreement=request.target_agreement, difference=request.target_difference) if targets else None
    return PlanView(
        request=request,
        plan=plan,
        pool=pool,
        seconds_per_criterion=seconds,
        seconds_measured_on=measured.assignments,
        seconds_by_tier=measured.by_tier,
        criteria_per_item=criteria_per_item,
        dataset_items=dataset_items,
        recommended=recommended,
        target_met=recommended is not None or not targets,
    )


def design_sentence(view: PlanView, design: lib.PlannedDesign) -> str:
    """One design as an admin reads it: what interval it buys, what it takes, what it costs."""
    values = {
        "agreement": design.agreement_half_width * 100,
        "share": round(design.share * 100),
        "raters": design.raters,
        "responses": design.responses,
        "hours": round(design.expert_hours),
        "money": f"{design.money:,.0f}",
    }
    text = (
        _(
            "±%(agreement).1f points of agreement needs %(share)d%% of the items with %(raters)d raters: "
            "%(responses)d responses, about %(hours)d expert hours, about ¥%(money)s."
        )
        % values
    )
    if design.extended:
        text += " " + _("With two more raters on about %(n)d responses whose verdicts split.") % {"n": design.extended_responses}
    if np.isfinite(design.difference_half_width):
        text += " " + _("A difference between two models' calibrated scores is known to ±%(diff).1f points.") % {
            "diff": design.difference_half_width
        }
    return text


def pilot_sentence(view: PlanView) -> str:
    """Which pilot the plan used, or that its figures are assumptions."""
    p = view.plan
    if view.request.pilot is None:
        a = view.request.assumptions
        return _(
            "No pilot: the figures are assumptions (the judge agrees with the experts' majority on %(agreement).0f%% of "
            "criteria, experts' leniency varies with a log-odds spread of %(sd).1f, %(seconds).0f s per criterion)."
        ) % {"agreement": a.judge_agreement * 100, "sd": a.leniency_sd, "seconds": view.seconds_per_criterion}
    return _(
        "Simulated from the pilot %(name)s: %(items)d items, %(responses)d responses, %(experts)d experts; the judge agreed "
        "with their majority on %(agreement).1f%% of criteria. %(sims)d simulated campaigns per design."
    ) % {
        "name": view.request.pilot.name,
        "items": p.pilot_items,
        "responses": p.pilot_responses,
        "experts": p.pilot_experts,
        "agreement": p.pilot_judge_agreement * 100,
        "sims": p.simulations,
    }


def plan_json(view: PlanView) -> dict[str, Any]:
    """The plan as JSON (an undefined half-width is null)."""
    return _finite(
        {
            "pilot": view.request.pilot.name if view.request.pilot else None,
            "assumed": view.assumed,
            "pilot_text": pilot_sentence(view),
            "pool": view.pool,
            "seconds_per_criterion": view.seconds_per_criterion,
            "seconds_measured_on": view.seconds_measured_on,
            "seconds_by_tier": [{"tier": t, "seconds_per_criterion": s, "assignments": n} for t, (s, n) in view.seconds_by_tier.items()],
            "dataset_items": view.dataset_items,
            "simulations": view.plan.simulations,
            "reduced": view.plan.reduced,
            "precision": view.plan.precision,
            "difference_reason": view.plan.difference_reason,
            "designs": [asdict(d) for d in view.plan.designs],
            "recommended": asdict(view.recommended) if view.recommended else None,
            "target_met": view.target_met,
        }
    )


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
