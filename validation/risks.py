"""The risk checks on a running blind test's statistics, registered with annotation's scheduled check.

Both read a campaign the way the golden standard does (`load_campaign_arrays`: blind verdicts, gold
checks left out, stale criteria left out), wait for the campaign's k ratings as its golden
standard does (`MajorityRule(min_ratings=k)`), and compute with the one agreement implementation
(`heartbench_core.lib.agreement`):

- a criterion the experts split on: more of its responses split than the campaign's other criteria
  make likely (`agreement.criterion_splits`: at least 2 split, one-sided binomial p ≤ 0.05), which
  works from 2 models on;
- a model on which the judge disagrees with the experts' majority: the share of (response,
  criterion) units where the judge's verdict equals the experts' majority label below
  `JUDGE_MIN_AGREEMENT`, over at least `JUDGE_MIN_UNITS` units with both.
"""

from __future__ import annotations

import numpy as np

from annotation.models import AdminAlert, Campaign
from annotation.services.risks import RiskFinding, register_risk_check
from heartbench_core.lib.agreement import SPLIT_LEVEL, MajorityRule, criterion_splits, judge_majority_agreement
from heartbench_core.models import LanguageModel
from validation.selectors import CampaignArrays, judged_arrays

JUDGE_MIN_AGREEMENT = 0.7
JUDGE_MIN_UNITS = 20  # (response, criterion) units with a judge verdict and a majority label


def running_blind_tests() -> list[Campaign]:
    """Blind tests still taking judgments (active or paused)."""
    return list(
        Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, status__in=[Campaign.Status.ACTIVE, Campaign.Status.PAUSED])
        .select_related("version__dataset")
        .order_by("pk")
    )


def criterion_split_findings(campaign: Campaign, data: CampaignArrays) -> list[RiskFinding]:
    """Criteria of the campaign whose experts split on more of its responses than the other criteria make likely."""
    if not data.n_units:
        return []
    hits, ratings = data.unit_counts()
    splits = criterion_splits(hits, ratings, data.u_crit, len(data.crit_id), min_ratings=data.k)
    findings = []
    for c in np.flatnonzero(splits.flagged).tolist():
        criterion_id = int(data.crit_id[c])
        question = data.item_question[int(data.crit_item[c])]
        split, units, others = int(splits.split[c]), int(splits.units[c]), float(splits.others_rate[c])
        p_value = float(splits.p_value[c])
        findings.append(
            RiskFinding(
                kind=AdminAlert.Kind.CRITERION_LOW_ALPHA,
                key=f"criterion_low_alpha:{campaign.pk}:{criterion_id}",
                message=(
                    f"Experts of {campaign.name} split on criterion {int(data.crit_position[c]) + 1} of {question}: "
                    f"on {split} of {units} responses ({int(splits.ratings[c])} ratings), against {others:.0%} of the other "
                    f"criteria's {int(splits.others_units[c])} (p = {p_value:.3f})."
                ),
                details={
                    "signal": "split",
                    "split": split,
                    "units": units,
                    "ratings": int(splits.ratings[c]),
                    "others_rate": others,
                    "others_units": int(splits.others_units[c]),
                    "p_value": p_value,
                    "threshold": SPLIT_LEVEL,
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
    rule = MajorityRule(min_ratings=max(data.k, 1))  # the campaign's k, as its golden standard and report
    judged = data.u_judge >= 0
    unit_model = data.cr_model[data.u_cr]
    ids = dict(LanguageModel.objects.filter(name__in=data.model_names).values_list("name", "pk"))
    findings = []
    for m, name in enumerate(data.model_names):
        mine = judged & (unit_model == m)
        stat = judge_majority_agreement(data.u_judge[mine] == 1, hits[mine], ratings[mine], rule)
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
        data = judged_arrays(campaign)
        findings += criterion_split_findings(campaign, data)
        findings += judge_model_findings(campaign, data)
    return findings


def register() -> None:
    """Called from ValidationConfig.ready."""
    register_risk_check("campaign_statistics", campaign_statistics_findings)
