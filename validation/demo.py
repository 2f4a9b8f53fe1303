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
from heartbench_core.models import JudgeVerdict

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
