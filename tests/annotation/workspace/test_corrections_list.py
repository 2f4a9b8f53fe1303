"""The admins' list of correction requests: in pages, pending by default, filtered by status and campaign."""

import pytest
from rest_framework.pagination import PageNumberPagination

from annotation.services.campaigns import create_campaign
from annotation.services.workspace import DraftEntry, decide_correction, request_correction

from .conftest import MODELS, Workspace, judge_fully

URL = "/api/v1/annotation/corrections/"


def ask_correction(workspace, expert, question_id):
    assignment = judge_fully(workspace.reserve(expert, question_id))
    first = assignment.campaign_response.item.criteria.order_by("position").first()
    entries = [DraftEntry(first.pk, "On a second read the response does not do this", False)]
    return request_correction(assignment=assignment, expert=expert, reason=f"misread {question_id}", entries=entries)


@pytest.fixture
def second_workspace(workspace, cast):
    campaign = create_campaign(
        name="Blind test South",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
    ).campaign
    return Workspace(campaign=campaign)


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)


def test_the_list_comes_in_pages_oldest_first(workspace, cast, client_for, small_pages):
    asked = [ask_correction(workspace, cast.expert, qid) for qid in ("dm0001", "dm0002", "dm0003")]
    admin = client_for(cast.admin)
    first = admin.get(URL).json()
    assert first["count"] == 3 and first["previous"] is None
    assert [c["id"] for c in first["results"]] == [asked[0].pk, asked[1].pk]
    second = admin.get(first["next"]).json()
    assert [c["id"] for c in second["results"]] == [asked[2].pk] and second["next"] is None
    newest_first = admin.get(URL, {"ordering": "-created_at"}).json()
    assert [c["id"] for c in newest_first["results"]] == [asked[2].pk, asked[1].pk]


def test_it_lists_pending_requests_unless_another_status_is_asked(workspace, cast, client_for):
    pending, accepted, refused = (ask_correction(workspace, cast.expert, qid) for qid in ("dm0001", "dm0002", "dm0003"))
    decide_correction(correction=accepted, admin=cast.admin, accept=True)
    decide_correction(correction=refused, admin=cast.admin, accept=False)
    admin = client_for(cast.admin)

    def ids(**query):
        return [c["id"] for c in admin.get(URL, query).json()["results"]]

    assert ids() == ids(status="pending") == [pending.pk]
    assert ids(status="accepted") == [accepted.pk]
    assert ids(status="refused") == [refused.pk]
    assert ids(status="all") == [pending.pk, accepted.pk, refused.pk]


def test_it_narrows_to_one_campaign_by_name_or_id(workspace, second_workspace, cast, client_for):
    north = ask_correction(workspace, cast.expert, "dm0001")
    south = ask_correction(second_workspace, cast.experts[1], "dm0002")
    admin = client_for(cast.admin)
    assert [c["id"] for c in admin.get(URL).json()["results"]] == [north.pk, south.pk]
    by_name = admin.get(URL, {"campaign": "Blind test South"}).json()
    assert [c["id"] for c in by_name["results"]] == [south.pk] and by_name["results"][0]["campaign"] == "Blind test South"
    by_id = admin.get(URL, {"campaign": workspace.campaign.pk}).json()
    assert [c["id"] for c in by_id["results"]] == [north.pk]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ({"status": "applying"}, "status"),
        ({"status": "open"}, "status"),
        ({"campaign": "Blind test East"}, "campaign"),
        ({"campaign": "999999"}, "campaign"),
    ],
)
def test_a_bad_filter_is_a_400_naming_the_parameter(workspace, cast, client_for, query, parameter):
    ask_correction(workspace, cast.expert, "dm0001")
    response = client_for(cast.admin).get(URL, query)
    assert response.status_code == 400
    assert list(response.json()) == [parameter]
