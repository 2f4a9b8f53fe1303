"""The risk checks on a running blind test's statistics, registered with annotation's scheduled check.

Both read a campaign the way the golden standard does (`load_campaign_arrays`: blind verdicts, gold
checks left out, stale criteria left out) and compute with the one agreement implementation
(`heartbench_core.lib.agreement`):

- a criterion on which the experts agree little: Krippendorff's alpha (nominal) among the experts
  of the campaign below `LOW_ALPHA`, over at least `ALPHA_MIN_UNITS` responses rated by two or
  more experts;
- a model on which the judge disagrees with the experts' majority: the share of (response,
  criterion) units where the judge's verdict equals the experts' majority label below
  `JUDGE_MIN_AGREEMENT`, over at least `JUDGE_MIN_UNITS` units with both.
"""

from __future__ import annotations

import numpy as np
from django.core.exceptions import ValidationError

from annotation.models import AdminAlert, Campaign
from annotation.services.risks import RiskFinding, register_risk_check
from heartbench_core.lib.agreement import binary_alpha_by_group, judge_majority_agreement
from heartbench_core.models import LanguageModel
from validation.selectors import CampaignArrays, load_campaign_arrays, select_judge_runs

LOW_ALPHA = 0.4
ALPHA_MIN_UNITS = 5  # responses of the criterion's item rated by two or more experts
ALPHA_MIN_RATINGS = 10
JUDGE_MIN_AGREEMENT = 0.7
JUDGE_MIN_UNITS = 20  # (response, criterion) units with a judge verdict and a majority label


def running_blind_tests() -> list[Campaign]:
    """Blind tests still taking judgments (active or paused)."""
    return list(
        Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, status__in=[Campaign.Status.ACTIVE, Campaign.Status.PAUSED])
        .select_related("version__dataset")
        .order_by("pk")
    )


def criterion_alpha_findings(campaign: Campaign, data: CampaignArrays) -> list[RiskFinding]:
    """Criteria of the campaign whose alpha among its experts is defined, counted on enough units, and low."""
    if not data.n_units:
        return []
    hits, ratings = data.unit_counts()
    alpha, units, n_ratings = binary_alpha_by_group(hits, ratings, data.u_crit, len(data.crit_id))
    findings = []
    for c in np.flatnonzero((units >= ALPHA_MIN_UNITS) & (n_ratings >= ALPHA_MIN_RATINGS) & ~np.isnan(alpha) & (alpha < LOW_ALPHA)):
        criterion_id = int(data.crit_id[c])
        question = data.item_question[int(data.crit_item[c])]
        value = float(alpha[c])
        findings.append(
            RiskFinding(
                kind=AdminAlert.Kind.CRITERION_LOW_ALPHA,
                key=f"criterion_low_alpha:{campaign.pk}:{criterion_id}",
                message=(
                    f"Experts of {campaign.name} agree little on criterion {int(data.crit_position[c]) + 1} of {question}: "
                    f"Krippendorff's alpha {value:.2f} over {int(units[c])} responses ({int(n_ratings[c])} ratings), below {LOW_ALPHA:.2f}."
                ),
                details={
                    "value": value,
                    "threshold": LOW_ALPHA,
                    "units": int(units[c]),
                    "ratings": int(n_ratings[c]),
                    "question_id": question,
                    "position": int(data.crit_position[c]) + 1,
                    "campaign": campaign.name,
                },
                campaign_id=campaign.pk,
                criterion_id=criterion_id,
            )
        )
    return findings


def judge_model_findings(campaign: Campaign, data: CampaignArrays) -> list[RiskFinding]:
    """Models of the campaign on which the judge's verdicts match the experts' majority too rarely, over enough units."""
    if not data.n_units or not data.judge_runs:
        return []
    hits, ratings = data.unit_counts()
    judged = data.u_judge >= 0
    unit_model = data.cr_model[data.u_cr]
    ids = dict(LanguageModel.objects.filter(name__in=data.model_names).values_list("name", "pk"))
    findings = []
    for m, name in enumerate(data.model_names):
        mine = judged & (unit_model == m)
        stat = judge_majority_agreement(data.u_judge[mine] == 1, hits[mine], ratings[mine])
        if stat.value is None or stat.n < JUDGE_MIN_UNITS or stat.value >= JUDGE_MIN_AGREEMENT:
            continue
        findings.append(
            RiskFinding(
                kind=AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL,
                key=f"judge_model:{campaign.pk}:{ids.get(name, name)}",
                message=(
                    f"On {name} in {campaign.name}, the judge matches the experts' majority on {stat.value:.0%} of "
                    f"{stat.n} criteria judged, below {JUDGE_MIN_AGREEMENT:.0%}."
                ),
                details={
                    "value": stat.value,
                    "threshold": JUDGE_MIN_AGREEMENT,
                    "units": stat.n,
                    "without_majority": int(stat.extra.get("without_majority", 0)),
                    "model": name,
                    "campaign": campaign.name,
                },
                campaign_id=campaign.pk,
                language_model_id=ids.get(name),
            )
        )
    return findings


def campaign_statistics_findings() -> list[RiskFinding]:
    """Both checks on every running blind test, loading each campaign's arrays once."""
    findings: list[RiskFinding] = []
    for campaign in running_blind_tests():
        try:
            runs = select_judge_runs(campaign)
        except ValidationError:
            runs = []  # several judges and none chosen: the judge check waits for a report to pick one
        data = load_campaign_arrays(campaign, judge_runs=runs)
        findings += criterion_alpha_findings(campaign, data)
        findings += judge_model_findings(campaign, data)
    return findings


def register() -> None:
    """Called from ValidationConfig.ready."""
    register_risk_check("campaign_statistics", campaign_statistics_findings)
