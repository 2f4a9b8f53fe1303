"""Time bulk pre-assignment of 1,658 responses × k=3 among 25 experts, and count the queries of a pull.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/assignment.py [--runs 5]
      .venv/bin/python benchmarks/assignment.py            # SQLite, for comparison
It creates and drops a throw-away database (test_bench_assignment, or a SQLite file), so it never touches real data.
The items are the released question_all.jsonl (296 items) when present, else the demo items;
responses are synthetic rows of six benchmark models. Prints min / median / max seconds of
`bulk_assign` and the number of queries (and time) of `assign_next_response` on a small and on
the full campaign, half-assigned.
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

RESPONSES = 1658
EXPERTS = 25
K = 3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.db.models import Count
    from django.test.utils import CaptureQueriesContext, setup_databases, teardown_databases

    from annotation.models import Assignment, CampaignResponse, ExpertProfile, Qualification
    from annotation.services.assignment import assign_next_response, bulk_assign
    from annotation.services.campaigns import create_campaign
    from heartbench_core.models import LanguageModel, ModelResponse, User
    from heartbench_core.services.datasets import import_heartbench

    # A database of its own, so a test run against the same server is never disturbed.
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = "test_bench_assignment"
    path = Path(settings.HEARTBENCH_DIR) / "question_all.jsonl"
    if not path.exists():
        path = ROOT / "fixtures" / "demo_items.jsonl"
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        version = import_heartbench(source=path, dataset_name="bench").version
        qids = list(version.items.order_by("position").values_list("question_id", flat=True))
        models = [LanguageModel.objects.create(name=f"bench-model-{i}") for i in range(1, 7)]
        ModelResponse.objects.bulk_create(
            [
                ModelResponse(
                    dataset=version.dataset, question_id=q, model=m, text=f"(benchmark response {m.name} to {q})", imported_for=version
                )
                for m in models
                for q in qids
            ],
            batch_size=2000,
        )
        group, _ = Group.objects.get_or_create(name="expert")
        experts = [User.objects.create(username=f"bench_expert{i:02d}") for i in range(EXPERTS)]
        for u in experts:
            u.groups.add(group)
            ExpertProfile.objects.create(user=u, capacity=400, specialties=["Emotion"] if u.pk % 2 else ["Social"])
            Qualification.objects.create(expert=u, dimension="", source="admin", reason="benchmark")

        def campaign_of(name, size):
            campaign = create_campaign(
                name=name, dataset_name="bench", model_names=[m.name for m in models], sample_fraction=1.0, overlap=K, seed=1
            ).campaign
            extra = list(CampaignResponse.objects.filter(campaign=campaign).order_by("-order_key").values_list("pk", flat=True))
            CampaignResponse.objects.filter(pk__in=extra[: max(0, len(extra) - size)]).delete()
            return campaign

        big = campaign_of("bench-big", RESPONSES)
        n = big.responses.count()
        times = []
        for run in range(args.runs):
            Assignment.objects.all().delete()
            start = time.perf_counter()
            if run == 0 and os.environ.get("PROFILE"):
                import cProfile

                cProfile.runctx("bulk_assign(campaign=big)", globals(), {"bulk_assign": bulk_assign, "big": big}, sort="cumtime")
            made = bulk_assign(campaign=big).made
            times.append(time.perf_counter() - start)
        print(f"{connection.vendor}: bulk_assign of {n} responses × k={K} among {EXPERTS} experts -> {made} assignments, {args.runs} runs")
        print(f"  min {min(times):.3f}s  median {statistics.median(times):.3f}s  max {max(times):.3f}s")

        small = campaign_of("bench-small", 100)
        # Half-fill both campaigns so the pull works against a realistic mix of taken and open slots.
        Assignment.objects.all().delete()
        for campaign in (small, big):
            rows = list(campaign.responses.order_by("order_key").values_list("pk", flat=True))
            Assignment.objects.bulk_create(
                [
                    Assignment(campaign_response_id=cr, expert=experts[(i + j) % (EXPERTS - 1)], status="submitted")
                    for i, cr in enumerate(rows[: len(rows) // 2])
                    for j in range(2)
                ],
                batch_size=2000,
            )
        last = experts[-1]
        if os.environ.get("EXPLAIN"):
            from django.utils import timezone

            from annotation.models import AssignmentQuerySet
            from annotation.services.assignment import _eligible, campaign_settings

            prof = ExpertProfile.objects.get(user=last)
            qs = (
                _eligible(big, prof, campaign_settings(big), {""})
                .annotate(live_n=Count("assignments", filter=AssignmentQuerySet.live_q(timezone.now(), through="assignments")))
                .values_list("pk", "item_id", "order_key", "live_n", "item__primary_scene")
            )
            print(qs.explain(analyze=True))
        for campaign in (small, big):
            counts, secs = [], []
            for _ in range(5):
                with CaptureQueriesContext(connection) as ctx:
                    start = time.perf_counter()
                    a = assign_next_response(expert=last, campaign=campaign)
                    secs.append(time.perf_counter() - start)
                counts.append(len(ctx.captured_queries))
                Assignment.objects.filter(pk=a.pk).update(status="submitted")
            if os.environ.get("QUERIES"):
                for q in ctx.captured_queries:
                    print("   ", q["time"], q["sql"][:150])
            print(
                f"  assign_next_response on {campaign.responses.count()} responses: queries {counts}, "
                f"median {statistics.median(secs) * 1000:.1f} ms"
            )
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
