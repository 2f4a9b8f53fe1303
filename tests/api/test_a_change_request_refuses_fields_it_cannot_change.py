"""Every PATCH and PUT of the API answers 400 naming each field it cannot change, and changes nothing; none is silently dropped."""

import json

import pytest
from django.urls import URLResolver, get_resolver

from annotation.knowledge.services.knowledge import CaseContent, FaqContent, create_case, create_faq_entry
from annotation.models import Campaign, QualityPolicy
from heartbench_core.judging.models import Endpoint
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.models import Criterion
from tests.annotation.manage.helpers import demo_campaign
from tests.factories import demo_version

pytestmark = pytest.mark.django_db


def _change_routes(patterns=None, prefix=""):
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            yield from _change_routes(p.url_patterns, prefix + str(p.pattern))
            continue
        view = getattr(p.callback, "cls", None)
        actions = getattr(p.callback, "actions", None)
        methods = [m for m in ("patch", "put") if (m in actions if actions is not None else hasattr(view, m))] if view else []
        if methods and "format>" not in str(p.pattern):
            yield f"{view.__module__}.{view.__name__}", tuple(methods)


# Each route's case below: a new PATCH or PUT of the API fails this list until it has one.
COVERED = {
    "annotation.manage.api.CampaignViewSet": ("patch",),
    "annotation.manage.api.PayPolicyView": ("patch",),
    "annotation.manage.api.ProfileViewSet": ("patch", "put"),
    "annotation.knowledge.api.FaqDetailView": ("patch",),
    "annotation.knowledge.api.CaseDetailView": ("patch",),
    "heartbench_core.judging.api_runs.EndpointViewSet": ("patch",),
    "validation.api.ReleasePolicyView": ("put",),
}


def test_every_change_route_of_the_api_is_covered_here():
    assert dict(_change_routes()) == COVERED


def refused(response, *fields):
    assert response.status_code == 400, response.content
    body = response.json()
    body = body.get("errors", body)  # a service's refusal comes under "errors", a serializer's at the top
    for field in fields:
        assert field in body and "cannot be changed" in json.dumps(body[field], ensure_ascii=False), body
    return body


def test_a_running_campaign_refuses_its_overlap_and_models_and_changes_nothing(cast, client_for):
    campaign = demo_campaign(cast)
    c = client_for(cast.admin)
    url = f"/api/v1/annotation/manage/campaigns/{campaign.pk}/"
    refused(c.patch(url, {"overlap": 4}, content_type="application/json"), "overlap")
    body = refused(
        c.patch(url, {"models": ["demo-model-aurora"], "overlap": 4, "piece_rate": "2.00"}, content_type="application/json"),
        "models",
        "overlap",
    )
    assert "piece_rate" not in body and "rationale_min_chars" in body["overlap"][0]  # it says what may change
    campaign.refresh_from_db()
    assert campaign.overlap == 3 and campaign.piece_rate == 0 and campaign.language_models.count() == 3
    assert c.patch(url, {"piece_rate": "2.00"}, content_type="application/json").json()["changed"][0]["field"] == "piece_rate"


def test_the_pay_policy_refuses_a_field_it_does_not_have(cast, client_for):
    before = QualityPolicy.current().paused_work_pay
    other = next(choice for choice in QualityPolicy.PausedWorkPay.values if choice != before)
    r = client_for(cast.admin).patch(
        "/api/v1/annotation/manage/pay-policy/", {"paused_work_pay": other, "payday": 5}, content_type="application/json"
    )
    refused(r, "payday")
    assert QualityPolicy.current().paused_work_pay == before


def test_an_admin_cannot_change_a_profile_s_read_only_or_tier_fields_by_patch(cast, client_for):
    c = client_for(cast.admin)
    url = f"/api/v1/annotation/profiles/{cast.expert.username}/"
    before = c.get(url).json()
    for method in (c.patch, c.put):
        refused(method(url, {"capacity": 7, "tier": 5, "username": "x"}, content_type="application/json"), "tier", "username")
    assert c.get(url).json() == before


def test_a_library_entry_refuses_fields_of_neither_kind(cast, client_for):
    version = demo_version()
    faq = create_faq_entry(author=cast.author, dataset=version.dataset, content=FaqContent(question="q", answer="a"))
    r = client_for(cast.author).patch(
        f"/api/v1/annotation/library/faq/{faq.pk}/",
        {"question": "new", "answer": "a", "dataset": "other", "status": "published"},
        content_type="application/json",
    )
    refused(r, "dataset", "status")
    faq.refresh_from_db()
    assert faq.question == "q"
    criterion = Criterion.objects.filter(item__version=version).first()
    case = create_case(author=cast.reviewer, criterion=criterion, content=CaseContent(title="t", excerpt="e", hit=True, reasoning="r"))
    r = client_for(cast.reviewer).patch(
        f"/api/v1/annotation/library/cases/{case.pk}/",
        {"title": "new", "excerpt": "e", "reasoning": "r", "source": "calibration"},
        content_type="application/json",
    )
    refused(r, "source")
    case.refresh_from_db()
    assert case.title == "t"


def test_an_endpoint_keeps_its_name_and_refuses_unknown_settings(cast, client_for):
    save_endpoint(name="judge-a", base_url="http://127.0.0.1:9/v1", model="m-1")
    c = client_for(cast.admin)
    refused(c.patch("/api/v1/endpoints/judge-a/", {"concurrency": 2, "api_key": "sk-1"}, content_type="application/json"), "api_key")
    renamed = c.patch("/api/v1/endpoints/judge-a/", {"name": "judge-b"}, content_type="application/json")
    assert renamed.status_code == 400 and "keeps its name" in renamed.json()["errors"]["name"][0]
    endpoint = Endpoint.objects.get()
    assert (endpoint.name, endpoint.concurrency) == ("judge-a", Endpoint._meta.get_field("concurrency").default)


def test_a_release_policy_put_refuses_fields_a_policy_does_not_have(cast, client_for):
    from validation.models import ReleasePolicy

    dataset = demo_version().dataset
    r = client_for(cast.admin).put(
        f"/api/v1/validation/datasets/{dataset.name}/release-policy/",
        {"threshold": 0.5, "reason": "r", "min_pairs": 3},
        content_type="application/json",
    )
    refused(r, "min_pairs")
    assert not ReleasePolicy.objects.exists() and Campaign.objects.count() == 0
