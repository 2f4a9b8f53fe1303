"""Every page in the navigation, as an admin and as an expert, side by side per installation: does any grow with its size?

    .venv/bin/python benchmarks/every_page.py --db h19c_1x --db h19c_100x [--runs 7] [--depth 2] [--json out.json]

Each --db is a migrated PostgreSQL database on 127.0.0.1:5432 built by benchmarks/workload.py (its
users `bench_admin` and `bench_expert_NNN`); nothing is written to it but sessions and caches.
`request_table.py` times the requests of the issue's table over HTTP; this script finds the
pages it does not name: for each database, in its own process, it signs in the admin and the
expert holding the most open work (Django's test client: server time, no network), collects the
links of the navigation bar of each one's landing page, adds the pages one step further that
every installation has (the newest blind test's page, its assignments, its agreement dashboard,
the dataset's leaderboard and release gate), views each page once untimed (what a first view
computes and keeps), then --runs times, and prints the median and the number of queries per
page, one column per database, and the growth of the last over the first.

With --depth 2 it also follows the links of those pages one step further (pages of the same
shape, ids and keys aside, counted once: the first found), so the table reaches the editors,
lists and reports a person opens from the navigation. Downloads, exports and confirmation pages
are left out. Pages are named by their shape there (ids as N, keys as K), as they differ between
installations (`shape`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


SKIPPED = ("/logout", "/admin/", "/static/", "/i18n/", "export", ".csv", ".jsonl", ".zip", "download", "confirm", "delete", "release")


def shape(url: str) -> str:
    """A page's URL with its ids as N and its keys (public ids, UUIDs, item keys) as K: the same page of another installation."""

    def part(segment: str) -> str:
        if segment.isdigit():
            return "N"
        if len(segment) >= 6 and (any(c.isdigit() for c in segment) or segment != segment.lower()):
            return "K"
        return segment

    return "/".join(part(segment) for segment in url.split("/"))


def measure(runs: int, depth: int = 1) -> dict[str, dict[str, float]]:
    """In this process (DATABASE_URL set): median milliseconds and queries of every page, as "who url"."""
    import statistics
    import time

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    sys.path.insert(0, str(ROOT))
    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotation.models import Assignment, Campaign
    from heartbench_core.models import User

    settings.ALLOWED_HOSTS = ["testserver"]
    settings.DEBUG = False
    admin = User.objects.get(username="bench_admin")
    busiest = (
        Assignment.objects.filter(status=Assignment.Status.RESERVED)
        .values("expert_id")
        .annotate(n=Count("pk"))
        .order_by("-n", "expert_id")
        .first()
    )
    expert = User.objects.get(pk=busiest["expert_id"]) if busiest else User.objects.filter(username__startswith="bench_expert_").first()
    newest = Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST).select_related("version__dataset").order_by("-created_at").first()
    clients = {}
    for who, user in (("admin", admin), ("expert", expert)):
        clients[who] = Client()
        clients[who].force_login(user)
    pages: list[tuple[str, str]] = []
    for who, client in clients.items():
        landing = client.get("/", follow=True).content.decode()
        nav = " ".join(re.findall(r"<nav.*?</nav>", landing, re.S)) or landing
        for url in sorted(set(re.findall(r'href="(/[^"#?]*)"', nav))):
            if not any(part in url for part in SKIPPED):
                pages.append((who, url))
    if newest is not None:
        version = newest.version
        pages += [
            ("admin", f"/work/manage/campaigns/{newest.pk}/"),
            ("admin", f"/work/manage/campaigns/{newest.pk}/assignments/"),
            ("admin", f"/validation/campaigns/{newest.pk}/"),
            ("admin", f"/datasets/{version.dataset.name}/v/{version.label}/leaderboard/"),
            ("admin", f"/validation/versions/{version.pk}/gate/"),
        ]
    if depth > 1:
        shapes = {(who, shape(url)) for who, url in pages}
        for who, url in list(pages):
            page = clients[who].get(url)
            if page.status_code != 200 or "text/html" not in page.get("Content-Type", ""):
                continue
            for found in re.findall(r'href="(/[^"#]*)"', page.content.decode()):
                found = found.replace("&amp;", "&").split("?")[0]
                seen = (who, shape(found))
                if seen not in shapes and not any(part in found for part in SKIPPED):
                    shapes.add(seen)
                    pages.append((who, found))
    out: dict[str, dict[str, float]] = {}
    for who, url in pages:
        client = clients[who]
        name = url if depth == 1 else shape(url)
        first = client.get(url)
        if first.status_code != 200:
            out[f"{who} {name}"] = {"status": first.status_code, "ms": 0.0, "queries": 0}
            continue
        times, counted = [], 0
        for _ in range(runs):
            with CaptureQueriesContext(connection) as captured:
                start = time.perf_counter()
                client.get(url)
                times.append((time.perf_counter() - start) * 1000)
            counted = len(captured)
        out[f"{who} {name}"] = {"status": 200, "ms": statistics.median(times), "queries": counted}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", required=True)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--depth", type=int, default=1, choices=(1, 2), help="2: also the pages one link further")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--json")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.runs, args.depth)))
        return
    results = {}
    for db in args.db:
        env = {**os.environ, "DATABASE_URL": f"{args.server}/{db}"}
        done = subprocess.run(
            [sys.executable, __file__, "--measure", "--db", db, "--runs", str(args.runs), "--depth", str(args.depth)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        results[db] = json.loads(done.stdout.strip().splitlines()[-1])
    keys = sorted({k for r in results.values() for k in r}, key=lambda k: (k.split()[0], k.split()[1]))
    print(f"{'page':62}" + "".join(f"{db:>18}" for db in args.db) + "    growth")
    for key in keys:
        cells = [results[db].get(key) for db in args.db]
        line = f"{key:62}"
        for cell in cells:
            if cell is None:
                line += f"{'–':>18}"
            elif cell["status"] != 200:
                line += f"{'HTTP ' + str(cell['status']):>18}"
            else:
                line += f"{cell['ms']:9.1f} ms {cell['queries']:3d} q"
        first, last = cells[0], cells[-1]
        if first and last and first["status"] == last["status"] == 200 and first["ms"]:
            line += f"    {last['ms'] / first['ms']:.1f}×"
        print(line)
    print(f"medians of {args.runs} views, server time in-process; load average {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": args.runs, "results": results}, indent=2))


if __name__ == "__main__":
    main()
