"""A hidden gold check is indistinguishable from ordinary work in everything its expert can observe.

Two responses to the same item, one a gold check and one ordinary, are put side by side: the
judging page, its partials, the API's detail, list and submit answers and the home page must
differ only where the two responses differ (their text and their public ids).
"""

import re

import pytest

from annotation.models import Assignment, CampaignResponse
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import DraftEntry, save_draft
from tests.annotation.manage.helpers import MODELS, gold_set, qualify
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db

ITEM = "dm0005"


@pytest.fixture
def pair(cast):
    """(gold assignment, ordinary assignment) of one expert, both answering item dm0005."""
    version = demo_version()
    demo_responses()
    qualify(*cast.experts)
    pool = gold_set(version, picks=[(ITEM, "demo-model-aurora")])
    campaign = create_campaign(
        name="Blind",
        dataset_name="demo",
        model_names=MODELS[1:],
        sample_fraction=1.0,
        overlap=3,
        gold_source=pool,
        gold_rate=0.3,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    gold = CampaignResponse.objects.get(campaign=campaign, is_gold=True, response__question_id=ITEM)
    # Aurora's answer took the place of one of the campaign models' answers to the item; the other is ordinary.
    plain = CampaignResponse.objects.get(campaign=campaign, is_gold=False, response__question_id=ITEM)
    expert = cast.expert
    return (
        Assignment.objects.create(campaign_response=gold, expert=expert),
        Assignment.objects.create(campaign_response=plain, expert=expert),
    )


def _masked(text: str, assignment: Assignment) -> str:
    """The body with what legitimately differs between two responses replaced by placeholders."""
    for own in Assignment.objects.filter(expert_id=assignment.expert_id).values_list("public_id", flat=True):
        text = text.replace(own, "<ID>")
    response = assignment.campaign_response.response.text
    for chunk in [response, *response.split("\n")]:
        if chunk.strip():
            text = text.replace(chunk, "<RESPONSE>")
    text = re.sub(r'(csrfmiddlewaretoken" value="|X-CSRFToken": ")[^"]+', r"\1<CSRF>", text)
    text = re.sub(r"\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?", "<TIME>", text)
    text = re.sub(r'data-saved-at="\d+"', 'data-saved-at="<TIME>"', text)  # the expert's own save time, in epoch seconds
    text = re.sub(r'"(reserved_at|expires_at|submitted_at|draft_saved_at|updated_at)": ?"[^"]*"', r'"\1": "<TIME>"', text)
    return text


def _same(client, url_of, pair, **kwargs):
    gold, plain = pair
    bodies = []
    for a in (gold, plain):
        r = client.get(url_of(a), **kwargs)
        assert r.status_code == 200, (url_of(a), r.status_code)
        bodies.append(_masked(r.content.decode(), a))
    assert bodies[0] == bodies[1]


def test_the_judging_page_is_the_same_for_a_gold_check(client_for, cast, pair):
    _same(client_for(cast.expert), lambda a: f"/work/a/{a.public_id}/", pair)


def test_the_judging_page_as_an_htmx_partial_is_the_same_for_a_gold_check(client_for, cast, pair):
    _same(client_for(cast.expert), lambda a: f"/work/a/{a.public_id}/", pair, HTTP_HX_REQUEST="true")


def test_the_api_detail_is_the_same_for_a_gold_check(client_for, cast, pair):
    _same(client_for(cast.expert), lambda a: f"/api/v1/annotation/assignments/{a.public_id}/", pair)


def test_the_api_list_shows_both_alike(client_for, cast, pair):
    rows = client_for(cast.expert).get("/api/v1/annotation/assignments/").json()["results"]
    shapes = {tuple(sorted(r)) for r in rows}
    assert len(rows) == 2 and len(shapes) == 1
    masked = [
        {k: v for k, v in r.items() if k not in ("id", "url", "public_id", "reserved_at", "expires_at", "submitted_at", "draft_saved_at")}
        for r in rows
    ]
    assert masked[0] == masked[1]


def test_submitting_a_gold_check_answers_like_any_submission(client_for, cast, pair):
    client = client_for(cast.expert)
    answers = []
    for a in pair:
        entries = [
            DraftEntry(c.pk, f"Reasoning about criterion {c.position}", c.position % 2 == 0)
            for c in a.campaign_response.item.criteria.all()
        ]
        saved = save_draft(assignment=a, expert=cast.expert, entries=entries)
        r = client.post(
            f"/api/v1/annotation/assignments/{a.public_id}/submit/", {"version": saved.draft_version}, content_type="application/json"
        )
        assert r.status_code == 200, r.content
        answers.append(_masked(r.content.decode(), a))
    assert answers[0] == answers[1]
    _same(client, lambda a: f"/work/a/{a.public_id}/", pair)
