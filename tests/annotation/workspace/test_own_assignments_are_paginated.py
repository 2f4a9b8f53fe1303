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


def _walk(client, url, params=None):
    pages = [client.get(url, params or {}).json()]
    while pages[-1]["next"]:
        pages.append(client.get(pages[-1]["next"]).json())
    return pages


def test_next_links_continue_where_the_page_ended_and_visit_every_assignment_once(workspace, cast, client_for, monkeypatch):
    from annotation.models import Assignment

    monkeypatch.setattr(PageNumberPagination, "page_size", 2)
    mine = [workspace.reserve(cast.expert, q) for q in ("dm0001", "dm0002", "dm0003", "dm0004", "dm0005")]
    # Two share a reservation time: the order breaks the tie by public id, and the cursor keeps to it.
    Assignment.objects.filter(pk__in=[mine[1].pk, mine[2].pk]).update(reserved_at=mine[1].reserved_at)
    judge_fully(mine[0])
    client = client_for(cast.expert)
    pages = _walk(client, "/api/v1/annotation/assignments/")
    assert [p["count"] for p in pages] == [5, 5, 5]
    assert "after=" in pages[0]["next"] and "page=2" in pages[0]["next"]
    walked = [a["id"] for p in pages for a in p["results"]]
    expected = list(Assignment.objects.filter(expert=cast.expert).order_by("-reserved_at", "public_id").values_list("public_id", flat=True))
    assert walked == expected
    # `page` alone (by offset) gives the same pages; `previous` goes back by page number.
    assert [a["id"] for a in client.get("/api/v1/annotation/assignments/", {"page": 2}).json()["results"]] == walked[2:4]
    back = client.get(pages[2]["previous"]).json()
    assert [a["id"] for a in back["results"]] == walked[2:4]
    assert [p["count"] for p in _walk(client, "/api/v1/annotation/assignments/", {"status": "reserved"})] == [4, 4]
    assert [a["id"] for p in _walk(client, "/api/v1/annotation/assignments/", {"status": "submitted"}) for a in p["results"]] == [
        mine[0].public_id
    ]


@pytest.mark.parametrize("cursor", ["not-a-cursor", "MjAyNnwx", "eA", "bm90IGEgZGF0ZXxhYmM"])
def test_a_cursor_it_did_not_give_is_a_404_not_a_500(three_submitted, cast, client_for, cursor):
    response = client_for(cast.expert).get("/api/v1/annotation/assignments/", {"after": cursor})
    assert response.status_code == 404 and response.json()
