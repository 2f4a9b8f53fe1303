"""Agreement reports: compute one (command, background job) and record the release gate.

A report is official only when computed with the dataset's release policy (threshold, minimum pairs,
what must clear the threshold) and the default resamples and seed, on every criterion. Any other
report is exploratory: it is stored and shown, marked as such, and never sets the release gate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import Campaign
from heartbench_core.lib.agreement_report import (
    DEFAULTS,
    GatePolicy,
    InputsCampaign,
    JudgeRunInput,
    Parameters,
    PostDiscussion,
    ReportInputs,
    compute_report,
)
from heartbench_core.lib.reasons import Reason
from validation.models import AgreementReport, BackgroundJob, ReleaseGate, ReleasePolicy
from validation.scoring_population import scoring_population
from validation.selectors import load_campaign_arrays, select_judge_runs, subset_units
from validation.services.calibrated_index import write_calibrated_index
from validation.services.golden import refresh_golden_labels
from validation.services.release import policy_snapshot, release_policy_of

if TYPE_CHECKING:
    from heartbench_core.models import User

MAX_RESAMPLES = 100_000


class ReportOptions(TypedDict, total=False):
    """What a request may choose of a report (`clean_parameters` checks it); a gate rule left None is the release policy's."""

    resamples: int
    seed: int
    threshold: float | None
    min_pairs_per_dimension: int | None
    min_pairs_per_ability: int | None
    must_clear: str | None
    exclude_catastrophic: bool
    post_discussion: bool


def clean_parameters(
    *,
    resamples: int = DEFAULTS.resamples,
    seed: int = DEFAULTS.seed,
    threshold: float | None = None,
    min_pairs_per_dimension: int | None = None,
    min_pairs_per_ability: int | None = None,
    must_clear: str | None = None,
    exclude_catastrophic: bool = False,
    post_discussion: bool = False,
) -> dict[str, Any]:
    """Check a report's parameters; raise ValidationError naming the bad one. None means "the release policy's"."""
    errors: dict[str, str] = {}
    if not isinstance(resamples, int) or not 0 <= resamples <= MAX_RESAMPLES:
        errors["resamples"] = _("must be an integer from 0 to %(max)s") % {"max": MAX_RESAMPLES}
    if not isinstance(seed, int) or seed < 0:
        errors["seed"] = _("must be a non-negative integer")
    if threshold is not None and (not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1):
        errors["threshold"] = _("must be a number from 0 to 1")
    if min_pairs_per_dimension is not None and (not isinstance(min_pairs_per_dimension, int) or min_pairs_per_dimension < 0):
        errors["min_pairs_per_dimension"] = _("must be a non-negative integer")
    if min_pairs_per_ability is not None and (not isinstance(min_pairs_per_ability, int) or min_pairs_per_ability < 0):
        errors["min_pairs_per_ability"] = _("must be a non-negative integer")
    if must_clear is not None and must_clear not in ReleasePolicy.Clears.values:
        errors["must_clear"] = _("choose one of: %(choices)s") % {"choices": ", ".join(ReleasePolicy.Clears.values)}
    if errors:
        raise ValidationError(errors)
    return {
        "resamples": resamples,
        "seed": seed,
        "threshold": None if threshold is None else float(threshold),
        "min_pairs_per_dimension": min_pairs_per_dimension,
        "min_pairs_per_ability": min_pairs_per_ability,
        "must_clear": must_clear,
        "exclude_catastrophic": bool(exclude_catastrophic),
        # Post-discussion revisions replace the blind verdicts: an exploratory view, never the default.
        "post_discussion": bool(post_discussion),
    }


def apply_release_policy(params: dict[str, Any], policy: ReleasePolicy) -> tuple[dict[str, Any], list[Reason]]:
    """Fill the gate parameters left unset from the policy; return them and why the report is exploratory (empty: official).

    The reasons are stored with the report in English, like the statistics' own reasons, and read
    in each reader's language through `heartbench_core.stat_reasons.reason_text`.
    """
    rules = policy_snapshot(policy)
    # A rule the request left unset (None) or cannot set (the alternative annotator test's margin) is the policy's.
    params = {**params, **{k: v for k, v in rules.items() if params.get(k) is None}}
    reasons = [
        Reason("off_policy", parameter=name, value=params[name], policy=value) for name, value in rules.items() if params[name] != value
    ]
    # A different seed or resample count could be tried until the lower bound clears.
    reasons += [
        Reason("off_default", parameter=name, value=params[name], default=default)
        for name, default in (("resamples", DEFAULTS.resamples), ("seed", DEFAULTS.seed))
        if params[name] != default
    ]
    if params.get("exclude_catastrophic"):
        reasons.append(Reason("catastrophic_excluded"))
    if params.get("post_discussion"):
        reasons.append(Reason("post_discussion"))
    return params, reasons


