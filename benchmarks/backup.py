"""Time export_campaign and import_campaign on a HeartBench-sized blind test.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/backup.py [--scales 1,2] [--runs 3]

Needs the released HeartBench file (HEARTBENCH_DIR/question_all.jsonl). In a throw-away database
(hb_backup_bench_<pid>, dropped at the end; a temporary SQLite file without a postgres
DATABASE_URL) it builds the released items, fictional models with synthetic responses, a
blind-test campaign over 40% of the items × 14 models (≈ 1,652 responses at scale 1), three
submitted expert judgments per (response, criterion) with a rationale each (≈ 52,000 at scale 1,
≈ 100,000 at scale 2) and a judge verdict on every pair. Then, per run: export the campaign to
an archive (timed), empty the database (`flush`), import the archive (timed) and check that
every table holds as many rows as before. Medians over the runs.
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

BENCH_KEY = b"benchmark-archive-key-0123456789abcdef"  # signing and verifying are part of what is timed
RATIONALE = "回应先复述了来访者的感受，再温和地探索其背后的需要，没有急于给建议；这一条标准因此算作命中。"


def build(scale: int):
    """The agreement benchmark's campaign, with a rationale on every judgment and verdict and longer responses."""
    from benchmarks.agreement import build as build_campaign

    return build_campaign(scale, rationale=RATIONALE, judge_rationale="judge reason", text_repeat=20)


def counts() -> dict[str, int]:
    from django.apps import apps

    return {
        m._meta.label: m.objects.count()
        for m in apps.get_models()
        if m._meta.app_label in ("heartbench_core", "annotation", "validation", "rubrics")
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", default="1,2")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from heartbench_core.backup import export_campaign, import_campaign

    if connection.vendor == "postgresql":
        settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"hb_backup_bench_{os.getpid()}"
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    workdir = Path(tempfile.mkdtemp())
    try:
        for scale in (int(s) for s in args.scales.split(",")):
            call_command("flush", interactive=False, verbosity=0)
            t0 = time.perf_counter()
            campaign, n_responses, n_verdicts, n_judgments = build(scale)
            print(
                f"{connection.vendor} scale {scale}: {n_responses:,} responses, {n_judgments:,} judgments, "
                f"{n_verdicts:,} judge verdicts (built in {time.perf_counter() - t0:.0f}s)"
            )
            expected = counts()
            exports, imports = [], []
            for run in range(args.runs):
                archive = workdir / f"bench-{scale}-{run}.zip"
                start = time.perf_counter()
                outcome = export_campaign(campaign_name=campaign.name, path=archive, key=BENCH_KEY)
                exports.append(time.perf_counter() - start)
                call_command("flush", interactive=False, verbosity=0)
                start = time.perf_counter()
                import_campaign(source=archive, key=BENCH_KEY)
                imports.append(time.perf_counter() - start)
                restored = counts()
                assert restored == expected, {k: (expected[k], restored.get(k)) for k in expected if expected[k] != restored.get(k)}
                if connection.vendor == "postgresql":
                    with connection.cursor() as cursor:
                        cursor.execute("ANALYZE")
            print(f"  archive {archive.stat().st_size / 1e6:.1f} MB, {sum(outcome.rows.values()):,} rows")
            print(f"  export median of {args.runs}: {statistics.median(exports):.2f}s  {[round(t, 2) for t in exports]}")
            print(f"  import median of {args.runs}: {statistics.median(imports):.2f}s  {[round(t, 2) for t in imports]}")
            print(f"  load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
