"""Time the pages and API an expert and a campaign admin use, on an installation of any size (server time, medians).

Run against a COPY of a benchmark installation (submitting changes it):

    createdb -h 127.0.0.1 -U postgres -T <installation> h19_copy
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h19_copy .venv/bin/python manage.py migrate
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/h19_copy .venv/bin/python benchmarks/pages.py [--runs 30] [--json out.json]

Each request goes through the whole stack in-process (Django's test client: middleware, session,
view, template or serializer), so the figure is server time without the network. The first
requests of each kind warm caches and are not counted; the script prints min / median / p95 ms,
the database's size, and the machine's load (the machine may be shared: compare medians taken
at similar load).

Who and what is timed: the expert holding the most work (reserved and submitted) and the
campaign with the most assignments; the judging page, autosave and submit on that expert's
reserved work there (a full draft is saved first, untimed, for each response submitted). Pages:
expert home, judging page, autosave (htmx), submit through the page form (which reserves the
next response) and through the API, campaign detail (progress), the campaign's assignments at a
random page, and the expert's assignment list API (first page, and a page deep in the list
through its `next` link).
"""

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _stats(samples):
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "min": round(ordered[0], 2),
        "median": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


def _time(call, runs, warm=3):
    for _ in range(warm):
        call()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        response = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code < 400, (response.status_code, response.content[:300])
    return _stats(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_core.settings")
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("Set DATABASE_URL to a copy of a PostgreSQL benchmark installation (submitting changes it).")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.db.models import Count
    from django.test import Client

    from annotation.models import Assignment, Campaign
    from annotation.services.workspace import DraftEntry, save_draft
    from heartbench_core.models import Criterion, User
    from heartbench_core.roles import Role

    settings.ALLOWED_HOSTS = ["testserver"]
    settings.DEBUG = False
    rng = random.Random(19)

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM annotation_judgment")
        judgments = cursor.fetchone()[0]
    counts = {
        "judgments": judgments,
        "assignments": Assignment.objects.count(),
        "campaigns": Campaign.objects.count(),
        "experts": User.objects.filter(groups__name=Role.EXPERT.value).count(),
    }
    # The expert and campaign with the most reserved work between them: the pages are timed where they have the most to show.
    pair = (
        Assignment.objects.filter(status=Assignment.Status.RESERVED)
        .values("expert_id", "campaign_response__campaign_id")
        .annotate(n=Count("pk"))
        .order_by("-n", "expert_id")
        .first()
    )
    if pair is None:
        sys.exit("No reserved work to time on.")
    expert = User.objects.get(pk=pair["expert_id"])
    campaign = Campaign.objects.get(pk=pair["campaign_response__campaign_id"])
    admin = User.objects.filter(groups__name=Role.ADMIN.value, is_active=True).order_by("pk").first()
    if admin is None:
        admin = User.objects.create_user("pages_benchmark_admin", password=None)
        admin.groups.add(Group.objects.get_or_create(name=Role.ADMIN.value)[0])
    # Responses to submit, half through the page form and half through the API, each with a complete draft saved before timing.
    reserved = list(
        Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign, status=Assignment.Status.RESERVED)
        .select_related("campaign_response")
        .order_by("reserved_at", "id")[: 2 * (args.runs + 3) + 1]
    )
    submit_runs = min(args.runs, (len(reserved) - 1) // 2 - 3)
    if submit_runs < 5:
        sys.exit(f"{expert.username} holds {len(reserved)} reserved responses in {campaign.name}: too few to time submitting.")
    page_assignment, to_submit = reserved[0], reserved[1:]
    criteria = {}
    for a in reserved:
        item = a.campaign_response.item_id
        if item not in criteria:
            criteria[item] = list(Criterion.objects.filter(item_id=item).order_by("position").values_list("pk", flat=True))
        save_draft(
            assignment=a,
            expert=expert,
            entries=[DraftEntry(criterion_id=c, rationale="A considered rationale for the benchmark.", hit=True) for c in criteria[item]],
        )

    as_expert, as_admin = Client(), Client()
    as_expert.force_login(expert)
    as_admin.force_login(admin)
    judge_url = f"/work/a/{page_assignment.public_id}/"
    first = criteria[page_assignment.campaign_response.item_id][0]
    draft = {f"rationale-{first}": "A considered rationale, edited.", f"hit-{first}": "hit", "active_seconds": "5"}
    page_submits = iter(to_submit[: len(to_submit) // 2])
    api_submits = iter(to_submit[len(to_submit) // 2 :])
    total_assignments = Assignment.objects.filter(campaign_response__campaign=campaign).count()
    pages = max(1, -(-total_assignments // 100))
    listed = as_expert.get("/api/v1/annotation/assignments/").json()
    deep = listed
    for _ in range(min(20, max(0, listed["count"] // 50 - 1))):
        if not deep["next"]:
            break
        deep = as_expert.get(deep["next"]).json()
    deep_url = deep["next"] or "/api/v1/annotation/assignments/"

    def submit_page():
        a = next(page_submits)
        return as_expert.post(f"/work/a/{a.public_id}/submit/", {"active_seconds": "30"})

    def submit_api():
        a = next(api_submits)
        return as_expert.post(
            f"/api/v1/annotation/assignments/{a.public_id}/submit/", {"active_seconds": 30}, content_type="application/json"
        )

    timings = {
        "expert home /work/": _time(lambda: as_expert.get("/work/"), args.runs),
        "judging page": _time(lambda: as_expert.get(judge_url), args.runs),
        "autosave (htmx)": _time(lambda: as_expert.post(f"{judge_url}draft/", draft, headers={"HX-Request": "true"}), args.runs),
        "submit (page form, reserves the next)": _time(submit_page, submit_runs),
        "submit (API)": _time(submit_api, submit_runs),
        "campaign detail (progress)": _time(lambda: as_admin.get(f"/work/manage/campaigns/{campaign.pk}/"), args.runs),
        "campaign assignments, random page": _time(
            lambda: as_admin.get(f"/work/manage/campaigns/{campaign.pk}/assignments/", {"page": rng.randint(1, pages)}), args.runs
        ),
        "assignment list API, first page": _time(lambda: as_expert.get("/api/v1/annotation/assignments/"), args.runs),
        "assignment list API, deep page (next link)": _time(lambda: as_expert.get(deep_url), args.runs),
    }
    load = os.getloadavg()
    report = {
        "database": connection.settings_dict["NAME"],
        "size": counts,
        "expert": expert.username,
        "expert_held": Assignment.objects.filter(expert=expert).held().count(),
        "campaign": campaign.name,
        "campaign_assignments": total_assignments,
        "load": [round(x, 2) for x in load],
        "ms": timings,
    }
    print(
        f"{report['database']}: {counts} · expert {expert.username} holds {report['expert_held']} · campaign {campaign.name} "
        f"({total_assignments} assignments) · load {report['load']}"
    )
    print(f"{'request':45} {'min':>8} {'median':>8} {'p95':>8}")
    for name, t in timings.items():
        print(f"{name:45} {t['min']:8.1f} {t['median']:8.1f} {t['p95']:8.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
