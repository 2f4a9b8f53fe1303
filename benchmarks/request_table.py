"""The request table of issue 19: medians of the requests people make, over HTTP against gunicorn, side by side per installation.

    .venv/bin/python benchmarks/request_table.py --db h19d_1x --db h19d_10x [--db h19d_100x] [--repeats 15]
        [--export-repeats 3] [--workers 4] [--threads 3] [--admin bench_admin] [--expert auto]
        [--password bench-password-19] [--json benchmarks/results/request_table.json]

One blind test growing with the number of models (docs/benchmarks.md, "Requests as one blind test grows"):

    for m in 14 140 1400; do .venv/bin/python benchmarks/workload.py --scale 2 --experts 25 --models $m --db dir_m$m; done
    .venv/bin/python benchmarks/request_table.py --db dir_m14 --db dir_m140 --db dir_m1400 \
        --label "14 models" --label "140 models" --label "1,400 models"

Each --db is a migrated PostgreSQL database on 127.0.0.1:5432 built by benchmarks/workload.py (its
users, the "heartbench" dataset, blind tests named blind-test-NNN, one of them active). Run it on
COPIES (`createdb -h 127.0.0.1 -U postgres -T h19a_10x mine_10x`, then `manage.py migrate`): it
submits --repeats of the expert's open assignments and saves drafts on them.

For each database in turn it starts gunicorn with the project's gunicorn.conf.py (bound to a free
port on 127.0.0.1, --workers x --threads), signs in the admin and the expert with the session
login, sends each request twice untimed (the first view of the dashboard and of the leaderboard
computes and stores what later views read; their first time is printed as "first view"), then
times --repeats requests of each (--export-repeats for the export, read to its last byte) and
prints the median wall time on loopback per request, one column per database, and the growth
of the last column over the first. The machine's load average is printed with the table.

The requests, by URL (the rows of the issue's table):
- expert home                    GET /work/                                         (expert)
- assignment list API            GET /api/v1/annotation/assignments/                (expert, the first page)
- validation dashboard           GET /validation/campaigns/<active blind test>/     (admin; it has a stored report)
- leaderboard                    GET /datasets/heartbench/v/<label>/leaderboard/    (admin; 50 models a page)
- leaderboard API                GET /api/v1/scores/leaderboard/?dataset=heartbench  (admin; the first page of 50)
- adjudication queue             GET /validation/campaigns/<closed blind test>/adjudication/  (admin; its stored units)
- adjudication queue API         GET /api/v1/validation/campaigns/<closed blind test>/queue/  (admin; the first page)
- campaign detail                GET /work/manage/campaigns/<active>/               (admin)
- campaign assignments page      GET /work/manage/campaigns/<active>/assignments/?page=<random>  (admin)
- judging page                   GET /work/a/<public id>/                           (expert, a different open assignment each time)
- autosave                       POST /api/v1/annotation/assignments/<id>/draft/    (one criterion's rationale and hit)
- submit via API                 POST /api/v1/annotation/assignments/<id>/submit/   (after the other criteria were saved, untimed)
- next-response pull             POST /work/next/<active>/                          (expert; the redirect to their next response, not followed):
                                 once by the busiest expert, who holds pre-assigned work (it is returned), and once by
                                 another expert whose open work was given back, so that the pull ranks the campaign's
                                 open responses and reserves one (given back through the admin API, untimed)
- export judgments.csv           GET /validation/campaigns/<closed blind test>/export/judgments.csv  (admin, whole body; MB/s printed)

Before timing, the stored adjudication queue of every campaign is computed as the background refresh
would (`store_queue_summary`; the build enqueues it with no worker running); its time is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PG = "postgres://postgres@127.0.0.1:5432"

ROWS = (
    ("home", "expert home /work/"),
    ("assignments_api", "expert's assignment list API"),
    ("dashboard", "validation dashboard (a stored report)"),
    ("leaderboard", "leaderboard (first page)"),
    ("leaderboard_api", "leaderboard API (first page)"),
    ("queue", "adjudication queue, closed blind test"),
    ("queue_api", "adjudication queue API (first page)"),
    ("campaign", "campaign detail (progress)"),
    ("assignments_page", "campaign assignments page, random page"),
    ("judging", "judging page"),
    ("autosave", "autosave"),
    ("submit", "submit through the API"),
    ("next", "next-response pull, work held"),
    ("next_ranked", "next-response pull, ranking the open responses"),
    ("export", "export judgments.csv"),
)

# Runs inside the database under test: the ids the requests need (nothing is timed here).
DISCOVER = r"""
import json, sys
import django
django.setup()
from django.utils import timezone
from annotation.models import Assignment, Campaign
from heartbench_core.models import Dataset, JudgeRun, User

