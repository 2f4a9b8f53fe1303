"""The pages and API an expert and a campaign admin use run as many queries on three times the data as on one.

The campaign is grown from 3 to 9 models' responses (18 to 54), each judged by the three experts,
the first expert holding a third of theirs still reserved (pre-assigned): the expert's work, the
campaign's responses, assignments and judgments all triple. Each request is made once to warm
what a process caches, then counted.
"""

import itertools
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse, Judgment
from annotation.services.campaigns import create_campaign
from heartbench_core.models import Criterion, Item, ModelResponse
from heartbench_core.services.responses import import_responses
from tests.factories import FIXTURES, demo_version

BASE_MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


def _add_models(tmp_path: Path, start: int, count: int) -> list[str]:
    """Import `count` more models' responses (the demo texts, renamed) and return their names."""
    names = []
    for i in range(start, start + count):
        name = f"demo-model-scale{i}"
        source = tmp_path / f"{name}.jsonl"
        source.write_text((FIXTURES / "responses" / f"{BASE_MODELS[i % 3]}.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
        import_responses(source=source, dataset_name="demo", model_name=name)
        names.append(name)
    return names


def _judge(cast, campaign, models: list[str]) -> None:
    """Put the models' responses into the campaign, judged by the three experts (the first leaves a third reserved)."""
    now = timezone.now()
    items = dict(Item.objects.filter(version=campaign.version).values_list("question_id", "pk"))
    for r in ModelResponse.objects.filter(model__name__in=models).order_by("pk"):
        CampaignResponse.objects.get_or_create(
            campaign=campaign, response=r, defaults={"item_id": items[r.question_id], "order_key": r.pk * 7919 % 10007}
        )
    crs = list(CampaignResponse.objects.filter(campaign=campaign, assignments__isnull=True).order_by("pk"))
    criteria: dict[int, list[int]] = {}
    for n, cr in enumerate(crs):
        criteria.setdefault(cr.item_id, list(Criterion.objects.filter(item_id=cr.item_id).values_list("pk", flat=True)))
        for e, expert in enumerate(cast.experts):
            a = Assignment.objects.create(campaign_response=cr, expert=expert, expires_at=None)
            Judgment.objects.bulk_create(
                Judgment(assignment=a, criterion_id=c, rationale="A considered rationale", hit=True) for c in criteria[cr.item_id]
            )
            if e or n % 3:
                Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=now - timedelta(minutes=n))


def _requests(cast, campaign, client_for) -> dict[str, int]:
    expert, admin = cast.expert, cast.admin
    reserved = list(
        Assignment.objects.filter(expert=expert, status=Assignment.Status.RESERVED, campaign_response__campaign=campaign).order_by("pk")
    )
    page, warm, by_form, by_api = reserved[:4]
    first = Criterion.objects.filter(item_id=page.campaign_response.item_id).order_by("position").first()
    draft = {f"rationale-{first.pk}": "An edited rationale", f"hit-{first.pk}": "hit", "active_seconds": "3"}
    # Each autosave is based on the version the one before it saved.
    versions = itertools.count(page.draft_version)
    as_expert = client_for(expert)
    listed = as_expert.get("/api/v1/annotation/assignments/").json()
    deep = listed["next"]
    from django.test import Client

    as_admin = Client()
    as_admin.force_login(admin)
    calls = {
        "expert home": lambda: as_expert.get("/work/"),
        "judging page": lambda: as_expert.get(f"/work/a/{page.public_id}/"),
        "autosave": lambda: as_expert.post(
            f"/work/a/{page.public_id}/draft/", {**draft, "version": str(next(versions))}, headers={"HX-Request": "true"}
        ),
        "assignment list API": lambda: as_expert.get("/api/v1/annotation/assignments/"),
        "assignment list API, next page": lambda: as_expert.get(deep),
        "campaign detail": lambda: as_admin.get(f"/work/manage/campaigns/{campaign.pk}/"),
        "campaign assignments page": lambda: as_admin.get(f"/work/manage/campaigns/{campaign.pk}/assignments/", {"page": 2}),
    }
    counts = {}
    for name, call in calls.items():
        assert call().status_code < 400, name
        with CaptureQueriesContext(connection) as ctx:
            response = call()
        assert response.status_code < 400, (name, response.status_code)
        counts[name] = len(ctx)
    # Submitting happens once per response: one to warm up (the expert's first submission creates their profile and quality rows).
    assert as_expert.post(f"/work/a/{warm.public_id}/submit/", {"active_seconds": "30", "version": warm.draft_version}).status_code == 302
    with CaptureQueriesContext(connection) as ctx:
        assert (
            as_expert.post(f"/work/a/{by_form.public_id}/submit/", {"active_seconds": "30", "version": by_form.draft_version}).status_code
            == 302
        )
    counts["submit (page form)"] = len(ctx)
    with CaptureQueriesContext(connection) as ctx:
        response = as_expert.post(
            f"/api/v1/annotation/assignments/{by_api.public_id}/submit/", {"version": by_api.draft_version}, content_type="application/json"
        )
        assert response.status_code == 200, response.content
    counts["submit (API)"] = len(ctx)
    return counts


@pytest.mark.django_db
def test_every_page_runs_as_many_queries_on_three_times_the_data(cast, client_for, tmp_path, monkeypatch):
    from rest_framework.pagination import PageNumberPagination

    from tests.factories import demo_responses

    monkeypatch.setattr(PageNumberPagination, "page_size", 5)
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Scaled",
        dataset_name="demo",
        model_names=BASE_MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    _judge(cast, campaign, BASE_MODELS)
    assert Assignment.objects.filter(campaign_response__campaign=campaign).count() == 54
    one = _requests(cast, campaign, client_for)
    _judge(cast, campaign, _add_models(tmp_path, 3, 6))
    assert Assignment.objects.filter(campaign_response__campaign=campaign).count() == 162
    three = _requests(cast, campaign, client_for)
    assert three == one
