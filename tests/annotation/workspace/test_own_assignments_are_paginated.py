"""An expert's list of their own assignments comes in the API's pages, like every other list."""

import pytest
from rest_framework.pagination import PageNumberPagination

from .conftest import judge_fully

QUESTIONS = ("dm0001", "dm0002", "dm0003")


@pytest.fixture
def three_submitted(workspace, cast):
    return [judge_fully(workspace.reserve(cast.expert, question)) for question in QUESTIONS]


def test_the_list_is_one_page_with_a_count_and_a_link_to_the_next(three_submitted, cast, client_for, monkeypatch):
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)
    client = client_for(cast.expert)
    first = client.get("/api/v1/annotation/assignments/", {"status": "submitted"}).json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next"]
    second = client.get("/api/v1/annotation/assignments/", {"status": "submitted", "page": 2}).json()
    ids = [a["id"] for a in first["results"] + second["results"]]
    assert sorted(ids) == sorted(a.public_id for a in three_submitted)


def test_a_page_shows_no_more_of_an_assignment_than_the_summary_did(three_submitted, cast, client_for):
    row = client_for(cast.expert).get("/api/v1/annotation/assignments/").json()["results"][0]
    assert set(row) == {"id", "campaign", "question_id", "status", "reserved_at", "expires_at", "draft_saved_at", "submitted_at", "url"}


def test_another_experts_assignments_are_not_counted(three_submitted, cast, client_for):
    assert client_for(cast.experts[1]).get("/api/v1/annotation/assignments/").json()["count"] == 0


def test_a_page_past_the_end_is_a_404_not_a_500(three_submitted, cast, client_for):
    assert client_for(cast.expert).get("/api/v1/annotation/assignments/", {"page": 9}).status_code == 404
