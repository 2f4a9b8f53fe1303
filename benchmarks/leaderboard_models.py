"""Time the leaderboard API and page when one dataset version is judged for 14, 140 and 1,400 models.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/leaderboard_models.py \
        [--sizes 14,140,1400] [--runs 15] [--json benchmarks/results/leaderboard_models.json]

It builds a throw-away database (Django's test database of DATABASE_URL: `test_<name>`, dropped at
the end) holding every size side by side on the demo version: as many models as the largest size
(the demo responses under new names), and for each size one judge (`bench-<size>`) with a run of
that many models (the demo's synthetic verdicts), so that the API and the page, filtered by judge,
see 14, 140 or 1,400 runs. The first call of each size scores and stores its runs (timed once,
apart). Then each request is timed in-process (Django's test client: middleware, session, view,
serializer or template) at every size in turn, so that the load of a shared machine weighs on all
alike; it prints medians, the ratio of the largest size to the smallest, and the load average.
`score_models` (every model scored from its stored arrays, what the API did before it paged) is
timed beside them as the reference.
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
    parser.add_argument("--sizes", default="14,140,1400", help="models per judge, comma-separated (default 14,140,1400)")
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
        report = _run([int(s) for s in args.sizes.split(",")], args.runs, Client)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


def _run(sizes: list[int], runs: int, client_class) -> dict[str, object]:
    from django.db import connection

    from heartbench_core.roles import Role
    from heartbench_core.services.judging import import_judge_verdicts
    from heartbench_core.services.scoring import score_models
    from tests.annotation.test_pages_cost_the_same_queries_at_1x_and_3x import BASE_MODELS, _add_models
    from tests.conftest import make_user
    from tests.factories import FIXTURES, demo_responses, demo_version

    admin = make_user("bench_admin", Role.ADMIN)
    demo_version()
    demo_responses()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        models = [*BASE_MODELS, *_add_models(Path(tmp), 3, max(sizes) - 3)]
    for size in sizes:
        for n, model in enumerate(models[:size]):
            source = FIXTURES / "verdicts" / f"{BASE_MODELS[n % 3]}.jsonl"
            import_judge_verdicts(source=source, dataset_name="demo", model_name=model, judge=f"bench-{size}")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE")
    print(f"built {len(models)} models and {sum(sizes)} runs in {time.perf_counter() - started:.0f} s")
    client = client_class()
    client.force_login(admin)
    api, page = "/api/v1/scores/leaderboard/", "/datasets/demo/v/v1/leaderboard/"
    first: dict[str, float] = {}
    for size in sizes:
        started = time.perf_counter()
        assert client.get(api, {"dataset": "demo", "judge": f"bench-{size}"}).status_code == 200
        first[str(size)] = (time.perf_counter() - started) * 1000
        client.get(page, {"judge": f"bench-{size}"})

    def calls(size: int) -> dict[str, object]:
        judge = f"bench-{size}"
        last = max(1, (size + 49) // 50)
        return {
            "leaderboard API, first page (50 models)": lambda: client.get(api, {"dataset": "demo", "judge": judge}),
            "leaderboard API, last page": lambda: client.get(api, {"dataset": "demo", "judge": judge, "page": last}),
            "leaderboard API, a search finding one model": lambda: client.get(
                api, {"dataset": "demo", "judge": judge, "q": models[size - 1]}
            ),
            "leaderboard API, hard questions, top 10": lambda: client.get(
                api, {"dataset": "demo", "judge": judge, "subset": "hard", "top": 10}
            ),
            "leaderboard page (50 rows)": lambda: client.get(page, {"judge": judge}),
            "leaderboard page, a search showing one model": lambda: client.get(page, {"judge": judge, "q": models[size - 1]}),
            "reference: score_models, every model (the API before it paged)": lambda: score_models(dataset_name="demo", judge=judge),
        }

    by_size = {size: calls(size) for size in sizes}
    loads = [os.getloadavg()[0]]
    timings: dict[str, dict[str, float]] = {}
    sizes_kb: dict[str, dict[str, float]] = {}
    for name in by_size[sizes[0]]:
        for size in sizes:  # warm
            by_size[size][name]()  # type: ignore[operator]
        samples: dict[int, list[float]] = {size: [] for size in sizes}
        for _ in range(runs):
            for size in sizes:
                started = time.perf_counter()
                response = by_size[size][name]()  # type: ignore[operator]
                samples[size].append((time.perf_counter() - started) * 1000)
                if hasattr(response, "status_code"):
                    assert response.status_code == 200, (name, size, response.status_code)
                    sizes_kb.setdefault(name, {})[str(size)] = len(response.content) / 1024
        timings[name] = {str(size): statistics.median(values) for size, values in samples.items()}
        loads.append(os.getloadavg()[0])
    small, big = str(sizes[0]), str(sizes[-1])
    print(f"sizes {sizes} · load {min(loads):.2f}–{max(loads):.2f} · first API call (scores and stores the runs): {first}")
    print(f"{'request':66} " + " ".join(f"{s + ' ms':>9}" for s in map(str, sizes)) + f" {'ratio':>6} {'KB':>14}")
    for name, t in timings.items():
        kb = sizes_kb.get(name)
        print(
            f"{name:66} "
            + " ".join(f"{t[str(s)]:9.1f}" for s in sizes)
            + f" {t[big] / t[small]:6.2f}"
            + (f" {kb[small]:6.0f}→{kb[big]:.0f}" if kb else "")
        )
    return {"sizes": sizes, "load": loads, "first_call_ms": first, "ms": timings, "kb": sizes_kb}


if __name__ == "__main__":
    main()
