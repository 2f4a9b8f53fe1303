"""The adjudication queue (page and API) and the expert home run as many queries when a blind test has three times the
models, and when an expert's history is three times as long, as at one; the admin's assignment pages (page and API,
continued by keyset) as many in a campaign three times the size.

The campaign and the work are built as `tests/annotation/test_pages_cost_the_same_queries_at_1x_and_3x.py` builds
them (3 models' responses, then 9, each judged by the three experts). The queue is stored again after each growth, as
the background refresh does after submissions; each request is made once to warm, then counted.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from tests.annotation.test_pages_cost_the_same_queries_at_1x_and_3x import BASE_MODELS, _add_models, _judge
from tests.factories import demo_responses, demo_version
from validation.services.queue_summary import store_queue_summary

pytestmark = pytest.mark.django_db


def _counted(client, url, params=None) -> int:
    assert client.get(url, params or {}).status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, params or {})
    assert response.status_code == 200, (url, response.status_code)
    return len(ctx)


def _campaign(cast):
    demo_version()
    demo_responses()
    return create_campaign(
        name="Growing",
        dataset_name="demo",
        model_names=BASE_MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign


def _queue_requests(cast, campaign, client_for) -> dict[str, int]:
    store_queue_summary(campaign=campaign)
    reviewer = client_for(cast.reviewer)
    page = f"/validation/campaigns/{campaign.pk}/adjudication/"
    api = f"/api/v1/validation/campaigns/{campaign.pk}/queue/"
    return {
        "queue page": _counted(reviewer, page),
        "queue page, every compared unit, page 2": _counted(reviewer, page, {"show": "all", "page": 2}),
        "queue API, every compared unit": _counted(reviewer, api, {"show": "all"}),
        "adjudication index": _counted(reviewer, "/validation/adjudication/"),
    }


def test_the_queue_costs_the_same_with_three_times_the_models(cast, client_for, tmp_path):
    campaign = _campaign(cast)
    _judge(cast, campaign, BASE_MODELS)
    one = _queue_requests(cast, campaign, client_for)
    _judge(cast, campaign, _add_models(tmp_path, 3, 6))
    assert Assignment.objects.filter(campaign_response__campaign=campaign).count() == 162
    three = _queue_requests(cast, campaign, client_for)
    assert three == one


def test_the_expert_home_costs_the_same_with_three_times_the_history_in_a_campaign_that_no_longer_lists_them(cast, client_for, tmp_path):
    campaign = _campaign(cast)
    _judge(cast, campaign, BASE_MODELS)
    campaign.experts.remove(cast.expert)  # they take part through the work they hold, not the roster
    expert = client_for(cast.expert)
    one = {"home": _counted(expert, "/work/"), "completed": _counted(expert, "/work/done/")}
    _judge(cast, campaign, _add_models(tmp_path, 3, 6))
    assert Assignment.objects.filter(expert=cast.expert).count() == 54
    three = {"home": _counted(expert, "/work/"), "completed": _counted(expert, "/work/done/")}
    assert three == one
    assert "Growing" in expert.get("/work/").content.decode()


def test_the_admins_assignment_pages_cost_the_same_in_a_campaign_three_times_the_size(cast, client_for, tmp_path, monkeypatch):
    from rest_framework.pagination import PageNumberPagination

    from annotation.manage.selectors import assignment_overview_page
    from heartbench_core.blindness import blind_scope

    monkeypatch.setattr(PageNumberPagination, "page_size", 5)
    campaign = _campaign(cast)
    admin = client_for(cast.admin)
    page_url = f"/work/manage/campaigns/{campaign.pk}/assignments/"
    api_url = f"/api/v1/annotation/manage/assignments/?campaign={campaign.pk}"

    def counts() -> dict[str, int]:
        total = Assignment.objects.filter(campaign_response__campaign=campaign).count()
        deep = total // 50  # the deepest full page, reached by the Next link of the page before
        after = assignment_overview_page(campaign, number=deep - 1, scope=blind_scope(cast.admin)).next_after
        api_next = admin.get(api_url).json()["next"]
        return {
            "assignments page by its Next link": _counted(admin, page_url, {"page": deep, "after": after}),
            "assignment API by its next link": _counted(admin, api_next),
        }

    _judge(cast, campaign, BASE_MODELS)
    _judge(cast, campaign, _add_models(tmp_path, 3, 3))  # 108 assignments: a full second page
    one = counts()
    _judge(cast, campaign, _add_models(tmp_path, 6, 12))
    assert Assignment.objects.filter(campaign_response__campaign=campaign).count() == 324
    assert counts() == one
