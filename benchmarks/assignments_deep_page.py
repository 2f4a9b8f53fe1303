"""Time a deep page of the admin's assignments list of a small and of a big campaign, and show PostgreSQL's plan of it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/assignments_deep_page.py \
        [--experts 28,2750] [--runs 15] [--json benchmarks/results/assignments_deep_page.json]

PostgreSQL only. It builds a throw-away database (Django's test database of DATABASE_URL, dropped at the end): the
demo version with 30 models' responses (the demo texts under new names), and one campaign of its
180 responses per size, each response assigned to every one of `--experts` experts (written by
SQL, submitted, their reservation times one second apart): 5,040 and 495,000 assignments by
default, the issue's 1× and 100× campaign. Each request is timed in-process (Django's test
client) at both sizes in turn: the deepest full page asked by number (`?page=N`, an offset) and
by the Next link of the page before (a keyset). Then EXPLAIN (ANALYZE, BUFFERS) of the query that
reads the ids of the keyset's deep page of the big campaign is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--experts", default="28,2750", help="experts per campaign, comma-separated (default 28,2750)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    os.environ.setdefault("HEARTBENCH_LANGUAGE", "en")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    settings.ALLOWED_HOSTS = ["testserver"]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        report = _run([int(n) for n in args.experts.split(",")], args.runs, Client)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


def _run(sizes: list[int], runs: int, client_class) -> dict[str, object]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation.manage.selectors import assignment_overview_page
    from annotation.models import Assignment
    from annotation.services.campaigns import create_campaign
    from heartbench_core.blindness import blind_scope
    from heartbench_core.roles import Role
    from tests.annotation.test_pages_cost_the_same_queries_at_1x_and_3x import BASE_MODELS, _add_models
    from tests.conftest import make_user
    from tests.factories import demo_responses, demo_version

    started = time.perf_counter()
    admin = make_user("bench_admin", Role.ADMIN)
    roster = [make_user(f"bench_expert{i}", Role.EXPERT).username for i in range(3)]
    demo_version()
    demo_responses()
    with tempfile.TemporaryDirectory() as tmp:
        models = [*BASE_MODELS, *_add_models(Path(tmp), 3, 27)]
    User = get_user_model()
    campaigns = {}
    for n, size in enumerate(sizes):
        campaign = create_campaign(
            name=f"Campaign of {size} experts",
            dataset_name="demo",
            model_names=models,
            sample_fraction=1.0,
            overlap=3,
            expert_usernames=roster,
            requires_qualification=False,
        ).campaign
        User.objects.bulk_create([User(username=f"bench_{n}_{i}", password="!") for i in range(size)], batch_size=2000)
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO annotation_assignment (public_id, campaign_response_id, campaign_id, expert_id, status, reserved_at,"
                " submitted_at, active_seconds, submitted_while_paused)"
                " SELECT md5(cr.id || '-' || u.id), cr.id, cr.campaign_id, u.id, 'submitted',"
                " now() - (row_number() OVER (ORDER BY u.id, cr.id)) * interval '1 second', now(), 0, false"
                " FROM annotation_campaignresponse cr CROSS JOIN hb_user u"
                " WHERE cr.campaign_id = %s AND u.username LIKE %s",
                [campaign.pk, f"bench\\_{n}\\_%"],
            )
        campaigns[size] = campaign
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    counts = {size: Assignment.objects.filter(campaign=c).count() for size, c in campaigns.items()}
    print(f"built {counts} assignments in {time.perf_counter() - started:.0f} s")
    client = client_class()
    client.force_login(admin)
    scope = blind_scope(admin)
    deep = max(1, min(counts.values()) // 50)  # the deepest page full at both sizes... and the big one's own deepest
    calls = {}
    for size, campaign in campaigns.items():
        url = f"/work/manage/campaigns/{campaign.pk}/assignments/"
        last = counts[size] // 50
        cursors = {n: assignment_overview_page(campaign, number=n - 1, scope=scope).next_after for n in (deep, last)}
        calls[size] = {
            f"page {deep} by number (offset)": lambda url=url: client.get(url, {"page": deep}),
            f"page {deep} by the Next link (keyset)": lambda url=url, c=cursors[deep]: client.get(url, {"page": deep, "after": c}),
            "deepest full page by number (offset)": lambda url=url, last=last: client.get(url, {"page": last}),
            "deepest full page by the Next link (keyset)": lambda url=url, last=last, c=cursors[last]: client.get(
                url, {"page": last, "after": c}
            ),
        }
    loads = [os.getloadavg()[0]]
    timings: dict[str, dict[str, float]] = {}
    for name in calls[sizes[0]]:
        for size in sizes:
            assert calls[size][name]().status_code == 200
        samples: dict[int, list[float]] = {size: [] for size in sizes}
        for _ in range(runs):
            for size in sizes:
                begun = time.perf_counter()
                assert calls[size][name]().status_code == 200
                samples[size].append((time.perf_counter() - begun) * 1000)
        timings[name] = {str(counts[size]): statistics.median(v) for size, v in samples.items()}
        loads.append(os.getloadavg()[0])
    small, big = str(counts[sizes[0]]), str(counts[sizes[-1]])
    print(f"load {min(loads):.2f}–{max(loads):.2f}")
    print(f"{'request':48} {small + ' ms':>12} {big + ' ms':>12} {'ratio':>6}")
    for name, t in timings.items():
        print(f"{name:48} {t[small]:12.1f} {t[big]:12.1f} {t[big] / t[small]:6.2f}")
    campaign = campaigns[sizes[-1]]
    last = counts[sizes[-1]] // 50
    after = assignment_overview_page(campaign, number=last - 1, scope=scope).next_after
    plans = {}
    for name, kwargs in (("keyset", {"after": after}), ("offset", {})):
        with CaptureQueriesContext(connection) as ctx:
            assignment_overview_page(campaign, number=last, scope=scope, **kwargs)
        ids = next(q["sql"] for q in ctx.captured_queries if "ORDER BY" in q["sql"] and '"annotation_assignment"."id"' in q["sql"])
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + ids)
            plans[name] = [row[0] for row in cursor.fetchall()]
        print(f"\nEXPLAIN of the ids of page {last} of {big} ({name}):\n" + "\n".join(plans[name]))
    return {"assignments": counts, "load": loads, "ms": timings, "plans": plans}


if __name__ == "__main__":
    main()
