"""Pages over every campaign (the campaign list, the agreement index, the needs-action home) cost the same however many there are.

They read the tallies of the campaigns they show together, in a fixed number of queries, and
list campaigns a page at a time: with one campaign and with three the same number of queries.
"""

from dataclasses import replace
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.manage import selectors
from annotation.models import Assignment, Campaign, ExpertProfile
from annotation.services.assignment import bulk_assign
from validation import selectors as validation_selectors

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


def running(cast, n):
    """`n` blind tests, each fully pre-assigned, with some work submitted and a deadline."""
    ExpertProfile.objects.update(capacity=1000)
    made = []
    start = Campaign.objects.count()
    for i in range(start, start + n):
        campaign = demo_campaign(cast, name=f"Blind test {i + 1}")
        bulk_assign(campaign=campaign)
        first = Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk")[:4]
        Assignment.objects.filter(pk__in=[a.pk for a in first]).update(status="submitted", submitted_at=timezone.now())
        Campaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() + timedelta(days=30))
        made.append(campaign)
    return made


def queries(client, url):
    client.get(url)  # what a first view computes and keeps
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", ["/work/manage/campaigns/", "/validation/", "/work/manage/"])
def test_one_campaign_or_three_the_same_queries(cast, client_for, url):
    running(cast, 1)
    one = queries(client_for(cast.admin), url)
    running_three = running(cast, 2)
    assert len(running_three) == 2 and Campaign.objects.count() == 3
    assert queries(client_for(cast.admin), url) == one


def test_the_campaign_list_shows_running_campaigns_first_a_page_at_a_time(cast, client_for, monkeypatch):
    monkeypatch.setattr(selectors, "CAMPAIGNS_PER_PAGE", 2)
    first, second, third = running(cast, 3)
    Campaign.objects.filter(pk=second.pk).update(status=Campaign.Status.CLOSED)
    c = client_for(cast.admin)
    page = c.get("/work/manage/campaigns/").content.decode()
    assert third.name in page and first.name in page and second.name not in page  # the closed one comes last
    assert "Page 1 of 2 · 3 campaigns" in page and 'href="?page=2"' in page
    later = c.get("/work/manage/campaigns/", {"page": 2}).content.decode()
    assert second.name in later and first.name not in later
    closed = c.get("/work/manage/campaigns/", {"status": "closed"}).content.decode()
    assert second.name in closed and first.name not in closed and third.name not in closed
    assert "Page 1 of" not in closed  # one page: no pager
    progress = selectors.campaigns_progress([first, third])
    assert progress[first.pk].submitted == 4 and progress[first.pk].pace_per_day is not None
    # The list's progress is the campaign page's, without the per-expert rows.
    assert progress[first.pk] == replace(selectors.campaign_progress(first), experts=[])


def test_an_unknown_status_lists_every_campaign(cast, client_for):
    running(cast, 2)
    page = client_for(cast.admin).get("/work/manage/campaigns/", {"status": "nonsense", "page": "x"}).content.decode()
    assert "Blind test 1" in page and "Blind test 2" in page


def test_the_agreement_index_lists_campaigns_a_page_at_a_time(cast, client_for, monkeypatch):
    monkeypatch.setattr(validation_selectors, "CAMPAIGNS_PER_PAGE", 2)
    first, second, third = running(cast, 3)
    c = client_for(cast.admin)
    page = c.get("/validation/").content.decode()
    assert third.name in page and second.name in page and first.name not in page
    assert "Page 1 of 2 · 3 campaigns" in page
    assert first.name in c.get("/validation/", {"page": 2}).content.decode()


def test_the_needs_action_home_reads_the_schedule_of_every_running_campaign(cast, client_for):
    campaigns = running(cast, 3)
    page = client_for(cast.admin).get("/work/manage/").content.decode()
    for campaign in campaigns:
        assert campaign.name in page
