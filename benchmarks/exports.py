"""Time the judgments.csv export over HTTP against gunicorn on PostgreSQL: first byte, whole file, worker memory.

Run:

    .venv/bin/python benchmarks/exports.py [--prefix bench] [--runs 5] [--scale 10] [--also DB:CAMPAIGN ...]

It measures a blind test of 10× HeartBench's size in one campaign (16,520 responses × 3 experts,
≈ 513,000 judgments; set by --scale): kept in `<prefix>_exports_<scale>x`, made once from
`benchmarks/imports.py`'s base database by importing that script's judgment files (again with
--rebuild). --also adds campaigns of other databases, e.g. `--also bench_1x:blind-test-001
bench_10x:blind-test-005` (databases built by `benchmarks/workload.py`): each is copied first
(`createdb -T`) and the copy dropped at the end.

For each database it starts gunicorn with the project's gunicorn.conf.py (PRODUCTION settings,
one worker, so its memory is the export's), signs the admin `bench_admin` in through a session
made in the database, and downloads `/validation/campaigns/<id>/export/judgments.csv` --runs times:
time to the first byte of the body, time to the last, bytes, the worker's CPU time for the export
and its peak resident memory (VmHWM) before and after. Prints medians, MB/s and the load average.
On PostgreSQL the file comes from COPY (validation/exports.py); --direct also times, in one
process without HTTP, the COPY path and the Python writer (the path SQLite takes) on the same
campaign, so the two can be compared on one machine at one load.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
SERVER = "postgres://postgres@127.0.0.1:5432"

SESSION = r"""
import json, sys
import django
django.setup()
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from annotation.models import Campaign
from heartbench_core.models import User

user = User.objects.get(username=sys.argv[1])
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
campaign = Campaign.objects.get(name=sys.argv[2])
print(json.dumps({"cookie": settings.SESSION_COOKIE_NAME, "key": session.session_key, "campaign": campaign.pk}))
"""


def psql(db: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/{db}", autocommit=True) as conn:
        conn.execute(sql)


def exists(db: str) -> bool:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db]).fetchone() is not None


def build_big_campaign(db: str, prefix: str, scale: int) -> None:
    """`<prefix>_imports_base_<scale>x` (made by benchmarks/imports.py if missing) plus its judgment files imported as one campaign."""
    base = f"{prefix}_imports_base_{scale}x"
    if not exists(base):
        subprocess.run(
            [PYTHON, str(ROOT / "benchmarks" / "imports.py"), "--scale", str(scale), "--runs", "1", "--prefix", prefix], check=True
        )
    psql("postgres", f'DROP DATABASE IF EXISTS "{db}"')
    psql("postgres", f'CREATE DATABASE "{db}" TEMPLATE "{base}"')
    script = (
        "import sys, tempfile; from pathlib import Path; sys.path.insert(0, 'benchmarks'); import django; django.setup(); import imports;"
        "from validation.services.imports import import_judgments;"
        "d = Path(tempfile.mkdtemp()); files = imports.write_files(d, int(sys.argv[1]))[0];"
        "o = import_judgments(source=files, dataset_name='heartbench', campaign_name=sys.argv[2], created_by=None);"
        "print(o.judgments, 'judgments imported')"
    )
    env = {**os.environ, "DATABASE_URL": f"{SERVER}/{db}", "DJANGO_SETTINGS_MODULE": "heartbench_core.settings"}
    subprocess.run([PYTHON, "-c", script, str(scale), f"imported-{scale}x"], cwd=ROOT, env=env, check=True)
    psql(db, "VACUUM ANALYZE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def peak_memory_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far: what the export cost it, whatever the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_pid(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return int(children[0])


def measure(db: str, campaign_name: str, runs: int, code: Path = ROOT) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "heartbench_core.settings",
        "DATABASE_URL": f"{SERVER}/{db}",
        "PRODUCTION": "1",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "ERROR",
        "CACHE_KEY_PREFIX": f"hbexport-{os.getpid()}",
        "PYTHONWARNINGS": "ignore::UserWarning",
    }
    world = json.loads(
        subprocess.run(
            [PYTHON, "-c", SESSION, "bench_admin", campaign_name], cwd=code, env=env, check=True, capture_output=True, text=True
        ).stdout.splitlines()[-1]
    )
    port = free_port()
    server = subprocess.Popen(
        [GUNICORN, "-c", str(code / "gunicorn.conf.py"), "-b", f"127.0.0.1:{port}", "-w", "1", "--threads", "2", "--log-level", "warning"],
        cwd=code,
        env=env,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/validation/campaigns/{world['campaign']}/export/judgments.csv"
    headers = {"X-Forwarded-Proto": "https", "Cookie": f"{world['cookie']}={world['key']}"}
    try:
        for _ in range(150):
            try:
                requests.get(f"http://127.0.0.1:{port}/accounts/login/", headers={"X-Forwarded-Proto": "https"}, timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.2)
        worker = worker_pid(server.pid)
        before = peak_memory_kb(worker)
        firsts, totals, sizes, cpus = [], [], [], []
        for _ in range(runs):
            cpu = cpu_seconds(worker)
            start = time.perf_counter()
            with requests.get(url, headers=headers, stream=True, timeout=600) as response:
                response.raise_for_status()
                size, first = 0, None
                for piece in response.iter_content(chunk_size=65536):
                    if first is None and piece:
                        first = time.perf_counter() - start
                    size += len(piece)
            totals.append(time.perf_counter() - start)
            cpus.append(cpu_seconds(worker) - cpu)
            firsts.append(first or 0.0)
            sizes.append(size)
        after = peak_memory_kb(worker)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return {
        "first_byte_ms": statistics.median(firsts) * 1000,
        "total_s": statistics.median(totals),
        "all_total_s": [round(t, 2) for t in totals],
        "bytes": sizes[0],
        "worker_cpu_s": statistics.median(cpus),
        "worker_peak_mb_before": before / 1024,
        "worker_peak_mb_after": after / 1024,
        "load": os.getloadavg()[0],
    }


DIRECT = r"""
import json, os, sys, time
import django
django.setup()
from django.db import connection
from annotation.models import Campaign
from validation import exports

