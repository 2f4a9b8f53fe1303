"""The admin's assignments of a campaign: pages continue from where the last one ended (a keyset), and `?page=N` still works."""

import re

import pytest

from annotation.manage.selectors import assignment_overview_page
from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from heartbench_core.blindness import blind_scope
from tests.annotation.test_pages_cost_the_same_queries_at_1x_and_3x import BASE_MODELS, _judge
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(cast):
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Paged",
        dataset_name="demo",
        model_names=BASE_MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    _judge(cast, campaign, BASE_MODELS)
    # Ties in reservation time, as a bulk pre-assignment leaves them: the id orders them.
    first = Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk").first()
    Assignment.objects.filter(campaign_response__campaign=campaign, pk__lt=first.pk + 20).update(reserved_at=first.reserved_at)
    return campaign


def pks(page):
    return [a.pk for a in page.object_list]


def test_walking_by_cursors_meets_every_page_that_offsets_give(cast, campaign):
    scope = blind_scope(cast.admin)
    by_number = [pks(assignment_overview_page(campaign, number=n, scope=scope, per_page=7)) for n in range(1, 9)]
    assert sum(len(p) for p in by_number) == 54
    page = assignment_overview_page(campaign, number=1, scope=scope, per_page=7)
    walked = [pks(page)]
    while page.has_next():
        page = assignment_overview_page(campaign, number=page.number + 1, scope=scope, per_page=7, after=page.next_after)
        walked.append(pks(page))
    assert walked == by_number and page.number == 8
    back = [pks(page)]
    while page.has_previous():
        page = assignment_overview_page(campaign, number=page.number - 1, scope=scope, per_page=7, before=page.previous_before)
        back.append(pks(page))
    assert back[::-1] == by_number and page.number == 1


def test_the_page_links_carry_cursors_and_old_urls_and_bad_cursors_still_answer(cast, client_for, campaign):
    client = client_for(cast.admin)
    url = f"/work/manage/campaigns/{campaign.pk}/assignments/"
    Assignment.objects.filter(campaign_response__campaign=campaign).update(status=Assignment.Status.SUBMITTED)
    first = client.get(url, {"status": "submitted"})
    assert first.status_code == 200
    html = first.content.decode()
    assert "Page 1 of 2" in html
    link = re.search(r'href="\?page=2&after=([\w-]+)&status=submitted', html)
    assert link
    second = client.get(url, {"page": 2, "after": link.group(1), "status": "submitted"}).content.decode()
    assert "Page 2 of 2" in second and "&after=" not in second and "?page=1&status=submitted" in second
    assert client.get(url, {"page": 2}).status_code == 200  # an old link
    assert client.get(url, {"page": 2, "after": "not-a-cursor"}).status_code == 200  # starts over at that page number


def test_the_api_next_links_continue_by_keyset_and_meet_the_offset_pages(cast, client_for, campaign, monkeypatch):
    from rest_framework.pagination import PageNumberPagination

    monkeypatch.setattr(PageNumberPagination, "page_size", 7)
    client = client_for(cast.admin)
    url = f"/api/v1/annotation/manage/assignments/?campaign={campaign.pk}"
    by_number = [[r["public_id"] for r in client.get(url, {"page": n}).json()["results"]] for n in range(1, 9)]
    answer = client.get(url).json()
    walked, previous = [[r["public_id"] for r in answer["results"]]], []
    while answer["next"]:
        assert "after=" in answer["next"]
        answer = client.get(answer["next"]).json()
        assert answer["count"] == 54
        walked.append([r["public_id"] for r in answer["results"]])
        previous.append(answer["previous"])
    assert walked == by_number
    assert [r["public_id"] for r in client.get(previous[-1]).json()["results"]] == by_number[-2]
    assert client.get(url, {"after": "not-a-cursor"}).status_code == 404
    ordered = client.get(url, {"ordering": "status"}).json()  # an ordering of the caller's: pages by offset
    assert ordered["next"] and "after=" not in ordered["next"]
