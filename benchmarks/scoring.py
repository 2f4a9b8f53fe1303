"""Time (a) importing one judge file of 296 questions, (b) scoring 14 models × 296 questions from the database.

Run:  .venv/bin/python benchmarks/scoring.py [--runs 5]
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/scoring.py
It imports the released question_all.jsonl into a throw-away database (test_… or a temporary
SQLite file), writes synthetic responses and verdict files for 14 fictional models, and never
touches real data. Prints min / median / max seconds of the service calls (interpreter start
and Django setup not counted).
"""

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODELS = 14


def verdict_file(rubrics: dict[str, list], seed: int) -> io.BytesIO:
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = [
        json.dumps(
            {
                "question_id": qid,
                "response": f"（合成回答 {seed}）{qid}",
                "score_detail": str([int(x) for x in rng.random(n) < 0.5]),
                "score_reason": "（合成评语）" * 40,
            },
            ensure_ascii=False,
        )
        for qid, n in rubrics.items()
    ]
    buffer = io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))
    buffer.name = f"question_score-{seed}.jsonl"
    return buffer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--path", default=None)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from heartbench_core.leaderboard.selectors import leaderboard
    from heartbench_core.models import Criterion, JudgeRun
    from heartbench_core.services.datasets import import_heartbench
    from heartbench_core.services.judging import import_judge_verdicts
    from heartbench_core.services.scoring import score_judge_runs

    path = Path(args.path or Path(settings.HEARTBENCH_DIR) / "question_all.jsonl")
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        version = import_heartbench(source=path, dataset_name="bench").version
        rubrics: dict[str, int] = {}
        for qid in (
            Criterion.objects.filter(item__version=version)
            .order_by("item__position", "position")
            .values_list("item__question_id", flat=True)
        ):
            rubrics[qid] = rubrics.get(qid, 0) + 1

        imports = []
        for n in range(MODELS):
            source = verdict_file(rubrics, n)
            start = time.perf_counter()
            outcome = import_judge_verdicts(
                source=source, dataset_name="bench", model_name=f"fictional-model-{n:02d}", judge="synthetic-judge"
            )
            imports.append(time.perf_counter() - start)
            assert outcome.created and outcome.questions == 296 and outcome.responses_created == 296

        runs = list(JudgeRun.objects.filter(version=version).select_related("version", "model"))
        scoring, pages = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            scored = score_judge_runs(runs)
            results = {pk: s.result(with_questions=False) for pk, s in scored.items()}
            scoring.append(time.perf_counter() - start)
            assert len(results) == MODELS and all(r.questions_scored == 296 for r in results.values())
            start = time.perf_counter()
            rows = leaderboard(version)
            pages.append(time.perf_counter() - start)
            assert len(rows) == MODELS

        def line(name, times):
            return f"  {name}: min {min(times):.3f}s  median {statistics.median(times):.3f}s  max {max(times):.3f}s ({len(times)} runs)"

        verdicts = sum(rubrics.values())
        print(f"{connection.vendor}: {path.name}, 296 questions, {verdicts} verdicts per judge file")
        print(line("import one judge file (incl. its 296 responses)", imports))
        print(line(f"score {MODELS} models x 296 questions from the database (all questions)", scoring))
        print(line(f"leaderboard data: {MODELS} models x all/hard/normal", pages))
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
