"""Time the server side of the rubric authors' work list on the released HeartBench items with a blind test's judgments.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/rubric_work_list.py [--runs 30]
      .venv/bin/python benchmarks/rubric_work_list.py          # SQLite
It builds, in a throw-away database (test_rubric_work_list_bench_<pid>, or a temporary SQLite file), the
HeartBench-sized blind test of `benchmarks/agreement.py` (released items, 40% sample × 14 models,
≈ 1,658 responses, three expert judgments on every (response, criterion): ≈ 51,000 judgments, and
a judge verdict on every pair), then what the authors' list also holds: 150 open unclear reports
from the experts, 40 open flags (half from adjudication), and 60 criteria whose meaning changed
after they were judged (their judgments and verdicts are stale). It ANALYZEs the tables as
autovacuum would.

Each run is one full request through Django's test client (middleware, session, view, template)
as a rubric author; the first requests warm caches and are not counted. Prints min / median / p95
ms for the first page, a filtered htmx request, a later page, and the row count.
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


def add_work(campaign, seed: int = 1) -> None:
    """Unclear reports, flags and stale criteria on top of the blind test's judgments."""
    import numpy as np

    from annotation.models import Assignment, UnclearCriterionReport
    from heartbench_core.models import Criterion, CriterionLineage
    from rubrics.models import CriterionFlag

    rng = np.random.default_rng(seed)
    assignments = list(Assignment.objects.filter(campaign_response__campaign=campaign).values_list("id", "campaign_response__item_id"))
    criteria: dict[int, list[int]] = {}
    for cid, item_id in Criterion.objects.filter(item__version=campaign.version).values_list("id", "item_id"):
        criteria.setdefault(item_id, []).append(cid)
    reports = []
    for i in rng.choice(len(assignments), size=150, replace=False).tolist():
        assignment_id, item_id = assignments[i]
        reports.append(
            UnclearCriterionReport(
                assignment_id=assignment_id, criterion_id=int(rng.choice(criteria[item_id])), comment="哪一种情绪？说明不清楚"
            )
        )
    UnclearCriterionReport.objects.bulk_create(reports)
    lineages = list(CriterionLineage.objects.filter(dataset=campaign.version.dataset).values_list("key", flat=True))
    picked = rng.choice(len(lineages), size=100, replace=False).tolist()
    CriterionFlag.objects.bulk_create(
        [
            CriterionFlag(lineage_id=lineages[i], reason="rater error on a vague criterion", source="adjudication" if n % 2 else "author")
            for n, i in enumerate(picked[:40])
        ]
    )
    # A semantic change approved after the judgments: they and the verdicts are now stale.
    for i in picked[40:]:
        CriterionLineage.objects.filter(key=lineages[i]).update(meaning_revision=2, current_revision=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", action="store_true", help="print where the time of one first-page request goes")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_rubric_work_list_bench_{os.getpid()}"
    # No setup_test_environment(): its template instrumentation copies every context and would be measured too.
    settings.ALLOWED_HOSTS = ["testserver"]
    from django.test import Client
    from django.test.utils import setup_databases, teardown_databases

    from benchmarks.agreement import build
    from heartbench_core.roles import Role
    from rubrics.selectors import compute_work_signals as compute_signals
    from tests.conftest import make_user

    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        t0 = time.perf_counter()
        campaign, n_responses, n_verdicts, n_judgments = build(1)
        add_work(campaign)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        print(
            f"{connection.vendor}: {n_responses} responses, {n_verdicts} verdicts, {n_judgments} judgments "
            f"(built in {time.perf_counter() - t0:.0f}s)"
        )
        author = make_user("bench_author", Role.RUBRIC_AUTHOR)
        client = Client()
        client.force_login(author)

        def measure(call):
            for _ in range(3):
                call()
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                response = call()
                times.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200, response.status_code
            times.sort()
            return times[0], statistics.median(times), times[max(int(0.95 * len(times)) - 1, 0)]

        from rubrics.selectors import work_list

        client.get("/rubrics/")  # the first request computes the signals and caches them
        print(f"  {len(work_list(campaign.version.dataset))} entries on the work list")
        for _ in range(3):
            start = time.perf_counter()
            cold = compute_signals(campaign.version.dataset)
            print(
                f"  computing the signals (what a request after new submissions waits for): {(time.perf_counter() - start) * 1000:.0f} ms, {len(cold)} criteria with a signal"
            )
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            client.get("/rubrics/")
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        for label, call in (
            ("first page", lambda: client.get("/rubrics/")),
            ("filtered (htmx)", lambda: client.get("/rubrics/", {"signal": "unclear", "sort": "severity"}, HTTP_HX_REQUEST="true")),
            ("page 3", lambda: client.get("/rubrics/", {"page": 3})),
        ):
            low, median, p95 = measure(call)
            print(f"  {label:16s} min {low:.1f} ms  median {median:.1f} ms  p95 {p95:.1f} ms")
        print(f"  load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
