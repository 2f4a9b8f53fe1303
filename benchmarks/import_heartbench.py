"""Time importing question_all.jsonl into an empty database (interpreter start not counted).

Run:  .venv/bin/python benchmarks/import_heartbench.py [--runs 5]
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/import_heartbench.py
It creates and drops a throw-away database (test_bench_import) or SQLite file, so it never
touches real data. Prints min / median / max seconds of the import service call.
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--path", default=None)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from heartbench_core.models import Dataset
    from heartbench_core.services.datasets import import_heartbench

    path = Path(args.path or Path(settings.HEARTBENCH_DIR) / "question_all.jsonl")
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        times = []
        for _ in range(args.runs):
            Dataset.objects.all().delete()
            start = time.perf_counter()
            outcome = import_heartbench(source=path, dataset_name="bench")
            times.append(time.perf_counter() - start)
            assert outcome.created and outcome.items == 296
        print(f"{connection.vendor}: import {path.name} ({outcome.items} items, {outcome.criteria} criteria), {args.runs} runs")
        print(f"  min {min(times):.3f}s  median {statistics.median(times):.3f}s  max {max(times):.3f}s")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