def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

with connection.cursor() as cursor:
    cursor.execute("SELECT pg_backend_pid()")
    backend = cursor.fetchone()[0]

campaign = Campaign.objects.get(name=sys.argv[1])
out = {}
paths = {
    "copy": lambda: exports.copied_judgment_csv(campaign, exports.entry_ranges(campaign, set(), size=exports.COPY_ENTRIES_PER_BATCH)),
    "python": lambda: exports.chunks(exports._judgment_csv_lines(campaign, exports.entry_batches(campaign, set()))),
}
for name, chunks in paths.items():
    start, pg, me = time.perf_counter(), cpu(backend), time.process_time()
    size, first = 0, None
    for piece in chunks():
        size += len(piece if isinstance(piece, bytes) else piece.encode())
        if first is None:
            first = time.perf_counter() - start
    out[name] = {
        "bytes": size, "s": time.perf_counter() - start, "first_ms": first * 1000,
        "pg_cpu": cpu(backend) - pg, "py_cpu": time.process_time() - me,
    }
print(json.dumps(out))
"""


def direct(db: str, campaign_name: str) -> dict:
    """Both paths of the judgments' CSV in one process, without HTTP: COPY and the Python writer, bytes and seconds."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "heartbench_core.settings", "DATABASE_URL": f"{SERVER}/{db}", "DEBUG": "0"}
    done = subprocess.run([PYTHON, "-c", DIRECT, campaign_name], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prefix", default="bench")
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--also", nargs="*", default=[], metavar="DB:CAMPAIGN")
    parser.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="Serve from another checkout (e.g. `git archive <commit>` unpacked), to compare before and after.",
    )
    parser.add_argument(
        "--direct",
        action="store_true",
        help="Also time the COPY and Python paths in one process, without HTTP, with the CPU time of this process and of its PostgreSQL backend.",
    )
    args = parser.parse_args()
    big = f"{args.prefix}_exports_{args.scale}x"
    if args.rebuild or not exists(big):
        build_big_campaign(big, args.prefix, args.scale)
    targets = [(big, f"imported-{args.scale}x", False)]
    for spec in args.also:
        source, campaign = spec.split(":", 1)
        copy = f"{args.prefix}_exports_copy_{os.getpid()}_{len(targets)}"
        psql("postgres", f'CREATE DATABASE "{copy}" TEMPLATE "{source}"')
        targets.append((copy, campaign, True))
    try:
        for db, campaign, _ in targets:
            result = measure(db, campaign, args.runs, args.code)
            print(
                f"{db} / {campaign}: judgments.csv {result['bytes'] / 1e6:.1f} MB, first byte {result['first_byte_ms']:.0f} ms, "
                f"whole file {result['total_s']:.2f} s = {result['bytes'] / 1e6 / result['total_s']:.1f} MB/s "
                f"(median of {args.runs}: {result['all_total_s']}; worker CPU {result['worker_cpu_s']:.2f} s), "
                f"worker peak memory {result['worker_peak_mb_before']:.0f} → {result['worker_peak_mb_after']:.0f} MB, "
                f"load {result['load']:.1f}",
                flush=True,
            )
            if args.direct:
                for path, figures in direct(db, campaign).items():
                    print(
                        f"  in one process, {path} path: {figures['bytes'] / 1e6:.1f} MB in {figures['s']:.2f} s = "
                        f"{figures['bytes'] / 1e6 / figures['s']:.1f} MB/s, first chunk {figures['first_ms']:.0f} ms; "
                        f"CPU: PostgreSQL {figures['pg_cpu']:.2f} s + Python {figures['py_cpu']:.2f} s = "
                        f"{figures['bytes'] / 1e6 / (figures['pg_cpu'] + figures['py_cpu']):.1f} MB per CPU second, "
                        f"load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
    finally:
        for db, _, temporary in targets:
            if temporary:
                psql("postgres", f'DROP DATABASE IF EXISTS "{db}"')


if __name__ == "__main__":
    main()
