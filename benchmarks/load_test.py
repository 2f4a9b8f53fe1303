"""Load test: 50 simulated experts against the production setup, on loopback, for 120 seconds.

    .venv/bin/python benchmarks/load_test.py [--experts 50] [--seconds 120] [--workers 4] [--threads 3]
        [--autosave-every 2 4]

One command does everything and cleans up after itself:

1. creates a throw-away PostgreSQL database (`heartbench_load_<pid>` on 127.0.0.1:5432) and uses
   the Redis at `$REDIS_URL` (default redis://127.0.0.1:6379/0) as django-q2 broker and cache,
   under a key prefix of its own (`hbload-<pid>-<random>`: the queue name and the cache's prefix);
2. migrates, imports the released HeartBench file (`$HEARTBENCH_DIR/question_all.jsonl`, or
   the demo items when it is absent), three synthetic answer files, a campaign over all of
   them (k = 3) and N expert users, each with an API token;
3. starts gunicorn with the project's gunicorn.conf.py (4 gthread workers x 3 threads unless
   --workers/--threads say otherwise, PRODUCTION=1 settings, bound to 127.0.0.1 only) and a
   django-q2 worker (`manage.py qcluster`);
4. drives N expert threads over HTTP for the given time, each starting within the first
   autosave interval and busy from then on, paced like a person in the workspace: take the
   next response and read it, then write the criteria one after another, autosaving every
   2-4 s while typing (twice per criterion: the rationale half written with no hit/miss yet,
   then finished and marked), pause, submit every criterion's judgment, repeat. The workspace autosaves 700 ms after the last keystroke
   (static/js/workspace.js), so a typist who pauses between phrases saves every few seconds;
   2-4 s is the busy end of that;
5. prints throughput and latency percentiles per endpoint, the CPU used by the load generator,
   gunicorn and the django-q2 worker and the machine's load average, then checks in the
   database that every submitted assignment is there exactly once with exactly the judgments sent;
6. stops the server and the worker, drops the database and deletes the Redis keys under its
   prefix — only those: it never flushes a Redis database, which others may be using.

It exits non-zero on any server error, lost or duplicated judgment, or a p99 above the
target (150 ms for autosave and submit). Results are also written to
benchmarks/results/load_test.json.
"""

import argparse
import contextlib
import gc
import json
import os
import random
import resource
import runpy
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PG = "postgres://postgres@127.0.0.1:5432"
REDIS = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
TARGET_P99_MS = 150.0

SETUP = r"""
import json, os, sys, tempfile
from pathlib import Path
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import Group
from heartbench_core.services.api_tokens import issue_token
from heartbench_core.models import User
from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.responses import import_responses
from annotation.services.campaigns import create_campaign

experts = int(sys.argv[1])
source = Path(settings.HEARTBENCH_DIR) / "question_all.jsonl"
if not source.exists():
    source = Path(settings.BASE_DIR) / "fixtures" / "demo_items.jsonl"
version = import_heartbench(source=source, dataset_name="load").version
qids = list(version.items.values_list("question_id", flat=True))
models = ["load-model-a", "load-model-b", "load-model-c"]
tmp = Path(tempfile.mkdtemp())
for m in models:
    path = tmp / f"{m}.jsonl"
    path.write_text("".join(json.dumps({"question_id": q, "response": f"（合成回答 {m} {q}）我听到了你的感受，愿意多说一点吗？"}, ensure_ascii=False) + "\n" for q in qids))
    import_responses(source=path, dataset_name="load", model_name=m)
group, _ = Group.objects.get_or_create(name="expert")
tokens = {}
for i in range(experts):
    u = User.objects.create_user(username=f"load_expert{i:03d}", password=None)
    u.groups.add(group)
    tokens[u.username] = issue_token(user=u, name="load test").text
campaign = create_campaign(
    name="load", dataset_name="load", model_names=models, sample_fraction=1.0, overlap=3,
    requires_qualification=False, expert_usernames=list(tokens),
).campaign
print(json.dumps({"campaign": campaign.pk, "tokens": tokens, "items": len(qids), "source": str(source),
                  "responses": campaign.responses.count()}))
"""