def create_agreement_report(
    *,
    campaign: Campaign,
    judge: str | None = None,
    run: str | None = None,
    requested_by: User | None = None,
    trigger: str = "command",
    **options: Unpack[ReportOptions],
) -> AgreementReport:
    """Compute the agreement statistics of a campaign and store them as a new immutable report.

    The golden labels are refreshed and the report and its release gate are written in one
    transaction at the end, so an interrupted computation leaves nothing behind.
    """
    started = time.perf_counter()
    policy = release_policy_of(campaign.version.dataset)
    params, exploratory = apply_release_policy(clean_parameters(**options), policy)
    runs = select_judge_runs(campaign, judge=judge, run=run)
    data = load_campaign_arrays(campaign, judge_runs=runs, post_discussion=params["post_discussion"])
    view = subset_units(data, ~data.crit_catastrophic[data.u_crit]) if params["exclude_catastrophic"] else data
    judge_name = runs[0].judge if runs else (judge or "")
    post = data.revisions if params["post_discussion"] else None
    result = replace(
        compute_report(
            view,
            resamples=params["resamples"],
            seed=params["seed"],
            gate_policy=GatePolicy(**{k: params[k] for k in policy_snapshot(policy)}),
            population=scoring_population(campaign, runs, exclude_catastrophic=params["exclude_catastrophic"]),
        ),
        campaign=campaign.name,
        dataset=campaign.version.dataset.name,
        version=campaign.version.label,
        judge=judge_name or None,
        run=tuple(sorted({r.label for r in runs})) if runs else None,
        parameters=Parameters(**params),
        no_judge_reason=None if runs else Reason("no_judge_runs"),
        exploratory=bool(exploratory),
        exploratory_reasons=tuple(exploratory),
        post_discussion=None if post is None else PostDiscussion(note=_("post-discussion revisions included"), **post),
    )
    last = float(data.j_time.max()) if data.j_time.size else None
    inputs = ReportInputs(
        campaign=InputsCampaign(id=campaign.pk, name=campaign.name, version=campaign.version.label, k=campaign.overlap),
        judge_runs=tuple(JudgeRunInput(**r) for r in data.judge_runs),
        criterion_revisions={key: int(rev) for key, rev in zip(data.crit_lineage, data.crit_revision.tolist())},
        judgments=int(data.j_unit.size),
        last_judgment_at=datetime.fromtimestamp(last, tz=UTC).isoformat() if last else None,
        adjudications=int((data.u_adjudicated >= 0).sum()),
        computed_at=datetime.now(tz=UTC).isoformat(),
    )
    with transaction.atomic():
        if not params["post_discussion"]:  # the stored golden labels stay on the blind verdicts
            refresh_golden_labels(campaign=campaign, data=data)
        report = AgreementReport.objects.create(
            campaign=campaign,
            judge=judge_name,
            run_label=run or "",
            parameters=params,
            inputs=inputs.to_dict(),
            result=result.to_dict(),
            requested_by=requested_by,
            trigger=trigger,
            duration_ms=int((time.perf_counter() - started) * 1000),
            exploratory=bool(exploratory),
        )
        if not exploratory:  # what the leaderboard reads of it (official reports only), copied out of the result now
            write_calibrated_index(report.pk, result.calibrated_scores, result.alt_test.overall if result.alt_test else None, result.run)
        if not exploratory:  # only a report computed under the release policy decides the release
            gate = result.gate
            ReleaseGate.objects.create(
                version=campaign.version,
                campaign=campaign,
                report=report,
                threshold=gate.threshold,
                min_pairs_per_dimension=gate.min_pairs_per_dimension,
                agreement_rate=gate.agreement_rate.value,
                passed=gate.passed,
                reasons=list(gate.reasons),
                policy=gate.policy.as_dict(),
                ci_low=gate.ci_low,
            )
    return report


@dataclass(frozen=True)
class ReportRequest:
    """A requested report: its background job, and why it will be exploratory (empty: official)."""

    job: BackgroundJob
    exploratory: list[Reason]


def request_agreement_report(
    *,
    campaign: Campaign,
    requested_by: User | None = None,
    trigger: str = "page",
    judge: str | None = None,
    run: str | None = None,
    **options: Unpack[ReportOptions],
) -> ReportRequest:
    """Record a report computation as a background job, queued once the current transaction commits.

    The job row outlives any worker: if the one computing it dies, the sweep hands it to another.
    """
    from validation.services.jobs import record_job

    params = clean_parameters(**options)
    judge, run = judge or None, run or None
    select_judge_runs(campaign, judge=judge, run=run)  # fail now, on the page, rather than in the worker
    with transaction.atomic():
        job = record_job(
            kind=BackgroundJob.Kind.AGREEMENT_REPORT,
            campaign=campaign,
            parameters={"judge": judge, "run": run, **params},
            requested_by=requested_by,
            trigger=trigger,
        )
    return ReportRequest(job=job, exploratory=apply_release_policy(params, release_policy_of(campaign.version.dataset))[1])
