"""Time the server side of the judging page and of an autosave: on the 22-criterion demo item (dm0006), and at HeartBench size.

Run:  .venv/bin/python benchmarks/workspace.py [--runs 200]
      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python benchmarks/workspace.py
It creates and drops a throw-away database (or SQLite file), so it never touches real data.
Each run is one full request through Django's test client (middleware, session, view,
template); the first requests warm caches and are not counted. Prints min / median / p95 ms.

HeartBench size: the released question_all.jsonl (296 items; HEARTBENCH_DIR, skipped when it
is absent) with synthetic responses of six models (1,776 responses, the response text about
900 characters), 25 experts holding three assignments per response (two thirds submitted),
the campaign's guidelines published (about 3,000 characters of Markdown), and the judging page
of the item with the most criteria and of the one with the longest dialogue, with a full draft.
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
        heartbench_size(measure, expert, args.runs)
    finally:
        teardown_databases(old, verbosity=0)


def heartbench_size(measure, expert, runs):
    """The judging page at HeartBench size (see the module's docstring); skipped without the released data."""
    import random
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
    from annotation.services.guidelines import publish_guidelines
    from heartbench_core.models import Item, LanguageModel, ModelResponse, User
    from heartbench_core.roles import Role

    source = Path(os.environ.get("HEARTBENCH_DIR", settings.HEARTBENCH_DIR)) / "question_all.jsonl"
    if not source.exists():
        print(f"HeartBench size: skipped, {source} not found (set HEARTBENCH_DIR)")
        return
    call_command("import_heartbench", str(source), "--dataset", "heartbench", verbosity=0)
    items = list(Item.objects.filter(version__dataset__name="heartbench").prefetch_related("criteria"))
    version = items[0].version
    text = "\n\n".join(["我听到你说这段时间一直很累，好像怎么努力都不被看见。这种感觉真的很消耗人，你愿意多说一点吗？"] * 20)
    responses = []
    for m in range(6):
        model = LanguageModel.objects.create(name=f"bench-model-{m}")
        responses += ModelResponse.objects.bulk_create(
            [ModelResponse(dataset=version.dataset, question_id=i.question_id, model=model, text=text, imported_for=version) for i in items]
        )
    by_question = {i.question_id: i for i in items}
    campaign = Campaign.objects.create(name="HeartBench-sized", version=version, overlap=3, rationale_min_chars=10, show_weights=True)
    rng = random.Random(0)
    crs = CampaignResponse.objects.bulk_create(
        [
            CampaignResponse(campaign=campaign, response=r, item=by_question[r.question_id], order_key=rng.randrange(2**31))
            for r in responses
        ]
    )
    group = Group.objects.get(name=Role.EXPERT.value)
    experts = [User.objects.create_user(f"bench_hb_{n}", password="x") for n in range(25)]
    for e in experts:
        e.groups.add(group)
    now = timezone.now()
    rows = []
    for n, cr in enumerate(crs):
        for j in range(3):
            done = j < 2
            rows.append(
                Assignment(
                    campaign_response=cr,
                    expert=experts[(n + j * 7) % 25],
                    status=Assignment.Status.SUBMITTED if done else Assignment.Status.RESERVED,
                    submitted_at=now if done else None,
                    expires_at=None if done else now + timedelta(hours=2),
                )
            )
    Assignment.objects.bulk_create(rows, batch_size=2000)
    admin = User.objects.create_superuser("bench_admin", password="x")
    body = "\n\n".join(f"## 第{n}条\n\n- 先写理由，再判断**命中**或未命中。\n- 只看待评回复本身；B 的话是背景。" for n in range(1, 40))
    publish_guidelines(campaign=campaign, body=body, change_note="bench", author=admin)
    richest = max(items, key=lambda i: len(i.criteria.all()))
    longest = max(items, key=lambda i: sum(len(t.get("content", "")) for t in i.dialogue))
    client = Client()
    client.force_login(expert)
    print(f"{connection.vendor}: HeartBench size ({len(crs)} responses, {len(rows)} assignments), {runs} runs each")
    for label, item in (("most criteria", richest), ("longest dialogue", longest)):
        cr = next(c for c in crs if c.item_id == item.pk)
        mine = Assignment.objects.create(campaign_response=cr, expert=expert, expires_at=now + timedelta(hours=2))
        criteria = list(item.criteria.all())
        Judgment.objects.bulk_create(
            [Judgment(assignment=mine, criterion=c, rationale="一段认真写下的理由。" * 3, hit=True) for c in criteria]
        )
        url = f"/work/a/{mine.public_id}/"
        draft = {"cursor": "3"}
        for c in criteria:
            draft.update({f"rationale-{c.pk}": "一段认真写下的理由。" * 3, f"hit-{c.pk}": "hit"})
        page = measure(lambda url=url: client.get(url))
        save = measure(lambda url=url, draft=draft: client.post(f"{url}draft/", draft, HTTP_HX_REQUEST="true"))
        turns = len(item.dialogue)
        print(f"  {label} ({len(criteria)} criteria, {turns} turns)")
        print(f"    judging page  min {page[0]:.1f} ms  median {page[1]:.1f} ms  p95 {page[2]:.1f} ms")
        print(f"    autosave      min {save[0]:.1f} ms  median {save[1]:.1f} ms  p95 {save[2]:.1f} ms")


if __name__ == "__main__":
    main()
