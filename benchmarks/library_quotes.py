"""Time the library's quote check (no text quotes a response of an open campaign) at HeartBench's size.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/library_quotes.py [--models 8] [--runs 30]
      .venv/bin/python benchmarks/library_quotes.py          (SQLite, for comparison)
It creates and drops a throw-away database, so it never touches real data.

The world: the released question_all.jsonl (HEARTBENCH_DIR; the demo items when it is absent) and
`--models` synthetic models answering every question with 600–900 characters of Chinese made of
the benchmark's own dialogue turns (so responses share the phrasing real ones do), all sampled
into one running blind test: 296 × 8 = 2,368 open responses. Measured:

- the first check, which fingerprints every open response (once; `annotation.knowledge.services.quotes`);
- a case's texts (title, excerpt, reasoning) that quote nothing, one that quotes a response, and
  a FAQ answer of 3,000 characters: median and p95 ms of the check, and its queries;
- for comparison, reading every open response and comparing in Python (what the index avoids).
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(fn, runs, warm=3):
    for _ in range(warm):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=8)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext, setup_databases, teardown_databases

    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        from django.contrib.auth.models import Group

        from annotation.knowledge.models import ResponseFingerprint
        from annotation.knowledge.services.quotes import open_campaign_quotes
        from annotation.services.campaigns import create_campaign
        from heartbench_core.lib.quotes import quote_form, shared_run
        from heartbench_core.models import LanguageModel, ModelResponse, User
        from heartbench_core.roles import Role
        from heartbench_core.services.datasets import import_heartbench
        from tests.factories import DEMO_ITEMS

        source = Path(os.environ.get("HEARTBENCH_DIR", settings.HEARTBENCH_DIR)) / "question_all.jsonl"
        source = source if source.exists() else DEMO_ITEMS
        version = import_heartbench(source=source, dataset_name="bench").version
        turns = [t["content"] for line in source.read_text(encoding="utf-8").splitlines() for t in json.loads(line)["dialogue"]]
        rng = random.Random(11)

        def answer() -> str:
            parts: list[str] = []
            while sum(map(len, parts)) < rng.randrange(600, 900):
                parts.append(rng.choice(turns))
            return "\n\n".join(parts)

        questions = list(version.items.values_list("question_id", flat=True))
        names = [f"bench-model-{i}" for i in range(args.models)]
        for name in names:
            model = LanguageModel.objects.create(name=name)
            ModelResponse.objects.bulk_create(
                [ModelResponse(dataset=version.dataset, question_id=q, model=model, text=answer(), imported_for=version) for q in questions]
            )
        expert = User.objects.create_user("bench_expert", password="x")
        expert.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
        campaign = create_campaign(
            name="bench running",
            dataset_name="bench",
            model_names=names,
            sample_fraction=1.0,
            overlap=1,
            expert_usernames=[expert.username],
            requires_qualification=False,
        ).campaign
        open_count = campaign.responses.count()
        quoted = "".join(campaign.responses.first().response.text.split())[40:70]
        case = {
            "title": "只复述事实，不算表达理解",
            "excerpt": "（虚构的回复）你说你已经连续加班三个月了，听起来真的很累。",
            "reasoning": "回复只重复了用户说的事实，没有回应其中的感受（疲惫、委屈），所以不算表达理解和体谅。" * 3,
        }
        faq = {
            "answer": "".join(
                rng.choice(["用户的感受被说出来才算。", "先回应情绪，再谈做法。", "注意区分复述与共情。"]) for _ in range(250)
            )
        }

        start = time.perf_counter()
        open_campaign_quotes(case)
        first = (time.perf_counter() - start) * 1000
        print(f"{connection.vendor}: {open_count} open responses; first check (fingerprints them all) {first:.0f} ms")
        print(
            f"  fingerprints stored: {ResponseFingerprint.objects.count()} ({ResponseFingerprint.objects.count() / open_count:.0f} a response)"
        )
        for label, texts in [
            ("case, no quote", case),
            ("case quoting a response", {**case, "excerpt": quoted}),
            ("FAQ answer, 3,000 chars", faq),
        ]:
            with CaptureQueriesContext(connection) as queries:
                found = open_campaign_quotes(texts)
            median, p95 = timed(lambda texts=texts: open_campaign_quotes(texts), args.runs)
            print(f"  {label:28} median {median:6.1f} ms, p95 {p95:6.1f} ms, {len(queries)} queries, quotes in {sorted(found)}")

        def scan() -> None:  # the best a reading of every response can do: aligned pieces of each against the text's windows
            texts = [
                quote_form(t) for t in ModelResponse.objects.filter(campaign_entries__campaign=campaign).values_list("text", flat=True)
            ]
            forms = [quote_form(value) for value in case.values()]
            windows = {form[i : i + 10] for form in forms for i in range(len(form) - 9)}
            for other in texts:
                if any(other[i : i + 10] in windows for i in range(0, len(other) - 9, 11)):
                    any(shared_run(form, other) for form in forms)

        median, p95 = timed(scan, max(3, args.runs // 5), warm=1)
        print(f"  for comparison, reading and comparing every open response: median {median:.0f} ms, p95 {p95:.0f} ms")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