VERIFY = r"""
import json, sys
import django
django.setup()
from django.db.models import Count
from annotation.models import Assignment, Judgment
sent = json.load(open(sys.argv[1]))
problems = []
submitted = {a.public_id: a for a in Assignment.objects.filter(status="submitted", campaign_response__campaign__name="load")}
for public_id, criteria in sent.items():
    a = submitted.get(public_id)
    if a is None:
        problems.append(f"{public_id}: submitted (200) but not submitted in the database")
        continue
    rows = list(Judgment.objects.filter(assignment=a).values_list("criterion_id", "hit", "rationale"))
    by_criterion = {}
    for cid, hit, rationale in rows:
        by_criterion.setdefault(cid, []).append((hit, rationale))
    for cid, (hit, rationale) in criteria.items():
        got = by_criterion.get(int(cid), [])
        if len(got) != 1:
            problems.append(f"{public_id}: criterion {cid} stored {len(got)} times")
        elif got[0] != (hit, rationale):
            problems.append(f"{public_id}: criterion {cid} stored {got[0]}, sent {(hit, rationale)}")
    extra = set(by_criterion) - {int(c) for c in criteria}
    if extra:
        problems.append(f"{public_id}: {len(extra)} judgments that were never sent")
unexpected = set(submitted) - set(sent)
duplicates = Judgment.objects.values("assignment_id", "criterion_id").annotate(n=Count("id")).filter(n__gt=1).count()
print(json.dumps({"checked": len(sent), "submitted_in_db": len(submitted), "unexpected_submissions": len(unexpected),
                  "duplicate_judgment_rows": duplicates, "judgments_in_db": Judgment.objects.filter(assignment__status="submitted").count(),
                  "problems": problems[:20], "problem_count": len(problems)}))
"""


def delete_own_keys(url: str, prefix: str) -> int:
    """Delete this run's Redis keys (django-q2's queue and stats, then the cache's); returns how many."""
    import redis

    client = redis.Redis.from_url(url)
    deleted = 0
    for pattern in (f"django_q:{prefix}:*", f"{prefix}:*"):
        for key in client.scan_iter(match=pattern, count=500):
            deleted += client.delete(key)
    return deleted


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, env, **kw):
    result = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency = defaultdict(list)
        self.statuses = defaultdict(lambda: defaultdict(int))
        self.errors = []
        self.sent = {}  # public_id -> {criterion: (hit, rationale)} for every 200 on submit

    def record(self, endpoint, status, ms):
        with self.lock:
            self.latency[endpoint].append(ms)
            self.statuses[endpoint][status] += 1


