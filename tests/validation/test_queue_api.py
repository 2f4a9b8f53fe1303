"""The adjudication queue in the API: every entry reachable in pages, narrowed by trigger or criterion."""

import pytest
from rest_framework.pagination import PageNumberPagination

from heartbench_core.models import Criterion
from tests.factories import demo_version
from tests.validation.builders import blind_test
from validation.selectors import adjudication_units
from validation.services.golden import adjudication_queue


@pytest.fixture
def campaign(cast):
    return blind_test(cast, flip=0.3)


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(PageNumberPagination, "page_size", 5)


def url(campaign):
    return f"/api/v1/validation/campaigns/{campaign.pk}/queue/"


def every_entry(client, campaign, query=None):
    page = client.get(url(campaign), query or {}).json()
    entries = page["results"]
    while page["next"]:
        page = client.get(page["next"]).json()
        entries += page["results"]
    return entries


def as_pairs(entries):
    return [(e["campaign_response_id"], e["criterion_id"]) for e in entries]


def test_the_whole_queue_comes_in_pages_lowest_agreement_first(cast, campaign, client_for, small_pages):
    # Only the units that need a decision are queued (2-of-3 majorities have their label); `show=all` lists every compared unit.
    queue = adjudication_queue(campaign, reviewer=cast.reviewer)
    units = adjudication_units(campaign, reviewer=cast.reviewer)
    assert len(units) > 5, "the blind test should list more than one page of compared units"
    client = client_for(cast.reviewer)
    assert client.get(url(campaign)).json()["count"] == len(queue)
    assert as_pairs(every_entry(client, campaign)) == [(e.campaign_response_id, e.criterion_id) for e in queue]
    entries = every_entry(client, campaign, {"show": "all"})
    assert as_pairs(entries) == [(e.campaign_response_id, e.criterion_id) for e in units]
    assert [e["agreement"] for e in entries] == sorted(e["agreement"] for e in entries)


@pytest.mark.parametrize("trigger", ["split", "judge_contradicts"])
def test_it_narrows_to_one_trigger(cast, campaign, client_for, trigger):
    units = adjudication_units(campaign, reviewer=cast.reviewer)
    wanted = [(e.campaign_response_id, e.criterion_id) for e in units if trigger in e.triggers]
    assert wanted and len(wanted) < len(units)
    entries = every_entry(client_for(cast.reviewer), campaign, {"trigger": trigger, "show": "all"})
    assert as_pairs(entries) == wanted and all(trigger in e["triggers"] for e in entries)


def test_it_narrows_to_one_criterion(cast, campaign, client_for):
    units = adjudication_units(campaign, reviewer=cast.reviewer)
    criterion = units[0].criterion_id
    wanted = [(e.campaign_response_id, e.criterion_id) for e in units if e.criterion_id == criterion]
    assert as_pairs(every_entry(client_for(cast.reviewer), campaign, {"criterion": criterion, "show": "all"})) == wanted


@pytest.mark.parametrize(
    "query, parameter",
    [({"trigger": "disagreement"}, "trigger"), ({"criterion": "first"}, "criterion"), ({"criterion": 999999}, "criterion")],
)
def test_a_bad_filter_is_a_400_naming_the_parameter(cast, campaign, client_for, query, parameter):
    response = client_for(cast.reviewer).get(url(campaign), query)
    assert response.status_code == 400 and list(response.json()) == [parameter]


def test_a_criterion_of_another_version_is_refused(cast, campaign, client_for):
    elsewhere = Criterion.objects.filter(item__version=demo_version("other")).first()
    response = client_for(cast.reviewer).get(url(campaign), {"criterion": elsewhere.pk})
    assert response.status_code == 400 and "criterion" in response.json()
