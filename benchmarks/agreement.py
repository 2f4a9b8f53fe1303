"""Time the whole agreement report on a HeartBench-sized blind test, and at 10× that size.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/agreement.py [--runs 3] [--scales 1,10]

It builds, in a throw-away database (test_agreement_bench_<pid>, dropped at the end), the released HeartBench
items, fictional models with synthetic responses, a blind-test campaign over 40% of the items
(× 14 models at scale 1: ≈ 1,658 responses, ≈ 15,800 (response, criterion) pairs), three
expert judgments per response (≈ 47,000) and a judge verdict on every pair, and ANALYZEs it as
autovacuum would. It then times, alternating the two so machine load affects both alike:

- report: `create_agreement_report` with 1,000 bootstrap resamples of the items (every interval
  resamples whole items, all of an item's responses together) — loading everything from the
  database, refreshing the golden labels, every statistic, and writing the report and its gate
  (the first run also creates the golden labels; the median is over the runs after it);
- direct: the same statistics computed by `compute_report` on the in-memory arrays only
  (NumPy/SciPy/krippendorff, no database), which is the floor the report is compared with.

Scale s multiplies the responses by s (more models; at s ≥ 3 every item is sampled).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS_AT_SCALE_1 = 14
SAMPLE = 0.4
EXPERTS = 30
K = 3


def build(scale: int, seed: int = 0, *, rationale: str = "", judge_rationale: str = "", text_repeat: int = 1):
    """A HeartBench-sized blind test with judge verdicts and three submitted expert judgments per pair.

    The rationales and the response text's length matter to backups, not to the statistics.
    """
    import numpy as np
    from django.conf import settings

    from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
    from heartbench_core.models import Criterion, Item, JudgeRun, JudgeVerdict, LanguageModel, ModelResponse
    from heartbench_core.roles import Role
    from heartbench_core.services.datasets import import_heartbench
    from tests.conftest import make_user

    rng = np.random.default_rng(seed)
    name = f"bench{scale}"
    version = import_heartbench(source=Path(settings.HEARTBENCH_DIR) / "question_all.jsonl", dataset_name=name).version
    items = list(Item.objects.filter(version=version).order_by("position").values_list("id", "question_id"))
    target = round(SAMPLE * len(items) * MODELS_AT_SCALE_1) * scale
    n_items = min(len(items), round(SAMPLE * len(items)) * scale)
    n_models = int(np.ceil(target / n_items))
    chosen = [items[i] for i in sorted(rng.choice(len(items), size=n_items, replace=False))]
    models = [LanguageModel.objects.get_or_create(name=f"bench-model-{scale}-{m:03d}")[0] for m in range(n_models)]
    responses = ModelResponse.objects.bulk_create(
        [
            ModelResponse(
                dataset=version.dataset,
                question_id=qid,
                model=m,
                text=f"synthetic answer {m.pk}/{qid} " * text_repeat,
                imported_for=version,
            )
            for m in models
            for _, qid in chosen
        ][:target],
        batch_size=5000,
    )
    item_of = {qid: iid for iid, qid in chosen}
    campaign = Campaign.objects.create(name=f"bench-{scale}", version=version, overlap=K, status=Campaign.Status.CLOSED)
    crs = CampaignResponse.objects.bulk_create(
        [CampaignResponse(campaign=campaign, response=r, item_id=item_of[r.question_id], order_key=i) for i, r in enumerate(responses)],
        batch_size=5000,
    )
    criteria: dict[int, list[tuple[int, int]]] = {}
    for cid, iid, weight in (
        Criterion.objects.filter(item__version=version).order_by("item_id", "position").values_list("id", "item_id", "weight")
    ):
        criteria.setdefault(iid, []).append((cid, weight or 0))
    experts = [make_user(f"bench_expert_{scale}_{e:02d}", Role.EXPERT) for e in range(EXPERTS)]
    campaign.experts.set(experts)
    expert_skill = rng.uniform(0.05, 0.2, EXPERTS)
    runs = {m.pk: JudgeRun.objects.create(version=version, model=m, judge="bench-judge") for m in models}
    verdicts, assignments, planned = [], [], []
    for cr, r in zip(crs, responses):
        crits = criteria[cr.item_id]
        truth = rng.random(len(crits)) < np.where(np.array([w for _, w in crits]) > 0, 0.6, 0.15)
        judge = truth ^ (rng.random(len(crits)) < 0.12)
        verdicts.extend(
            JudgeVerdict(run=runs[r.model_id], response=r, criterion_id=c, hit=bool(h), rationale=judge_rationale)
            for (c, _), h in zip(crits, judge)
        )
        for e in rng.choice(EXPERTS, size=K, replace=False):
            assignments.append(Assignment(campaign_response=cr, expert=experts[e], status=Assignment.Status.RESERVED))
            planned.append((crits, truth ^ (rng.random(len(crits)) < expert_skill[e])))
    JudgeVerdict.objects.bulk_create(verdicts, batch_size=10000)
    Assignment.objects.bulk_create(assignments, batch_size=5000)
    Judgment.objects.bulk_create(
        [
            Judgment(assignment=a, criterion_id=c, hit=bool(h), rationale=rationale)
            for a, (crits, hits) in zip(assignments, planned)
            for (c, _), h in zip(crits, hits)
        ],
        batch_size=10000,
    )
    Assignment.objects.filter(campaign_response__campaign=campaign).update(
        status=Assignment.Status.SUBMITTED, submitted_at=campaign.created_at
    )
    from django.db import connection

    if connection.vendor == "postgresql":
        # A live database has planner statistics (autovacuum keeps them); freshly bulk-loaded
        # tables have none until autovacuum passes, and the planner then picks nested loops.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return campaign, len(responses), len(verdicts), sum(len(c) for c, _ in planned)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scales", default="1,10")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        # Another run (or a test suite) may be using test_<name> at the same time.
        settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_agreement_bench_{os.getpid()}"
    from django.test.utils import setup_databases, teardown_databases

    from heartbench_core.lib.agreement_report import compute_report
    from validation.selectors import load_campaign_arrays, select_judge_runs
    from validation.services.agreement_reports import create_agreement_report

    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        for scale in (int(s) for s in args.scales.split(",")):
            t0 = time.perf_counter()
            campaign, n_responses, n_verdicts, n_judgments = build(scale)
            print(
                f"{connection.vendor} scale {scale}: {n_responses} responses, {n_verdicts} pairs with verdicts, "
                f"{n_judgments} judgments (built in {time.perf_counter() - t0:.0f}s)"
            )
            first = time.perf_counter()
            report = create_agreement_report(campaign=campaign, resamples=args.resamples)
            first = time.perf_counter() - first
            runs = select_judge_runs(campaign)
            totals, loads, directs = [], [], []
            # Report, load and direct computation alternate, so a change in the machine's load
            # between them affects all three alike.
            for _ in range(args.runs):
                start = time.perf_counter()
                report = create_agreement_report(campaign=campaign, resamples=args.resamples)
                totals.append(time.perf_counter() - start)
                start = time.perf_counter()
                data = load_campaign_arrays(campaign, judge_runs=runs)
                loads.append(time.perf_counter() - start)
                start = time.perf_counter()
                compute_report(data, resamples=args.resamples)
                directs.append(time.perf_counter() - start)
            r = report.typed_result
            total, direct = statistics.median(totals), statistics.median(directs)
            print(f"  load average {os.getloadavg()[0]:.2f} (1 min) at the end")
            print(
                f"  pairs {r.pairs}, agreement {r.item_agreement.rate.value:.3f} CI {r.item_agreement.ci95.pair()}, alpha {r.krippendorff_alpha.value:.3f}"
            )
            print(f"  intervals: {r.resampled.resamples} resamples of the {r.resampled.units} {r.resampled.unit}s")
            print(f"  report (first run, creates golden labels): {first:.2f}s")
            print(f"  report median of {args.runs}: {total:.2f}s  (load arrays {statistics.median(loads):.2f}s)")
            print(f"  direct statistics on in-memory arrays, median: {direct:.2f}s  → report / direct = {total / direct:.2f}×")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
