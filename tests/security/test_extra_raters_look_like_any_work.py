"""An extra rater of a response whose verdicts split cannot tell it from ordinary work in anything they can observe.

Two responses to the same item are put side by side for one expert: one extended to k + 2 after
its three verdicts split, one ordinary. The judging page, its partial, the API's detail, list and
submit answers must differ only where the two responses differ (their text and public ids), as
for hidden gold checks (`test_gold_checks_look_like_any_work`).
"""

from collections import Counter

import pytest

from annotation.models import Assignment, CampaignResponse
from annotation.services.workspace import DraftEntry, save_draft
from tests.annotation.manage.split_helpers import criteria_of, split_campaign, split_verdicts, submit
from tests.security.test_gold_checks_look_like_any_work import _masked, _same

pytestmark = pytest.mark.django_db

ITEM = "dm0005"


@pytest.fixture
def pair(cast):
    """(extra assignment, ordinary assignment) of one expert who had neither, both answering item dm0005."""
    campaign, experts = split_campaign(cast, budget=2)
    split, plain = CampaignResponse.objects.filter(campaign=campaign, response__question_id=ITEM).order_by("pk")[:2]
    for expert, hits in zip(experts[:3], split_verdicts(len(criteria_of(split)), len(criteria_of(split))), strict=True):
        submit(expert, split, hits)
    split.refresh_from_db()
    assert split.extra_raters == 2 and plain.extra_raters == 0
    newcomer = experts[3]
    return newcomer, (
        Assignment.objects.create(campaign_response=split, expert=newcomer),
        Assignment.objects.create(campaign_response=plain, expert=newcomer),
    )


def test_the_judging_page_is_the_same_for_an_extra_rater(client_for, pair):
    expert, assignments = pair
    _same(client_for(expert), lambda a: f"/work/a/{a.public_id}/", assignments)


def test_the_judging_page_as_an_htmx_partial_is_the_same_for_an_extra_rater(client_for, pair):
    expert, assignments = pair
    _same(client_for(expert), lambda a: f"/work/a/{a.public_id}/", assignments, HTTP_HX_REQUEST="true")


def test_the_api_detail_is_the_same_for_an_extra_rater(client_for, pair):
    expert, assignments = pair
    _same(client_for(expert), lambda a: f"/api/v1/annotation/assignments/{a.public_id}/", assignments)


def test_the_api_list_shows_both_alike(client_for, pair):
    expert, _assignments = pair
    rows = client_for(expert).get("/api/v1/annotation/assignments/").json()["results"]
    assert len(rows) == 2 and len({tuple(sorted(r)) for r in rows}) == 1
    masked = [
        {k: v for k, v in r.items() if k not in ("id", "url", "public_id", "reserved_at", "expires_at", "submitted_at", "draft_saved_at")}
        for r in rows
    ]
    assert masked[0] == masked[1]


def test_submitting_as_an_extra_rater_answers_like_any_submission(client_for, pair):
    expert, assignments = pair
    client = client_for(expert)
    answers = []
    for a in assignments:
        entries = [
            DraftEntry(c.pk, f"Reasoning about criterion {c.position}", c.position % 2 == 0) for c in criteria_of(a.campaign_response)
        ]
        saved = save_draft(assignment=a, expert=expert, entries=entries)
        r = client.post(
            f"/api/v1/annotation/assignments/{a.public_id}/submit/", {"version": saved.draft_version}, content_type="application/json"
        )
        assert r.status_code == 200, r.content
        answers.append(_masked(r.content.decode(), a))
    assert answers[0] == answers[1]
    _same(client, lambda a: f"/work/a/{a.public_id}/", assignments)


def test_the_home_page_lists_both_alike(client_for, pair):
    expert, assignments = pair
    body = client_for(expert).get("/work/").content.decode()
    for a in assignments:
        assert a.public_id in body
    masked = body
    for a in assignments:
        masked = masked.replace(a.public_id, "<ID>")
    # Both rows read the same once their ids are masked: nothing marks the extended one.
    # The rows of the list (the page also prefetches the next one, whichever is older).
    rows = Counter(line.strip() for line in masked.splitlines() if "<ID>" in line and line.strip().startswith("<li>"))
    assert rows and all(n % 2 == 0 for n in rows.values()), rows
