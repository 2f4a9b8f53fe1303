"""The expert's completed work: the latest few on the home page, all of it on pages that continue by keyset."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.workspace import selectors

from .conftest import judge_fully

QUESTIONS = ("dm0001", "dm0002", "dm0003", "dm0004", "dm0005", "dm0006")


def _submit_all(workspace, expert, questions=QUESTIONS):
    return [judge_fully(workspace.reserve(expert, qid)) for qid in questions]


def test_the_home_lists_the_latest_and_links_to_the_rest(workspace, cast, client_for, monkeypatch):
    monkeypatch.setattr(selectors, "COMPLETED_SHOWN", 2)
    done = _submit_all(workspace, cast.expert)
    body = client_for(cast.expert).get(reverse("annotation:home")).content.decode()
    newest = sorted(done, key=lambda a: (a.submitted_at, a.public_id))
    assert newest[-1].public_id in body and newest[0].public_id not in body
    assert reverse("annotation:completed") in body


def test_the_pages_walk_every_completed_response_once_newest_first(workspace, cast, client_for, monkeypatch):
    monkeypatch.setattr(selectors, "COMPLETED_PER_PAGE", 4)
    done = _submit_all(workspace, cast.expert)
    theirs = judge_fully(workspace.reserve(cast.experts[1], "dm0001"))
    client = client_for(cast.expert)
    seen, after, pages = [], "", 0
    while True:
        page = selectors.completed_page(cast.expert, after=after)
        seen += [w.assignment.public_id for w in page.rows]
        body = client.get(reverse("annotation:completed"), {"after": after} if after else {}).content.decode()
        assert all(w.assignment.public_id in body for w in page.rows) and theirs.public_id not in body
        assert f"{len(done)} responses submitted" in body
        pages += 1
        if not page.next_after:
            break
        assert f"?after={page.next_after}" in body
        after = page.next_after
    order = sorted(done, key=lambda a: (-a.submitted_at.timestamp(), a.public_id))
    assert seen == [a.public_id for a in order] and pages == 2


def test_a_page_costs_the_same_queries_wherever_it_is(workspace, cast, client_for, monkeypatch):
    monkeypatch.setattr(selectors, "COMPLETED_PER_PAGE", 2)
    _submit_all(workspace, cast.expert)
    client = client_for(cast.expert)
    client.get(reverse("annotation:completed"))
    with CaptureQueriesContext(connection) as first:
        client.get(reverse("annotation:completed"))
    after = selectors.completed_page(cast.expert).next_after
    after = selectors.completed_page(cast.expert, after=after).next_after
    with CaptureQueriesContext(connection) as third:
        assert client.get(reverse("annotation:completed"), {"after": after}).status_code == 200
    assert len(third) == len(first)


def test_a_cursor_that_does_not_decode_shows_the_first_page(workspace, cast, client_for):
    _submit_all(workspace, cast.expert, QUESTIONS[:2])
    for bad in ("%%%", "bm90LWEtZGF0ZXxhYmM", "x" * 300):
        response = client_for(cast.expert).get(reverse("annotation:completed"), {"after": bad})
        assert response.status_code == 200 and "2 responses submitted" in response.content.decode()
