"""Time the pages that must stay flat when a blind test has more models, an expert's history grows and a campaign grows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/flat_directions.py \
        [--scale 10] [--runs 15] [--json benchmarks/results/flat_directions.json]

It builds a throw-away database (Django's test database of DATABASE_URL: `test_<name>`, dropped at
the end) holding both sizes side by side on the demo version, as the query-count tests build them
(`tests/annotation/test_pages_cost_the_same_queries_at_1x_and_3x.py`): a blind test of 3 models'
responses judged by three experts, and another of `--scale` times the models judged by three other
experts; one judge run per model under the judge `bench-1x`, and `--scale` times the runs under
`bench-Nx`; in each blind test the first expert is taken off the roster (they take part through the
work they hold, and their history is the blind test's size). The queue of each is stored as the
background refresh does. Each request is timed in-process (Django's test client: middleware,
session, view, template or serializer) at 1× and at N× in turn, so that the load of a shared machine
weighs on both alike; it prints medians at 1× and N×, their ratio (N× ÷ 1×) and the load average.

Requests: the adjudication queue (page, every compared unit on its deepest full page, API), the expert home
and completed-work page, the leaderboard (page, a search showing one model, API), the campaign's
assignments: the deepest page that is full at both sizes, asked by number (`?page=N`, an offset) and
through the Next link of the page before (a keyset).
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
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=int, default=10, help="how many times the models the grown installation holds (default 10)")
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
        report = _run(args, Client)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


def _run(args: argparse.Namespace, client_class) -> dict[str, object]:
    from annotation.manage.selectors import assignment_overview_page
    from annotation.models import Assignment
    from annotation.services.campaigns import create_campaign
    from heartbench_core.blindness import blind_scope
    from heartbench_core.roles import Role
    from heartbench_core.services.judging import import_judge_verdicts
    from tests.annotation.test_pages_cost_the_same_queries_at_1x_and_3x import BASE_MODELS, _add_models, _judge
    from tests.conftest import make_user
    from tests.factories import FIXTURES, demo_responses, demo_version
    from validation.models import QueueSummary
    from validation.services.queue_summary import store_queue_summary

    admin = make_user("bench_admin", Role.ADMIN)
    reviewer = make_user("bench_reviewer", Role.SENIOR_REVIEWER)
    demo_version()
    demo_responses()
    with tempfile.TemporaryDirectory() as tmp:
        grown = _add_models(Path(tmp), 3, 3 * (args.scale - 1))
    sizes = {"1": list(BASE_MODELS), "N": [*BASE_MODELS, *grown]}

    def build(size: str) -> dict[str, object]:
        models = sizes[size]
        cast = SimpleNamespace(experts=[make_user(f"bench_expert_{size}{i}", Role.EXPERT) for i in range(1, 4)])
        campaign = create_campaign(
            name=f"Blind test {size}x",
            dataset_name="demo",
            model_names=BASE_MODELS,
            sample_fraction=1.0,
            overlap=3,
            expert_usernames=[e.username for e in cast.experts],
            requires_qualification=False,
            rationale_min_chars=10,
        ).campaign
        _judge(cast, campaign, models)
        for n, model in enumerate(models):
            source = FIXTURES / "verdicts" / f"{BASE_MODELS[n % 3]}.jsonl"
            import_judge_verdicts(source=source, dataset_name="demo", model_name=model, judge=f"bench-{size}x")
        expert = cast.experts[0]
        campaign.experts.remove(expert)  # the expert takes part through the work they hold
        store_queue_summary(campaign=campaign)
        assignments = Assignment.objects.filter(campaign_response__campaign=campaign).count()
        units = QueueSummary.objects.get(campaign=campaign).compared
        # The deepest page full at both sizes, by number and by the cursor a reader following Next links carries there.
        deep = max(1, assignments // 50)
        keyset: dict[str, object] = {"page": deep}
        if deep > 1:
            keyset["after"] = assignment_overview_page(campaign, number=deep - 1, scope=blind_scope(admin)).next_after
        as_admin, as_reviewer, as_expert = client_class(), client_class(), client_class()
        as_admin.force_login(admin)
        as_reviewer.force_login(reviewer)
        as_expert.force_login(expert)
        c, judge = campaign.pk, f"bench-{size}x"
        calls = {
            "adjudication queue page": lambda: as_reviewer.get(f"/validation/campaigns/{c}/adjudication/"),
            "adjudication queue, every compared unit, deepest full page": lambda: as_reviewer.get(
                f"/validation/campaigns/{c}/adjudication/", {"show": "all", "page": max(1, units // 50)}
            ),
            "adjudication queue API (every compared unit)": lambda: as_reviewer.get(
                f"/api/v1/validation/campaigns/{c}/queue/", {"show": "all"}
            ),
            "expert home (history in a campaign not listing them)": lambda: as_expert.get("/work/"),
            "expert's completed work": lambda: as_expert.get("/work/done/"),
            "leaderboard page": lambda: as_admin.get("/datasets/demo/v/v1/leaderboard/", {"judge": judge}),
            "leaderboard page, a search showing one model": lambda: as_admin.get(
                "/datasets/demo/v/v1/leaderboard/", {"judge": judge, "q": "aurora"}
            ),
            "leaderboard API": lambda: as_admin.get("/api/v1/scores/leaderboard/", {"dataset": "demo", "judge": judge}),
            "campaign assignments, deepest full page (?page=N, offset)": lambda: as_admin.get(
                f"/work/manage/campaigns/{c}/assignments/", {"page": deep}
            ),
            "campaign assignments, deepest full page (Next link, keyset)": lambda: as_admin.get(
                f"/work/manage/campaigns/{c}/assignments/", keyset
            ),
        }
        size_of = {
            "models": len(models),
            "assignments": assignments,
            "expert's assignments": Assignment.objects.filter(expert=expert).count(),
            "compared units": units,
        }
        return {"calls": calls, "size": size_of}

    one, many = build("1"), build("N")
    loads = [os.getloadavg()[0]]
    timings: dict[str, dict[str, float]] = {}
    for name, call_one in one["calls"].items():  # type: ignore[attr-defined]
        call_many = many["calls"][name]  # type: ignore[index]
        for call in (call_one, call_many):  # warm both
            for _ in range(2):
                assert call().status_code < 400, name
        samples: dict[str, list[float]] = {"1": [], "N": []}
        for _ in range(args.runs):  # in turn, so that the machine's load weighs on both sizes alike
            for key, call in (("1", call_one), ("N", call_many)):
                started = time.perf_counter()
                response = call()
                samples[key].append((time.perf_counter() - started) * 1000)
                assert response.status_code < 400, (name, response.status_code)
        timings[name] = {key: statistics.median(values) for key, values in samples.items()}
        loads.append(os.getloadavg()[0])
    print(f"1×: {one['size']} · {args.scale}×: {many['size']} · load {min(loads):.2f}–{max(loads):.2f}")
    print(f"{'request':62} {'1× ms':>8} {f'{args.scale}× ms':>8} {'ratio':>6}")
    for name, t in timings.items():
        print(f"{name:62} {t['1']:8.1f} {t['N']:8.1f} {t['N'] / t['1']:6.2f}")
    return {"scale": args.scale, "sizes": {"1": one["size"], str(args.scale): many["size"]}, "load": loads, "ms": timings}


if __name__ == "__main__":
    main()
