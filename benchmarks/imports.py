"""Time `import_judgments` and `import_judge_verdicts` at 10× (and 100×) HeartBench size on PostgreSQL: judgments per second.

Run:

    .venv/bin/python benchmarks/imports.py [--scale 10] [--runs 3] [--prefix bench] [--rebuild] [--commands] [--one-file] [--role NAME]

First (once, kept for later runs; --rebuild makes it again) it builds `<prefix>_imports_base`
with `benchmarks/workload.py`'s builder: the 296 released items, 14 × scale synthetic models
with a response to every item, 2.5 experts per blind test (25 at 10×), no campaign and no judge
verdict. It writes, to a temporary directory, the files an operator would import:

- judgments: one file per HeartBench-sized blind test (40% of the items × 14 models of their
  own, 3 experts per response, rationales included) — at 10×, 10 files, 16,520 responses,
  ≈ 513,000 judgments — all imported by one call into one new campaign;
- judge verdicts: one upstream-shaped file per model (296 lines, `detail` and `score_reason`)
  — at 10×, 140 files, ≈ 436,000 verdicts — all imported by one call; then five of them again,
  one call per file, as another judge's runs (a single file's throughput).

--one-file writes the judgments into a single file instead of one per blind test. --role NAME
imports as that role (created without superuser if missing and granted the tables): without the
right to set `session_replication_role` the import takes the path with triggers and foreign-key
checks, as a deployment whose role was not granted it does.

Each run copies the base (`CREATE DATABASE … STRATEGY FILE_COPY`: the copy is checkpointed before, not WAL-logged into the import), times the two service calls (one transaction each,
every line checked) in this process, and drops the copy. With --commands it also times the
two management commands, start-up included, on a fresh copy. Prints medians and the machine's
load average, and the CPU time spent by this process and by its PostgreSQL backend (on a busy
machine the wall time is mostly waiting for a core); whether the path without per-row triggers was taken (a superuser or a role
granted SET on session_replication_role) is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

SERVER = "postgres://postgres@127.0.0.1:5432"
MODELS_PER_TEST = 14


def psql(db: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/{db}", autocommit=True) as conn:
        conn.execute(sql)


def build_base(base: str, scale: int) -> None:
    import workload

    workload.prepare_database(SERVER, base, None)
    os.environ["DATABASE_URL"] = f"{SERVER}/{base}"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0, interactive=False)
    builder = _builder(scale)
    builder.people()
    builder.dataset()
    builder.truth()
    builder.responses()
    connection.close()
    psql(base, "VACUUM ANALYZE")


def _builder(scale: int):
    import workload

    return workload.Builder(
        scale=scale, experts=workload.default_experts(scale), models=MODELS_PER_TEST * scale, seed=19, reports=False, judge=False
    )


def write_files(directory: Path, scale: int) -> tuple[list[Path], list[tuple[Path, str]], int, int]:
    """The judgment files (one per blind test) and the judge files (one per model); and how many judgments and verdicts they hold."""
    import json

    import numpy as np

    builder = _builder(scale)
    builder.log = lambda *a, **k: None
    builder.dataset()
    builder.truth()
    rng = np.random.default_rng(7)
    judgment_files, judgments = [], 0
    for test in range(scale):
        models = builder.models[test * MODELS_PER_TEST : (test + 1) * MODELS_PER_TEST]
        questions = sorted(rng.choice(builder.questions, size=round(0.4 * len(builder.questions)), replace=False).tolist())
        lines = builder.expert_lines([(m, q) for q in questions for m in models])
        judgments += sum(len(json.loads(line)["detail"]) for line in lines)
        path = directory / f"blind-test-{test + 1:03d}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        judgment_files.append(path)
    judge_files, verdicts = [], 0
    for model in builder.models:
        lines = builder.judge_lines(model)
        verdicts += sum(len(json.loads(line)["detail"]) for line in lines)
        path = directory / model / "question_score.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(lines) + "\n")
        judge_files.append((path, model))
    return judgment_files, judge_files, judgments, verdicts


def backend_cpu_seconds() -> float:
    """CPU time so far of the PostgreSQL backend serving this process's connection (same machine)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    schedstat = Path(f"/proc/{pid}/schedstat")
    if schedstat.exists():  # nanoseconds on a CPU (stat's user and system times count 10 ms ticks)
        return int(schedstat.read_text().split()[0]) / 1e9
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def use_database(name: str) -> None:
    from django.conf import settings
    from django.db import connection

    connection.close()
    settings.DATABASES["default"]["NAME"] = name
    connection.settings_dict["NAME"] = name


