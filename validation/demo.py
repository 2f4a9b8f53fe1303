"""Demo data of the validation app: a synthetic earlier blind test, its golden standard and a report.

Clearly synthetic: the judgments are the demo judge's verdicts with seeded random flips, so
the dashboard shows real computations on made-up data. Idempotent.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import numpy as np

from annotation.models import Campaign
from heartbench_core.models import Criterion, JudgeVerdict

if TYPE_CHECKING:
    from heartbench_core.demo import DemoContext

DEMO_CAMPAIGN = "demo-blind-test (synthetic judgments)"
DEMO_EXPERTS = ("expert1", "expert2", "expert3")
# P(an expert's verdict differs from the demo judge's) per expert: expert3 is the careless one.
FLIP = {"expert1": 0.08, "expert2": 0.1, "expert3": 0.2}


def seed(*, context: DemoContext) -> None:
    from validation.services.agreement_reports import create_agreement_report
    from validation.services.imports import import_judgments

    if Campaign.objects.filter(name=DEMO_CAMPAIGN).exists():
        context.log.append(f"validation: campaign {DEMO_CAMPAIGN!r} already present")
        return
    version = context.version
    rows = (
        JudgeVerdict.objects.filter(run__version=version, run__judge="demo-judge")
        .order_by("run__model__name", "response__question_id", "criterion__position")
        .values_list("run__model__name", "response__question_id", "hit")
    )
    vectors: dict[tuple[str, str], list[int]] = {}
    for model, qid, hit in rows.iterator(chunk_size=5000):
        vectors.setdefault((model, qid), []).append(int(hit))
    if not vectors:
        context.log.append("validation: no demo judge verdicts, no synthetic blind test")
        return
    rng = np.random.default_rng(7)
    questions = sorted({q for _, q in vectors})
    if context.real_data:  # a 40% sample of the questions, as a real blind test would take
        questions = sorted(rng.choice(questions, size=max(1, int(0.4 * len(questions))), replace=False).tolist())
    chosen = set(questions)
    lines = []
    for (model, qid), vec in sorted(vectors.items()):
        if qid not in chosen:
            continue
        for expert in DEMO_EXPERTS:
            detail = [v ^ int(rng.random() < FLIP[expert]) for v in vec]
            lines.append(json.dumps({"question_id": qid, "model": model, "annotator": expert, "detail": detail}, ensure_ascii=False))
    source = io.BytesIO(("\n".join(lines) + "\n").encode())
    outcome = import_judgments(
        source=source,
        dataset_name=version.dataset.name,
        campaign_name=DEMO_CAMPAIGN,
        version_label=version.label,
        name="synthetic-demo-judgments.jsonl",
    )
    if not context.real_data:
        from validation.services.release import change_release_policy, release_policy_of

        # The demo set is a handful of items: a release policy sized for it, set as an admin would, with a reason.
        if release_policy_of(version.dataset).pk is None:
            change_release_policy(
                dataset=version.dataset,
                admin=context.users["admin"],
                min_pairs_per_dimension=5,
                min_pairs_per_ability=3,
                reason="demo data: a handful of items cannot reach the minimum pairs of a real release",
            )
    report = create_agreement_report(campaign=outcome.campaign, trigger="demo")
    context.log.append(
        f"validation: campaign {DEMO_CAMPAIGN!r} with {outcome.judgments} synthetic judgments; "
        f"report #{report.pk}: agreement {report.typed_result.item_agreement.rate.value}"
    )
    _seed_cases(context, outcome.campaign)


# Decisions on three split units of the synthetic blind test, each made a case for the library (two rewritten on invented responses).
DEMO_DECISIONS = (
    (
        "ambiguous_criterion",
        "评分项没有说清楚“识别”是否需要点名情绪；说出用户的状态（“累坏了”）即算识别。",
        "说出状态也算识别情绪",
        "（虚构的回复）听起来你这段时间真的累坏了，连周末都提不起劲。",
        True,
    ),
    (
        "guideline_gap",
        "准则没有说结尾一句温和的提议算不算建议；先回应感受、再询问是否需要建议的，不算过早建议。",
        "先回应、再询问，不算过早建议",
        "（虚构的回复）这种感觉一定不好受。如果你愿意，我们可以一起想想有什么能让你轻松一点？",
        True,
    ),
    ("rater_error", "两位评审员把“我们”误看成了第二人称；“我们”是第一人称。", "“我们”是第一人称", "", False),
)


def _excerpt(text: str) -> str:
    """The opening of a response as a case's excerpt, short enough to quote no response of an open campaign.

    The synthetic responses share their openings (they come from templates), and no library text may
    share RUN characters with a response of an open campaign (annotation.knowledge.services.quotes).
    """
    from heartbench_core.lib.quotes import RUN

    return "".join(text.split())[: RUN - 1] + "…"


def _seed_cases(context: DemoContext, campaign: Campaign) -> None:
    """Adjudicate three split units of the (closed) synthetic blind test as a senior reviewer and write a case from each."""
    from annotation.knowledge.models import Case
    from annotation.knowledge.services.knowledge import CaseContent
    from validation.selectors import adjudication_units
    from validation.services.cases import case_from_adjudication
    from validation.services.golden import adjudicate

    reviewer = context.users.get("reviewer2")
    if reviewer is None or Case.objects.filter(source_campaign=campaign).exists():
        return
    splits = [e for e in adjudication_units(campaign) if e.expert_ratings >= 3 and 0 < e.expert_hits < e.expert_ratings]
    made = 0
    for (cause, note, title, invented_excerpt, invented), unit in zip(DEMO_DECISIONS, splits[:: max(1, len(splits) // 3)]):
        entry = campaign.responses.select_related("response").get(pk=unit.campaign_response_id)
        criterion = Criterion.objects.get(pk=unit.criterion_id)
        decision = adjudicate(
            reviewer=reviewer,
            campaign_response=entry,
            criterion=criterion,
            hit=unit.expert_hits * 2 > unit.expert_ratings,
            cause=cause,
            note=note,
        )
        excerpt = invented_excerpt if invented else _excerpt(entry.response.text)
        content = CaseContent(title=title, excerpt=excerpt, hit=None, reasoning=note, cause=cause, tags=["demo"], invented=invented)
        case_from_adjudication(author=reviewer, adjudication=decision, content=content, publish=True)
        made += 1
    context.log.append(f"validation: {made} demo adjudications, each made a published case")