wanted = int(sys.argv[2])
active = Campaign.objects.filter(status=Campaign.Status.ACTIVE, agreement_reports__isnull=False).distinct().order_by("-created_at", "-id").first()
if active is None:
    active = Campaign.objects.filter(agreement_reports__isnull=False).distinct().order_by("-created_at", "-id").first()
dataset = Dataset.objects.get(name="heartbench")
version = JudgeRun.objects.filter(version__dataset=dataset).order_by("-version__number").first().version
from django.db.models import Count
if sys.argv[1] == "auto":  # the expert with the most open work in the campaign
    busiest = (
        Assignment.objects.open(timezone.now()).filter(campaign_response__campaign=active)
        .values("expert").annotate(n=Count("id")).order_by("-n").first()
    )
    expert = User.objects.get(pk=busiest["expert"])
else:
    expert = User.objects.get(username=sys.argv[1])
open_work = list(
    Assignment.objects.open(timezone.now()).filter(expert=expert, campaign_response__campaign=active)
    .order_by("id")
    .values_list("public_id", "campaign_response__item_id")[:wanted]
)
from heartbench_core.models import Criterion
criteria = {}
for item_id in {i for _, i in open_work}:
    criteria[item_id] = list(Criterion.objects.filter(item_id=item_id).order_by("position").values_list("id", flat=True))
# The puller: the expert with the least open work there, their open work given back, so that each
# pull ranks the campaign's open responses (a pull with work held only returns it).
puller = (
    Assignment.objects.open(timezone.now()).filter(campaign_response__campaign=active).exclude(expert=expert)
    .values("expert").annotate(n=Count("id")).order_by("n", "expert").first()
)
puller = User.objects.get(pk=puller["expert"])
from annotation.services.assignment import release_assignment
admin = User.objects.get(username=sys.argv[3])
for held in Assignment.objects.open(timezone.now()).filter(expert=puller):
    release_assignment(assignment=held, by=admin)
# Slots the puller may take: other experts' open work on responses the puller never had, given back.
had = set(Assignment.objects.filter(expert=puller, campaign_response__campaign=active).values_list("campaign_response_id", flat=True))
freed = 0
for other in Assignment.objects.open(timezone.now()).filter(campaign_response__campaign=active).exclude(expert__in=[puller, expert]).order_by("id"):
    if other.campaign_response_id not in had:
        release_assignment(assignment=other, by=admin)
        had.add(other.campaign_response_id)
        freed += 1
        if freed >= wanted:
            break
closed = Campaign.objects.filter(status=Campaign.Status.CLOSED).order_by("-created_at", "-id").first() or active
import time as _time
from validation.services.queue_summary import store_queue_summary
_started = _time.perf_counter()
for _campaign in Campaign.objects.order_by("id"):
    store_queue_summary(campaign=_campaign)
