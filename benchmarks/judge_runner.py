"""Time judging the 296 released items for one model against a local fake endpoint that answers in 1 s, at concurrency 16.

Run:  .venv/bin/python benchmarks/judge_runner.py [--runs 3] [--delay 1.0] [--concurrency 16]
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/judge_runner.py
It imports the released question_all.jsonl into a throw-away database (test_… or a temporary
SQLite file), stores a synthetic response per question for one fictional model, starts the fake
OpenAI-compatible server of the tests (tests/fake_openai.py) as a process of its own on
127.0.0.1, and runs the platform's runner (`execute_run`, as a worker or the `judge` command
does) over all 296 questions, one new run label per round. The endpoint's own time is measured
in the same rounds, alternating with the platform's: the same 296 prompts sent by a bare client
(urllib, as many threads as the concurrency, no retries, nothing parsed or stored) — on a loaded
machine the fake endpoint itself answers a little slower than its delay. The ideal,
ceil(296 / concurrency) × delay, is printed too. Prints min / median / max (interpreter start and
Django setup not counted).

Targets (issue 15): under 25 s, and under 5% over the endpoint's own time.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def start_fake(delay: float) -> tuple[subprocess.Popen, str]:
    """The fake judge in a process of its own (so its JSON work does not share this interpreter); returns it and its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai", "--port", "0", "--delay", str(delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    base_url = proc.stdout.readline().strip()
    if not base_url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the fake endpoint did not start: {base_url!r}")
    return proc, base_url


def bare_client(base_url: str, bodies: list[bytes], concurrency: int) -> float:
    """Wall time of sending every body with `concurrency` threads and reading each answer: the endpoint's own time."""
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    def send(body: bytes) -> None:
        request = urllib.request.Request(f"{base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()

    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(send, bodies))
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=1.0, help="Seconds the fake endpoint takes per answer.")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--path", default=None)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    # The fake endpoint listens on 127.0.0.1, which endpoints may reach only when the operator allows it.
    os.environ["ENDPOINT_ALLOWED_HOSTS"] = "127.0.0.1"
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from heartbench_core.judging.models import RunQuestion
    from heartbench_core.judging.services.endpoints import save_endpoint
    from heartbench_core.judging.services.runs import QuestionWork, _prepare, execute_run, holder_name, request_judge_run
    from heartbench_core.models import JudgeVerdict, LanguageModel, ModelResponse
    from heartbench_core.services.datasets import import_heartbench

    path = Path(args.path or Path(settings.HEARTBENCH_DIR) / "question_all.jsonl")
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    fake, base_url = start_fake(args.delay)
    try:
        version = import_heartbench(source=path, dataset_name="bench").version
        model = LanguageModel.objects.create(name="fictional-model")
        ModelResponse.objects.bulk_create(
            [
                ModelResponse(
                    dataset=version.dataset, question_id=q, model=model, text=f"（合成回答）{q}：听起来你最近很辛苦。", imported_for=version
                )
                for q in version.items.values_list("question_id", flat=True)
            ]
        )
        save_endpoint(name="fake-judge", base_url=base_url, model="fake-judge-1s", concurrency=args.concurrency, timeout_seconds=30)
        questions = version.items.count()
        ideal = math.ceil(questions / args.concurrency) * args.delay
        walls, bare = [], []
        bodies = None
        for n in range(args.runs):
            request = request_judge_run(
                dataset_name="bench",
                model_name=model.name,
                endpoint_name="fake-judge",
                run_label=f"bench-{n}",
                hold_as=holder_name("bench"),
            )
            if bodies is None:  # the very prompts the platform sends
                works = _prepare(request.run, list(request.run.questions.select_related("item")))
                bodies = [
                    json.dumps({"model": "fake-judge-1s", "messages": w.messages, "temperature": 0.0, "max_tokens": 4096}).encode()
                    for w in works
                    if isinstance(w, QuestionWork)
                ]
            bare.append(bare_client(base_url, bodies, args.concurrency))
            start = time.perf_counter()
            outcome = execute_run(request.run)
            walls.append(time.perf_counter() - start)
            run = outcome.run
            assert outcome.status == "finished" and outcome.finished == questions and not outcome.failed, outcome
            assert RunQuestion.objects.filter(run=run, status="done").count() == questions
            assert JudgeVerdict.objects.filter(run=run.judge_run).count() == version.criterion_count

        def over(t, base):
            return 100 * (t - base) / base

        own = statistics.median(bare)

        print(
            f"{connection.vendor}: {questions} questions, {version.criterion_count} verdicts, concurrency {args.concurrency}, endpoint {args.delay:g} s per answer"
        )
        print(f"  ideal: ceil({questions}/{args.concurrency}) x {args.delay:g} s = {ideal:.2f} s")
        print(f"  endpoint's own time (bare client): min {min(bare):.2f}s  median {own:.2f}s  max {max(bare):.2f}s")
        print(
            f"  judge run wall time: min {min(walls):.2f}s  median {statistics.median(walls):.2f}s  max {max(walls):.2f}s ({len(walls)} runs)"
        )
        median = statistics.median(walls)
        print(f"  platform overhead: {over(median, own):+.1f}% over the endpoint's own time, {over(median, ideal):+.1f}% over the ideal")
    finally:
        fake.kill()
        fake.wait()
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
