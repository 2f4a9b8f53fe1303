"""Agreement reports: compute one (command, background job) and record the release gate."""

from __future__ import annotations

import time
from datetime import datetime, timezone as dt_timezone

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Campaign
from validation.models import AgreementReport, ReleaseGate
from validation.report import DEFAULTS, compute_report
from validation.selectors import load_campaign_arrays, select_judge_runs, subset_units
from validation.services.golden import refresh_golden_labels

MAX_RESAMPLES = 100_000


def clean_parameters(
    *,
    resamples: int = DEFAULTS["resamples"],
    seed: int = DEFAULTS["seed"],
    threshold: float = DEFAULTS["threshold"],
    min_pairs_per_dimension: int = DEFAULTS["min_pairs_per_dimension"],
    exclude_catastrophic: bool = False,
) -> dict:
    """Check a report's parameters; raise ValidationError naming the bad one."""
    errors = {}
    if not isinstance(resamples, int) or not 0 <= resamples <= MAX_RESAMPLES:
        errors["resamples"] = f"must be an integer from 0 to {MAX_RESAMPLES}"
    if not isinstance(seed, int) or seed < 0:
        errors["seed"] = "must be a non-negative integer"
    if not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        errors["threshold"] = "must be a number from 0 to 1"
    if not isinstance(min_pairs_per_dimension, int) or min_pairs_per_dimension < 0:
        errors["min_pairs_per_dimension"] = "must be a non-negative integer"
    if errors:
        raise ValidationError(errors)
    return {
        "resamples": resamples,
        "seed": seed,
        "threshold": float(threshold),
        "min_pairs_per_dimension": min_pairs_per_dimension,
        "exclude_catastrophic": bool(exclude_catastrophic),
    }


def create_agreement_report(
    *,
    campaign: Campaign,
    judge: str | None = None,
    run: str | None = None,
    requested_by=None,
    trigger: str = "command",
    **options,
) -> AgreementReport:
    """Compute the agreement statistics of a campaign and store them as a new immutable report.

    The golden labels are refreshed and the report and its release gate are written in one
    transaction at the end, so an interrupted computation leaves nothing behind.
    """
    params = clean_parameters(**options)
    started = time.perf_counter()
    runs = select_judge_runs(campaign, judge=judge, run=run)
    data = load_campaign_arrays(campaign, judge_runs=runs)
    view = subset_units(data, ~data.crit_catastrophic[data.u_crit]) if params["exclude_catastrophic"] else data
    result = compute_report(
        view,
        resamples=params["resamples"],
        seed=params["seed"],
        threshold=params["threshold"],
        min_pairs_per_dimension=params["min_pairs_per_dimension"],
    )
    judge_name = runs[0].judge if runs else (judge or "")
    result = {
        "campaign": campaign.name,
        "dataset": campaign.version.dataset.name,
        "version": campaign.version.label,
        "judge": judge_name or None,
        "run": sorted({r.label for r in runs}) if runs else None,
        "parameters": params,
        **result,
    }
    if not runs:
        result["undefined"].setdefault("judge", "no judge verdicts exist for the models of this campaign")
    last = float(data.j_time.max()) if data.j_time.size else None
    inputs = {
        "campaign": {"id": campaign.pk, "name": campaign.name, "version": campaign.version.label, "k": campaign.overlap},
        "judge_runs": data.judge_runs,
        "criterion_revisions": {key: int(rev) for key, rev in zip(data.crit_lineage, data.crit_revision.tolist())},
        "judgments": int(data.j_unit.size),
        "last_judgment_at": datetime.fromtimestamp(last, tz=dt_timezone.utc).isoformat() if last else None,
        "adjudications": int((data.u_adjudicated >= 0).sum()),
        "computed_at": datetime.now(tz=dt_timezone.utc).isoformat(),
    }
    with transaction.atomic():
        refresh_golden_labels(campaign=campaign, data=data)
        report = AgreementReport.objects.create(
            campaign=campaign,
            judge=judge_name,
            run_label=run or "",
            parameters=params,
            inputs=inputs,
            result=result,
            requested_by=requested_by,
            trigger=trigger,
            duration_ms=int((time.perf_counter() - started) * 1000),
        )
        gate = result["gate"]
        ReleaseGate.objects.create(
            version=campaign.version,
            campaign=campaign,
            report=report,
            threshold=gate["threshold"],
            min_pairs_per_dimension=gate["min_pairs_per_dimension"],
            agreement_rate=gate["agreement_rate"],
            passed=gate["passed"],
            reasons=gate["reasons"],
        )
    return report


def request_agreement_report(*, campaign: Campaign, requested_by=None, trigger: str = "page", **options) -> None:
    """Queue a report computation in the background once the current transaction commits."""
    from django_q.tasks import async_task

    params = clean_parameters(**{k: v for k, v in options.items() if k not in ("judge", "run")})
    judge, run = options.get("judge") or None, options.get("run") or None
    select_judge_runs(campaign, judge=judge, run=run)  # fail now, on the page, rather than in the worker
    user_id = getattr(requested_by, "pk", None)
    transaction.on_commit(
        lambda: async_task(
            "validation.tasks.compute_agreement_report",
            campaign.pk,
            judge=judge,
            run=run,
            requested_by_id=user_id,
            trigger=trigger,
            task_name=f"agreement-report-{campaign.pk}",
            **params,
        )
    )