queue_seconds = _time.perf_counter() - _started
print(json.dumps({
    "closed": closed.pk,
    "closed_name": closed.name,
    "closed_responses": closed.responses.count(),
    "queue_seconds": queue_seconds,
    "expert": expert.username,
    "puller": puller.username,
    "campaign": active.pk,
    "campaign_name": active.name,
    "assignments": Assignment.objects.filter(campaign_response__campaign=active).count(),
    "version": version.label,
    "open": [{"id": str(p), "criteria": criteria[i]} for p, i in open_work],
}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sign_in(base: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{base}/accounts/login/", timeout=30)
    token = session.cookies.get("csrftoken", "")
    answer = session.post(
        f"{base}/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{base}/accounts/login/"},
        timeout=30,
        allow_redirects=False,
    )
    if answer.status_code != 302:
        sys.exit(f"could not sign in as {username}: HTTP {answer.status_code}")
    session.headers["X-CSRFToken"] = session.cookies.get("csrftoken", "")
    session.headers["Referer"] = base + "/"
    return session


def timed(call: Callable[[], requests.Response]) -> float:
    started = time.perf_counter()
    response = call()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code >= 400:
        sys.exit(f"{response.request.method} {response.request.url} answered {response.status_code}: {response.text[:300]}")
    return elapsed


def get(session: requests.Session, url: str) -> Callable[[], requests.Response]:
    def call() -> requests.Response:
        response = session.get(url, timeout=120, stream=True)
        for _ in response.iter_content(chunk_size=1 << 16):  # to the last byte
            pass
        return response

    return call


def measure(db: str, args: argparse.Namespace) -> dict[str, object]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "heartbench_core.settings",
        "DATABASE_URL": f"{PG}/{db}",
        "PYTHONPATH": str(ROOT),  # this checkout's code, whatever the virtualenv was installed from
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "API_THROTTLE_USER": "100000/min",
        "LOG_LEVEL": "ERROR",
        "PYTHONWARNINGS": "ignore",
    }
    env.pop("PRODUCTION", None)
    found = subprocess.run(
        [PYTHON, "-c", DISCOVER, args.expert, str(args.repeats + 2), args.admin],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode:
        sys.exit(f"{db}: {found.stderr.strip().splitlines()[-1] if found.stderr.strip() else 'discovery failed'}")
    world = json.loads(found.stdout.strip().splitlines()[-1])
    if len(world["open"]) < args.repeats + 2:
        sys.exit(
            f"{db}: {world['expert']} has {len(world['open'])} open assignments in {world['campaign_name']}, {args.repeats + 2} needed"
        )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    workers = ["-w", str(args.workers), "--threads", str(args.threads)]
    server = subprocess.Popen(
        [GUNICORN, "-c", str(ROOT / "gunicorn.conf.py"), "-b", f"127.0.0.1:{port}", "--log-level", "warning", *workers],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        for _ in range(150):
            try:
                requests.get(base + "/accounts/login/", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.2)
        else:
            sys.exit("gunicorn did not start")
        admin = sign_in(base, args.admin, args.password)
        expert = sign_in(base, world["expert"], args.password)
        puller = sign_in(base, world["puller"], args.password)
        c = world["campaign"]
        pages = max(1, -(-world["assignments"] // 100))
        rng = random.Random(19)
        reads: dict[str, tuple[requests.Session, Callable[[], str]]] = {
            "home": (expert, lambda: f"{base}/work/"),
            "assignments_api": (expert, lambda: f"{base}/api/v1/annotation/assignments/"),
            "dashboard": (admin, lambda: f"{base}/validation/campaigns/{c}/"),
            "leaderboard": (admin, lambda: f"{base}/datasets/heartbench/v/{world['version']}/leaderboard/"),
            "leaderboard_api": (admin, lambda: f"{base}/api/v1/scores/leaderboard/?dataset=heartbench"),
            "queue": (admin, lambda: f"{base}/validation/campaigns/{world['closed']}/adjudication/"),
            "queue_api": (admin, lambda: f"{base}/api/v1/validation/campaigns/{world['closed']}/queue/"),
            "campaign": (admin, lambda: f"{base}/work/manage/campaigns/{c}/"),
            "assignments_page": (admin, lambda: f"{base}/work/manage/campaigns/{c}/assignments/?page={rng.randint(1, pages)}"),
        }
        times: dict[str, list[float]] = {}
        first: dict[str, float] = {}
        for name, (session, url) in reads.items():
            first[name] = timed(get(session, url()))
            timed(get(session, url()))
            times[name] = [timed(get(session, url())) for _ in range(args.repeats)]
        # One open assignment per round: open it, autosave one criterion, save the rest (untimed), submit.
        work = world["open"]
        api = f"{base}/api/v1/annotation/assignments"
        for n, a in enumerate(work):
            warm = n < 2
            page = timed(get(expert, f"{base}/work/a/{a['id']}/"))
            crits = a["criteria"]
            url = f"{api}/{a['id']}"
            version = expert.get(f"{url}/", timeout=60).json()["version"]  # what the saves are based on (untimed)
            one = {
                "judgments": [{"criterion": crits[0], "rationale": "第一条理由：回答识别了用户的感受。", "hit": True}],
                "active_seconds": 5,
                "version": version,
            }
            saved = {}

            def save_one(url=url, one=one, saved=saved) -> requests.Response:
                answer = expert.post(f"{url}/draft/", json=one, timeout=60)
                saved.update(answer.json())
                return answer

            save = timed(save_one)
            rest = [
                {"criterion": k, "rationale": f"第 {i} 条理由：回答是否做到了这一点。", "hit": i % 2 == 0}
                for i, k in enumerate(crits[1:], 1)
            ]
            rest_saved = expert.post(f"{url}/draft/", json={"judgments": rest, "version": saved["version"]}, timeout=60)
            if rest_saved.status_code != 200:
                sys.exit(f"saving the draft answered {rest_saved.status_code}: {rest_saved.text[:300]}")
            based_on = rest_saved.json()["version"]
            done = timed(
                lambda url=url, based_on=based_on: expert.post(
                    f"{url}/submit/", json={"active_seconds": 30, "version": based_on}, timeout=60
                )
            )
            pull = timed(lambda: expert.post(f"{base}/work/next/{c}/", allow_redirects=False, timeout=60))
            if not warm:
                times.setdefault("judging", []).append(page)
                times.setdefault("autosave", []).append(save)
                times.setdefault("submit", []).append(done)
                times.setdefault("next", []).append(pull)
        # A pull that ranks the live campaign's open responses: each reservation given back (untimed) before the next.
        for n in range(args.repeats + 2):
            pulled = {}

            def pull_ranked(pulled=pulled) -> requests.Response:
                answer = puller.post(f"{base}/work/next/{c}/", allow_redirects=False, timeout=60)
                pulled["to"] = answer.headers.get("Location", "")
                return answer

            took = timed(pull_ranked)
            if "/work/a/" not in pulled["to"]:
                sys.exit(f"the pull did not reserve a response: {pulled['to']!r}")
            public_id = pulled["to"].rstrip("/").rsplit("/", 1)[-1]
            released = admin.post(f"{base}/api/v1/annotation/manage/assignments/{public_id}/release/", timeout=60)
            if released.status_code != 200:
                sys.exit(f"release answered {released.status_code}: {released.text[:300]}")
            if n >= 2:
                times.setdefault("next_ranked", []).append(took)
        export_url = f"{base}/validation/campaigns/{world['closed']}/export/judgments.csv"
        export_bytes = len(admin.get(export_url, timeout=600).content)
        times["export"] = [timed(get(admin, export_url)) for _ in range(args.export_repeats)]
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
    return {
        "db": db,
        "campaign": world["campaign_name"],
        "expert": world["expert"],
        "median_ms": {k: statistics.median(v) for k, v in times.items()},
        "runs_ms": times,
        "first_view_ms": {k: first[k] for k in ("dashboard", "leaderboard", "leaderboard_api", "queue")},
        "closed_responses": world["closed_responses"],
        "queue_store_seconds": world["queue_seconds"],
        "export_bytes": export_bytes,
        "export_mb_per_s": export_bytes / 1e6 / (statistics.median(times["export"]) / 1000),
        "load": os.getloadavg(),
    }


def fmt(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", required=True, help="a migrated copy of a workload database (repeat: one column each)")
    parser.add_argument("--label", action="append", help="column titles (default: the database names)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--export-repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--admin", default="bench_admin")
    parser.add_argument("--expert", default="auto", help="an expert's username (default: the one with the most open work)")
    parser.add_argument("--password", default="bench-password-19")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    labels = args.label or args.db
    if len(labels) != len(args.db):
        sys.exit("give one --label per --db")
    results = []
    for db in args.db:
        print(f"measuring {db} …", file=sys.stderr, flush=True)
        results.append(measure(db, args))
    width = max(len(t) for _, t in ROWS) + 2
    head = "".join(f"{label:>14}" for label in labels) + (f"{'growth':>10}" if len(labels) > 1 else "")
    print(f"\n{'request':<{width}}{head}")
    for key, title in ROWS:
        cells = [r["median_ms"][key] for r in results]  # type: ignore[index]
        growth = f"{cells[-1] / cells[0]:>9.1f}×" if len(cells) > 1 and cells[0] else ""
        print(f"{title:<{width}}" + "".join(f"{fmt(x):>14}" for x in cells) + growth)
    print(f"\nmedians of {args.repeats} requests (export: {args.export_repeats}); gunicorn {args.workers} workers x {args.threads} threads")
    for label, r in zip(labels, results):
        f = r["first_view_ms"]
        load = ", ".join(f"{x:.1f}" for x in r["load"])  # type: ignore[attr-defined]
        print(
            f"{label}: {r['campaign']}, expert {r['expert']}; first view (computes what later views read): dashboard {fmt(f['dashboard'])}, "  # type: ignore[index]
            f"leaderboard {fmt(f['leaderboard'])}, queue {fmt(f['queue'])}; closed blind test {r['closed_responses']} responses, "  # type: ignore[index]
            f"its queue stored in {r['queue_store_seconds']:.1f} s, its judgments.csv {r['export_bytes'] / 1e6:.1f} MB at "
            f"{r['export_mb_per_s']:.0f} MB/s; load average after: {load}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"labels": labels, "results": results}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
