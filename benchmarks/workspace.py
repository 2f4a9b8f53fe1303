"""Time the server side of the judging page of the 22-criterion demo item (dm0006), and of an autosave.

Run:  .venv/bin/python benchmarks/workspace.py [--runs 200]
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/workspace.py
It creates and drops a throw-away database (or SQLite file), so it never touches real data.
Each run is one full request through Django's test client (middleware, session, view,
template); the first requests warm caches and are not counted. Prints min / median / p95 ms.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
    import django

    django.setup()
    from datetime import timedelta

    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_databases, teardown_databases
    from django.utils import timezone

    # No setup_test_environment(): its template instrumentation copies every context and would be measured too.
    settings.ALLOWED_HOSTS = ["testserver"]
    old = setup_databases(verbosity=0, interactive=False, aliases=["default"])
    try:
        from django.contrib.auth.models import Group

        from annotation.models import Assignment, CampaignResponse
        from annotation.services.campaigns import create_campaign
        from heartbench_core.models import User
        from heartbench_core.roles import Role
        from tests.factories import demo_responses, demo_version

        demo_version()
        demo_responses()
        expert = User.objects.create_user("bench_expert", password="x")
        expert.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
        campaign = create_campaign(
            name="bench",
            dataset_name="demo",
            model_names=["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"],
            sample_fraction=1.0,
            overlap=1,
            expert_usernames=[expert.username],
            requires_qualification=False,
        ).campaign
        cr = CampaignResponse.objects.filter(campaign=campaign, item__question_id="dm0006").first()
        assignment = Assignment.objects.create(campaign_response=cr, expert=expert, expires_at=timezone.now() + timedelta(hours=2))
        criteria = list(cr.item.criteria.all())
        client = Client()
        client.force_login(expert)
        url = f"/work/a/{assignment.public_id}/"
        draft_url = f"/work/a/{assignment.public_id}/draft/"
        draft = {}
        for c in criteria:
            draft.update({f"rationale-{c.pk}": f"A rationale for criterion {c.position}", f"hit-{c.pk}": "hit"})

        def measure(call):
            for _ in range(10):
                call()
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                response = call()
                times.append((time.perf_counter() - start) * 1000)
                assert response.status_code == 200, response.status_code
            times.sort()
            return times[0], statistics.median(times), times[int(0.95 * len(times)) - 1]

        page = measure(lambda: client.get(url))
        save = measure(lambda: client.post(draft_url, draft, HTTP_HX_REQUEST="true"))
        print(f"{connection.vendor}: dm0006 ({len(criteria)} criteria), {args.runs} runs each")
        print(f"  judging page  min {page[0]:.1f} ms  median {page[1]:.1f} ms  p95 {page[2]:.1f} ms")
        print(f"  autosave (22) min {save[0]:.1f} ms  median {save[1]:.1f} ms  p95 {save[2]:.1f} ms")
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