def expert(base, token, campaign, deadline, stats: Stats, rng: random.Random, think):
    session = requests.Session()
    session.headers.update({"Authorization": f"Token {token}", "X-Forwarded-Proto": "https", "Accept": "application/json"})

    def call(endpoint, path, body):
        started = time.perf_counter()
        try:
            r = session.post(base + path, json=body, timeout=30)
        except requests.RequestException as exc:
            with stats.lock:
                stats.errors.append(f"{endpoint}: {type(exc).__name__}: {exc}")
            return None
        stats.record(endpoint, r.status_code, (time.perf_counter() - started) * 1000)
        if r.status_code >= 500 or r.status_code in (401, 403, 429):
            with stats.lock:
                stats.errors.append(f"{endpoint} {path}: {r.status_code} {r.text[:200]}")
        return r

    def pause():
        time.sleep(rng.uniform(*think))

    # People do not open the workspace in the same millisecond: each expert starts within the
    # first autosave interval, and all of them are at work from then on.
    time.sleep(rng.uniform(0, think[1]))
    while time.monotonic() < deadline:
        r = call("next", "/api/v1/annotation/next/", {"campaign": campaign})
        if r is None or r.status_code == 204:
            return
        if r.status_code != 200:
            return
        page = r.json()
        public_id = page["id"]
        criteria = [c["id"] for c in page["criteria"]]
        version = page["version"]  # each save and the submission are based on the draft's version (the last answer's)
        judged = {}
        pause()  # reading the dialogue and the response
        for number, cid in enumerate(criteria, start=1):
            if time.monotonic() >= deadline:
                return  # the response stays a reserved draft; only submitted work is verified
            rationale = f"第{number}条：回答{'命中' if cid % 2 else '未命中'}这一条，理由充分，语气温和并回应了求助者的感受。"
            judged[cid] = (rng.random() < 0.5, rationale)
            # Half the rationale typed, not yet marked; then finished and marked hit or miss.
            for entry in (
                {"criterion": cid, "hit": None, "rationale": rationale[: len(rationale) // 2]},
                {"criterion": cid, "hit": judged[cid][0], "rationale": rationale},
            ):
                d = call(
                    "draft",
                    f"/api/v1/annotation/assignments/{public_id}/draft/",
                    {"judgments": [entry], "active_seconds": 3, "version": version},
                )
                if d is not None and d.status_code == 200:
                    version = d.json()["version"]
                else:
                    with stats.lock:
                        stats.errors.append(f"draft {public_id}: {getattr(d, 'status_code', None)} {getattr(d, 'text', '')[:200]}")
                pause()
        final = [{"criterion": c, "hit": judged[c][0], "rationale": judged[c][1]} for c in criteria]
        s = call(
            "submit", f"/api/v1/annotation/assignments/{public_id}/submit/", {"judgments": final, "active_seconds": 3, "version": version}
        )
        if s is not None and s.status_code == 200:
            with stats.lock:
                stats.sent[public_id] = {str(c): list(judged[c]) for c in criteria}
        elif s is not None:
            with stats.lock:
                stats.errors.append(f"submit {public_id}: {s.status_code} {s.text[:200]}")


def cpu_seconds_of_group(pgid: int) -> float:
    """User + system CPU seconds of every live process in a process group (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # Counted from the field after the command name: pgrp is 5th in proc(5), utime 14th, stime 15th.
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, summed over its cores."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / os.sysconf("SC_CLK_TCK"), sum(values) / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=120)
    # Defaults: the production configuration in gunicorn.conf.py.
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    parser.add_argument("--workers", type=int, default=conf["workers"], help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=conf["threads"], help="threads per gunicorn worker")
    parser.add_argument(
        "--autosave-every",
        dest="think",
        type=float,
        nargs=2,
        default=(2.0, 4.0),
        help="seconds between an expert's autosaves (and before reading on, and before submitting)",
    )
    args = parser.parse_args()
    if not 1 <= args.experts <= 200 or not 1 <= args.seconds <= 600:
        sys.exit("--experts must be 1..200 and --seconds 1..600")

    db = f"heartbench_load_{os.getpid()}"
    prefix = f"hbload-{os.getpid()}-{secrets.token_hex(4)}"  # every Redis key this run writes starts with it
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "heartbench_core.settings",
        "DATABASE_URL": f"{PG}/{db}",
        "REDIS_URL": REDIS,
        "Q_NAME": prefix,
        "CACHE_KEY_PREFIX": prefix,
        "PRODUCTION": "1",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "API_THROTTLE_USER": "100000/min",
        "Q_WORKERS": "1",
        "LOG_LEVEL": "ERROR",
        "PYTHONWARNINGS": "ignore::UserWarning",
    }
    env.pop("Q_SYNC", None)
    import psycopg

    procs = []
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    try:
        t0 = time.perf_counter()
        run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], env)
        world = json.loads(run([PYTHON, "-c", SETUP, str(args.experts)], env).strip().splitlines()[-1])
        print(
            f"setup: {world['items']} items from {world['source']}, {world['responses']} responses in the campaign, "
            f"{args.experts} experts ({time.perf_counter() - t0:.1f} s)"
        )

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        procs.append(
            subprocess.Popen(
                # The project's gunicorn.conf.py (gthread workers, keep-alive, frozen GC), as in production.
                [
                    GUNICORN,
                    "-c",
                    str(ROOT / "gunicorn.conf.py"),
                    "-b",
                    f"127.0.0.1:{port}",
                    "-w",
                    str(args.workers),
                    "--threads",
                    str(args.threads),
                    "--log-level",
                    "warning",
                ],
                cwd=ROOT,
                env=env,
                start_new_session=True,
            )
        )
        procs.append(
            subprocess.Popen(
                [PYTHON, "manage.py", "qcluster"],
                cwd=ROOT,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        for _ in range(100):
            try:
                requests.get(base + "/accounts/login/", headers={"X-Forwarded-Proto": "https"}, timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.2)
        else:
            sys.exit("gunicorn did not start")

        stats = Stats()
        # What is loaded by now lives to the end: keep it out of this process's collections, so
        # a full collection here does not stall the 50 client threads and add to the latencies.
        gc.collect()
        gc.freeze()
        load_before = os.getloadavg()
        cpu_before = {
            "generator": resource.getrusage(resource.RUSAGE_SELF),
            "gunicorn": cpu_seconds_of_group(procs[0].pid),
            "qcluster": cpu_seconds_of_group(procs[1].pid),
            "machine": machine_busy_seconds(),
        }
        deadline = time.monotonic() + args.seconds
        threads = [
            threading.Thread(target=expert, args=(base, token, world["campaign"], deadline, stats, random.Random(i), tuple(args.think)))
            for i, token in enumerate(world["tokens"].values())
        ]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.seconds + 120)
        elapsed = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_SELF)
        before = cpu_before["generator"]
        busy, total_cpu = machine_busy_seconds()
        cpu = {
            "load_generator_s": round(usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime, 1),
            "gunicorn_s": round(cpu_seconds_of_group(procs[0].pid) - cpu_before["gunicorn"], 1),
            "qcluster_s": round(cpu_seconds_of_group(procs[1].pid) - cpu_before["qcluster"], 1),
            "machine_busy_s": round(busy - cpu_before["machine"][0], 1),
            "machine_total_s": round(total_cpu - cpu_before["machine"][1], 1),
            "cores": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        }

        sent_path = ROOT / "var" / f"load_sent_{os.getpid()}.json"
        sent_path.parent.mkdir(exist_ok=True)
        sent_path.write_text(json.dumps({k: {c: tuple(v) for c, v in crit.items()} for k, crit in stats.sent.items()}))
        check = json.loads(run([PYTHON, "-c", VERIFY, str(sent_path)], env).strip().splitlines()[-1])
        sent_path.unlink()
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        try:
            delete_own_keys(REDIS, prefix)
        except Exception as exc:
            print(f"could not delete the Redis keys under {prefix}: {exc}", file=sys.stderr)

    report = {
        "experts": args.experts,
        "seconds": round(elapsed, 1),
        "gunicorn": f"{args.workers} workers x {args.threads} threads",
        "autosave_every_seconds": list(args.think),
        "endpoints": {},
        "cpu": cpu,
        "verification": check,
        "errors": stats.errors[:20],
        "error_count": len(stats.errors),
    }
    total = 0
    print(f"\n{args.experts} experts for {elapsed:.1f} s against gunicorn ({args.workers}x{args.threads}), PostgreSQL, django-q2 on Redis")
    print(f"{'endpoint':8} {'requests':>8} {'req/s':>7} {'p50':>7} {'p90':>7} {'p95':>7} {'p99':>7} {'max':>7}  statuses")
    for endpoint in ("next", "draft", "submit"):
        lat = stats.latency.get(endpoint, [])
        total += len(lat)
        row = {
            "requests": len(lat),
            "per_second": round(len(lat) / elapsed, 1),
            **{f"p{p}_ms": (round(percentile(lat, p), 1) if lat else None) for p in (50, 90, 95, 99)},
            "max_ms": round(max(lat), 1) if lat else None,
            "mean_ms": round(statistics.fmean(lat), 1) if lat else None,
            "statuses": dict(stats.statuses[endpoint]),
        }
        report["endpoints"][endpoint] = row

        def fmt(v):
            return "-" if v is None else f"{v:7.1f}"

        print(
            f"{endpoint:8} {row['requests']:8d} {row['per_second']:7.1f} {fmt(row['p50_ms'])} {fmt(row['p90_ms'])} "
            f"{fmt(row['p95_ms'])} {fmt(row['p99_ms'])} {fmt(row['max_ms'])}  {row['statuses']}"
        )
    report["total_per_second"] = round(total / elapsed, 1)
    print(f"total: {total} requests, {report['total_per_second']} req/s")
    cpu["gunicorn_ms_per_request"] = round(cpu["gunicorn_s"] * 1000 / total, 1) if total else None

    def share(v):
        return f"{100 * v / cpu['machine_total_s']:.0f}%" if cpu["machine_total_s"] else "-"

    print(
        f"CPU over the run ({cpu['cores']} cores, {cpu['machine_total_s']} core-seconds): load generator {cpu['load_generator_s']} s "
        f"({share(cpu['load_generator_s'])}), gunicorn {cpu['gunicorn_s']} s ({share(cpu['gunicorn_s'])}, "
        f"{cpu['gunicorn_ms_per_request']} ms per request), qcluster {cpu['qcluster_s']} s, whole machine busy "
        f"{cpu['machine_busy_s']} s ({share(cpu['machine_busy_s'])}); load average before {cpu['load_average_before']}, "
        f"after {cpu['load_average_after']}"
    )
    print(
        f"verification: {check['checked']} submitted assignments checked, {check['submitted_in_db']} submitted in the database, "
        f"{check['problem_count']} problems, {check['duplicate_judgment_rows']} duplicated judgment rows, "
        f"{check['unexpected_submissions']} unexpected submissions"
    )
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "load_test.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")

    failures = []
    if stats.errors:
        failures.append(f"{len(stats.errors)} errors, e.g. {stats.errors[:3]}")
    if check["problem_count"] or check["duplicate_judgment_rows"] or check["unexpected_submissions"]:
        failures.append(f"judgments lost or duplicated: {check['problems'][:5]}")
    if not stats.sent:
        failures.append("no assignment was submitted")
    for endpoint in ("draft", "submit"):
        p99 = report["endpoints"][endpoint]["p99_ms"]
        if p99 is None or p99 > TARGET_P99_MS:
            failures.append(f"p99 of {endpoint} is {p99} ms, above the {TARGET_P99_MS:.0f} ms target")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("OK: zero errors, zero lost or duplicated judgments, p99 of autosave and submit under target")


if __name__ == "__main__":
    main()
