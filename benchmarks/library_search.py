"""Time a search of the knowledge library over 5,000 entries, as an expert rating in a running campaign would search it.

Run:  DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/library_search.py [--entries 5000] [--runs 50]
      .venv/bin/python benchmarks/library_search.py          (SQLite, for comparison)
It creates and drops a throw-away database, so it never touches real data.

The world: the released question_all.jsonl (HEARTBENCH_DIR; the demo items when it is absent), a
synthetic model's answer to every question, a running blind test of 40% of them that the
searching expert rates in, and `--entries` library entries, half FAQ entries and half cases,
all published. Each entry quotes one of the released criteria (so 共情, 第一人称 and 过早 occur as
often as in the benchmark) inside Chinese and English prose; a third of the cases come from the
running campaign (hidden from the expert unless rewritten on an invented response), the rest
are written from scratch. Every search goes through the visibility rules, the ranking and the
snippets (`annotation.knowledge.selectors.search`), and through the full API request
(`/api/v1/annotation/library/search/`, test client: middleware, session, serializers). The first
runs warm caches and are not counted. Prints min / median / p95 ms per query, and the CPU time a
query costs this process and its PostgreSQL backend (on a busy machine the wall time is mostly
waiting for a core; the CPU time is what a quiet machine approaches). --entries 50000 for the
large library.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUERIES = ["共情", "第一人称", "过早建议", "empathy", "用户 感受", "AI 过早 建议", "情绪理解", "量子纠缠"]
PROSE = [
    "评审认为回复说出了用户的感受，算命中。",
    "The reviewers agreed that naming the feeling counts, even without the word empathy.",
    "回复先列出多条做法，用户并没有请求建议。",
    "注意区分复述事实与回应情绪：只复述事实不算。",
    "When the user only vents, a list of tips comes too early.",
    "这条评分项容易与“温暖”混淆，关键在于是否回应了用户此刻的情绪。",
]


BACKEND = {"pid": None}


def backend_cpu():
    """CPU seconds of this connection's PostgreSQL backend so far (0 on SQLite, whose work is this process's)."""
    pid = BACKEND["pid"]
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn, runs, warm=5):
    """min / median / p95 wall ms, and the mean CPU ms per run (this process + the database backend): what a quiet machine approaches."""
    for _ in range(warm):
        fn()
    samples = []
    cpu_start, db_start = time.process_time(), backend_cpu()
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    cpu = (time.process_time() - cpu_start + backend_cpu() - db_start) * 1000 / runs
    samples.sort()
    return samples[0], statistics.median(samples), samples[int(0.95 * (len(samples) - 1))], cpu


def explain(connection, expert, query, dataset):
    """EXPLAIN (ANALYZE, BUFFERS) of the FAQ and case searches of a query, as the selector runs them."""
    from annotation.knowledge import search as sql_search
    from annotation.knowledge.selectors import visible_cases, visible_faq
    from heartbench_core.lib import search as lib

    terms = lib.parse_query(query)
    for name, qs in (("FAQ", visible_faq(expert, as_expert=True)), ("cases", visible_cases(expert, as_expert=True))):
        sql, params = (
            sql_search.ranked(qs.filter(dataset_id=dataset.pk), terms).values_list("pk", "score", "total")[:20].query.sql_with_params()
        )
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
            print(f"--- {query} / {name}")
            print("\n".join(row[0] for row in cursor.fetchall()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--explain", action="store_true", help="Print PostgreSQL's plan (EXPLAIN ANALYZE) of each query's two searches.")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_databases, teardown_databases

    settings.ALLOWED_HOSTS = ["testserver"]
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        from django.contrib.auth.models import Group

        from annotation.knowledge import selectors
        from annotation.knowledge.models import Case, FaqEntry
        from annotation.knowledge.services.knowledge import _case_search, _faq_search
        from annotation.services.campaigns import create_campaign
        from heartbench_core.models import Criterion, LanguageModel, ModelResponse, User
        from heartbench_core.roles import Role
        from heartbench_core.services.datasets import import_heartbench
        from tests.factories import DEMO_ITEMS

        source = Path(os.environ.get("HEARTBENCH_DIR", settings.HEARTBENCH_DIR)) / "question_all.jsonl"
        source = source if source.exists() else DEMO_ITEMS
        version = import_heartbench(source=source, dataset_name="bench").version
        dataset = version.dataset
        model = LanguageModel.objects.create(name="bench-model")
        ModelResponse.objects.bulk_create(
            [
                ModelResponse(
                    dataset=dataset, question_id=q, model=model, text=f"（合成回答）{q}：听起来你最近很累。", imported_for=version
                )
                for q in version.items.values_list("question_id", flat=True)
            ]
        )
        expert_group = Group.objects.get_or_create(name=Role.EXPERT.value)[0]
        expert = User.objects.create_user("bench_expert", password="x")
        expert.groups.add(expert_group)
        writer = User.objects.create_user("bench_writer", password="x")
        writer.groups.add(Group.objects.get_or_create(name=Role.SENIOR_REVIEWER.value)[0])
        reviewer = User.objects.create_user("bench_reviewer", password="x")
        campaign = create_campaign(
            name="bench running",
            dataset_name="bench",
            model_names=["bench-model"],
            sample_fraction=0.4,
            overlap=1,
            expert_usernames=[expert.username],
            requires_qualification=False,
        ).campaign
        running = list(campaign.responses.values_list("response_id", flat=True))
        criteria = list(Criterion.objects.filter(item__version=version).select_related("lineage", "item"))
        rng = random.Random(17)
        half = args.entries // 2
        faq, cases = [], []
        for i in range(half):
            c = rng.choice(criteria)
            entry = FaqEntry(
                dataset=dataset,
                question=f"第{i}问：这条评分项（{c.item.question_id}#{c.position + 1}）怎么判？",
                answer=f"评分项原文：{c.text}\n\n{rng.choice(PROSE)} {rng.choice(PROSE)}",
                tags=[c.ability],
                abilities=[c.ability],
                status=FaqEntry.Status.PUBLISHED,
                author=writer,
                reviewer=reviewer,
            )
            _faq_search(entry)
            faq.append(entry)
        for i in range(args.entries - half):
            c = rng.choice(criteria)
            from_running = i % 3 == 0
            case = Case(
                dataset=dataset,
                lineage=c.lineage,
                criterion_revision=c.revision,
                criterion_text=c.text,
                title=f"案例 {i}：{c.text[:16]}",
                excerpt=f"（节选）{rng.choice(PROSE)}",
                hit=bool(i % 2),
                reasoning=f"{rng.choice(PROSE)}\n{rng.choice(PROSE)}",
                source=Case.Source.ADJUDICATION if from_running else Case.Source.WRITTEN,
                source_campaign=campaign if from_running else None,
                source_response_id=rng.choice(running) if from_running else None,
                invented=from_running and i % 2 == 0,
                status=Case.Status.PUBLISHED,
                author=writer,
            )
            _case_search(case)
            cases.append(case)
        FaqEntry.objects.bulk_create(faq, batch_size=500)
        Case.objects.bulk_create(cases, batch_size=500)
        if connection.vendor == "postgresql":
            # As a table that has lived a while: vacuumed and analysed (autovacuum would otherwise run during the timings).
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE annotation_faqentry")
                cursor.execute("VACUUM ANALYZE annotation_case")
        print(f"{connection.vendor}: {FaqEntry.objects.count()} FAQ entries + {Case.objects.count()} cases = {args.entries} entries")
        client = Client()
        client.force_login(expert)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                BACKEND["pid"] = cursor.fetchone()[0]
        print(
            f"{'query':<14}{'FAQ':>6}{'cases':>7}   selector ms (min/median/p95)   API request ms (min/median/p95)   CPU ms (selector, API)"
        )
        medians, cpus = [], []
        for query in QUERIES:

            def direct(query=query):
                user = User.objects.get(pk=expert.pk)  # a fresh user per search, as per request: the blind scope is read again
                return selectors.search(user, query, as_expert=True, dataset=dataset)

            results = direct()
            s_min, s_med, s_p95, s_cpu = timed(direct, args.runs)
            a_min, a_med, a_p95, a_cpu = timed(
                lambda query=query: client.get("/api/v1/annotation/library/search/", {"q": query, "dataset": "bench"}), args.runs
            )
            medians.append(a_med)
            if args.explain and connection.vendor == "postgresql":
                explain(connection, expert, query, dataset)
            print(
                f"{query:<14}{results.faq_total:>6}{results.case_total:>7}   {s_min:6.1f} {s_med:6.1f} {s_p95:6.1f}"
                f"                {a_min:6.1f} {a_med:6.1f} {a_p95:6.1f}      {s_cpu:6.1f} {a_cpu:6.1f}"
            )
            cpus.append(a_cpu)
        print(f"median of the API medians: {statistics.median(medians):.1f} ms; slowest median {max(medians):.1f} ms")
        print(f"CPU per API request (this process + the database): median {statistics.median(cpus):.1f} ms, most {max(cpus):.1f} ms")
        print(f"load average: {os.getloadavg()[0]:.1f}")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