def act_as(role: str) -> None:
    """Let `role` (created when missing, without superuser) write every table, and take it on this connection."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE ROLE "{role}" NOSUPERUSER')
        cursor.execute(f'GRANT ALL ON ALL TABLES IN SCHEMA public TO "{role}"; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
        cursor.execute(f'SET ROLE "{role}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--prefix", default="bench")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--commands", action="store_true", help="Also time the management commands, start-up included.")
    parser.add_argument(
        "--one-file", action="store_true", help="Write every judgment into a single file (one blind test of scale × the size)."
    )
    parser.add_argument(
        "--role", default="", help="Import as this role (SET ROLE, granted the tables): an ordinary role takes the path with triggers."
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    base = f"{args.prefix}_imports_base_{args.scale}x"
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [base]).fetchone()
    started = time.perf_counter()
    if args.rebuild or not exists:
        build_base(base, args.scale)
        print(f"base {base} built in {time.perf_counter() - started:.0f}s", flush=True)
    else:
        os.environ["DATABASE_URL"] = f"{SERVER}/{base}"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)  # a base kept from an older checkout
    from django.db import connection

    from heartbench_core.bulk import may_skip_row_triggers
    from heartbench_core.services.judging import import_judge_runs
    from validation.services import imports as imports_module
    from validation.services.imports import import_judgments

    with tempfile.TemporaryDirectory() as tmp:
        judgment_files, judge_files, n_judgments, n_verdicts = write_files(Path(tmp), args.scale)
        if args.one_file and len(judgment_files) > 1:
            single = Path(tmp) / "blind-test.jsonl"
            single.write_text("".join(p.read_text() for p in judgment_files))
            judgment_files = [single]
        connection.close()
        print(
            f"files: {len(judgment_files)} judgment files ({n_judgments} judgments), {len(judge_files)} judge files ({n_verdicts} verdicts)",
            flush=True,
        )
        human, judge = [], []
        human_cpu: list[tuple[float, float]] = []
        judge_cpu: list[tuple[float, float]] = []
        single: list[tuple[int, float, float]] = []
        for run in range(args.runs):
            copy = f"{args.prefix}_imports_run_{os.getpid()}"
            psql("postgres", f'CREATE DATABASE "{copy}" TEMPLATE "{base}" STRATEGY FILE_COPY')
            try:
                use_database(copy)
                if args.role:
                    act_as(args.role)
                fast = may_skip_row_triggers(imports_module._WRITTEN_TABLES, imports_module._REPLACED_TRIGGERS)
                cpu, server, start = time.process_time(), backend_cpu_seconds(), time.perf_counter()
                outcome = import_judgments(source=judgment_files, dataset_name="heartbench", campaign_name=f"imported-{args.scale}x")
                human.append(time.perf_counter() - start)
                human_cpu.append((time.process_time() - cpu, backend_cpu_seconds() - server))
                assert outcome.judgments == n_judgments, outcome
                cpu, server, start = time.process_time(), backend_cpu_seconds(), time.perf_counter()
                runs = import_judge_runs(files=judge_files, dataset_name="heartbench", judge="bench-judge")
                judge.append(time.perf_counter() - start)
                judge_cpu.append((time.process_time() - cpu, backend_cpu_seconds() - server))
                assert sum(o.verdicts for o in runs) == n_verdicts
                single.extend(time_single_judge_files(judge_files[:SINGLE_FILES]))
                print(
                    f"run {run + 1}: import_judgments {human[-1]:.2f}s ({n_judgments / human[-1]:,.0f}/s; CPU: Python "
                    f"{human_cpu[-1][0]:.2f}s + PostgreSQL {human_cpu[-1][1]:.2f}s), "
                    f"import_judge_verdicts {judge[-1]:.2f}s ({n_verdicts / judge[-1]:,.0f}/s; CPU: Python "
                    f"{judge_cpu[-1][0]:.2f}s + PostgreSQL {judge_cpu[-1][1]:.2f}s), "
                    f"without per-row triggers: {fast}, load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
            finally:
                connection.close()
                psql("postgres", f'DROP DATABASE IF EXISTS "{copy}"')
        h, j = statistics.median(human), statistics.median(judge)
        hc, jc = statistics.median(sum(c) for c in human_cpu), statistics.median(sum(c) for c in judge_cpu)
        print(f"median of {args.runs}: import_judgments {h:.2f}s = {n_judgments / h:,.0f} judgments/s; ", end="")
        print(f"import_judge_verdicts {j:.2f}s = {n_verdicts / j:,.0f} verdicts/s (load {os.getloadavg()[0]:.1f})")
        print(
            f"per CPU second (Python + PostgreSQL backend, what a quiet machine would approach): "
            f"import_judgments {n_judgments / hc:,.0f} judgments/s, import_judge_verdicts {n_verdicts / jc:,.0f} verdicts/s"
        )
        count, wall, cpu_s = (statistics.median(column) for column in zip(*single))
        print(
            f"import_judge_verdicts of one file ({count:.0f} verdicts), median of {len(single)}: {wall * 1000:.0f} ms = "
            f"{count / wall:,.0f} verdicts/s; CPU {cpu_s * 1000:.0f} ms = {count / cpu_s:,.0f} verdicts per CPU second"
        )
        if args.commands:
            time_commands(base, judgment_files, judge_files, args)


SINGLE_FILES = 5


def time_single_judge_files(judge_files: list[tuple[Path, str]]) -> list[tuple[int, float, float]]:
    """Each file imported alone, as another judge's run (one call each): (verdicts, wall seconds, CPU seconds of Python + PostgreSQL)."""
    from heartbench_core.services.judging import import_judge_verdicts

    out = []
    for path, model in judge_files:
        cpu, server, start = time.process_time(), backend_cpu_seconds(), time.perf_counter()
        outcome = import_judge_verdicts(source=path, dataset_name="heartbench", model_name=model, judge="bench-one-file")
        wall = time.perf_counter() - start
        out.append((outcome.verdicts, wall, time.process_time() - cpu + backend_cpu_seconds() - server))
    return out


def time_commands(base: str, judgment_files: list[Path], judge_files: list[tuple[Path, str]], args: argparse.Namespace) -> None:
    copy = f"{args.prefix}_imports_cmd_{os.getpid()}"
    psql("postgres", f'CREATE DATABASE "{copy}" TEMPLATE "{base}" STRATEGY FILE_COPY')
    env = {**os.environ, "DATABASE_URL": f"{SERVER}/{copy}"}
    python = str(ROOT / ".venv" / "bin" / "python")
    try:
        for label, command in (
            (
                "manage.py import_judgments (all files)",
                ["import_judgments", *map(str, judgment_files), "--dataset", "heartbench", "--campaign", "cmd"],
            ),
            (
                "manage.py import_judge_verdicts (all files)",
                ["import_judge_verdicts", *(str(p) for p, _ in judge_files), "--dataset", "heartbench", "--judge", "bench-judge"],
            ),
        ):
            start = time.perf_counter()
            subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
            print(f"{label}: {time.perf_counter() - start:.2f}s (load {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        psql("postgres", f'DROP DATABASE IF EXISTS "{copy}"')


if __name__ == "__main__":
    main()
