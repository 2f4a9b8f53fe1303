"""An expert skips a response they cannot judge, with a reason: it goes to another expert, never back to them, is not paid,
keeps their draft, and answers a hidden gold check exactly as an ordinary response."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotation.models import Assignment, CampaignResponse, Judgment, Skip
from annotation.services.assignment import assign_next_response
from annotation.services.payments import payment_lines
from annotation.services.workspace import reclaim_assignment, skip_assignment
from annotation.workspace.selectors import own_progress, stranded_work
from heartbench_core.services.api_tokens import issue_token

from .conftest import MODELS

pytestmark = pytest.mark.django_db


def only_one_response(workspace, *, overlap: int = 1) -> CampaignResponse:
    """Leave the campaign a single response, judged by `overlap` experts, so who is served it next is certain."""
    kept = workspace.response_of("dm0001")
    CampaignResponse.objects.filter(campaign=workspace.campaign).exclude(pk=kept.pk).delete()
    workspace.campaign.overlap = overlap
    workspace.campaign.save(update_fields=["overlap"])
    return kept


def rationale_field(assignment: Assignment) -> tuple[int, str]:
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    return criterion.pk, f"rationale-{criterion.pk}"


def skip_on_page(client, assignment, **fields):
    return client.post(reverse("annotation:judge_skip", args=[assignment.public_id]), {"version": assignment.draft_version, **fields})


def test_the_judging_page_offers_a_skip_with_its_reasons(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    page = client_for(cast.expert).get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert reverse("annotation:judge_skip", args=[assignment.public_id]) in page
    for value in Skip.Reason.values:
        assert f'value="{value}"' in page


def test_a_skip_releases_the_response_and_serves_the_next(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    response = skip_on_page(client_for(cast.expert), assignment, reason="distressing")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RELEASED
    skip = Skip.objects.get()
    assert (skip.assignment_id, skip.expert_id, skip.campaign_id, skip.reason) == (
        assignment.pk,
        cast.expert.pk,
        workspace.campaign.pk,
        "distressing",
    )
    following = Assignment.objects.filter(expert=cast.expert, status=Assignment.Status.RESERVED).get()
    assert response.status_code == 302 and response["Location"] == reverse("annotation:judge", args=[following.public_id])
    assert following.campaign_response_id != assignment.campaign_response_id


def test_a_skip_without_a_reason_names_the_field_and_keeps_the_text(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    _cid, field = rationale_field(assignment)
    response = skip_on_page(client_for(cast.expert), assignment, **{field: "Half a thought I must not lose"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Choose why you skip this response." in page and 'id="skip-reason-error"' in page
    assert "Half a thought I must not lose" in page
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED and not Skip.objects.exists()


def test_other_needs_a_note_and_the_form_comes_back_as_posted(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    response = skip_on_page(client_for(cast.expert), assignment, reason="other", note="   ")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Say why you skip this response." in page and 'id="skip-note-error"' in page
    assert 'value="other" form="judging-form" checked' in page
    assert not Skip.objects.exists()
    skip_on_page(client_for(cast.expert), assignment, reason="other", note="I reviewed this patient's case myself")
    assert Skip.objects.get().note == "I reviewed this patient's case myself"


def test_the_draft_stays_with_the_skip_and_the_expert_can_read_it_but_not_take_it_back(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    cid, field = rationale_field(assignment)
    client = client_for(cast.expert)
    skip_on_page(client, assignment, reason="conflict_of_interest", **{field: "Typed after the last autosave"})
    assert Judgment.objects.get(assignment=assignment, criterion_id=cid).rationale == "Typed after the last autosave"
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "You skipped this response" in page and "Conflict of interest" in page
    assert "Typed after the last autosave" in page
    assert reverse("annotation:judge_reclaim", args=[assignment.public_id]) not in page
    with pytest.raises(ValidationError, match="You skipped this response"):
        reclaim_assignment(assignment=assignment, expert=cast.expert)
    client.post(reverse("annotation:judge_reclaim", args=[assignment.public_id]))
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RELEASED
    # Skipped work is not "lapsed work to take back" on the home page.
    assert stranded_work(cast.expert) == []


def test_the_same_expert_is_never_served_it_again_and_another_expert_is(workspace, cast):
    only = only_one_response(workspace, overlap=1)
    first = assign_next_response(expert=cast.expert, campaign=workspace.campaign)
    assert first.campaign_response_id == only.pk
    skip_assignment(assignment=first, expert=cast.expert, reason="outside_expertise")
    assert assign_next_response(expert=cast.expert, campaign=workspace.campaign) is None
    second = assign_next_response(expert=cast.experts[1], campaign=workspace.campaign)
    assert second is not None and second.campaign_response_id == only.pk


def test_a_skip_is_neither_work_done_nor_paid(workspace, cast):
    workspace.campaign.piece_rate = 5
    workspace.campaign.save(update_fields=["piece_rate"])
    assignment = workspace.reserve(cast.expert)
    skip_assignment(assignment=assignment, expert=cast.expert, reason="unreadable")
    progress = own_progress(cast.expert.pk, workspace.campaign)
    assert (progress.done, progress.assigned) == (0, 0)
    assert [line for line in payment_lines(workspace.campaign) if line.expert_id == cast.expert.pk] == []


def test_only_open_work_of_ones_own_can_be_skipped(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    client = client_for(cast.experts[1])
    assert skip_on_page(client, assignment, reason="distressing").status_code == 404
    skip_assignment(assignment=assignment, expert=cast.expert, reason="distressing")
    assert skip_on_page(client_for(cast.expert), assignment, reason="distressing").status_code == 404
    assert Skip.objects.count() == 1


def test_a_calibration_item_cannot_be_skipped(workspace, cast):
    from annotation.models import Campaign

    Campaign.objects.filter(pk=workspace.campaign.pk).update(kind=Campaign.Kind.CALIBRATION)
    assignment = workspace.reserve(cast.expert)
    with pytest.raises(ValidationError, match="Calibration items cannot be skipped"):
        skip_assignment(assignment=assignment, expert=cast.expert, reason="distressing")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED


# --- the API, with the expert's token -----------------------------------------------------------


def token_header(user) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Token {issue_token(user=user, name='judging client').text}"}


def test_the_api_skips_with_a_reason_and_answers_with_the_next_assignment(workspace, cast, client):
    assignment = workspace.reserve(cast.expert)
    url = f"/api/v1/annotation/assignments/{assignment.public_id}/skip/"
    auth = token_header(cast.expert)
    missing = client.post(url, {}, content_type="application/json", **auth)
    assert missing.status_code == 400 and "reason" in missing.json()
    no_note = client.post(url, {"reason": "other"}, content_type="application/json", **auth)
    assert no_note.status_code == 400 and "note" in no_note.json()["errors"]
    done = client.post(url, {"reason": "other", "note": "The transcript is cut off"}, content_type="application/json", **auth)
    assert done.status_code == 201
    body = done.json()
    following = Assignment.objects.get(expert=cast.expert, status=Assignment.Status.RESERVED)
    assert set(body) == {"assignment", "reason", "note", "created_at", "next"}
    assert (body["assignment"], body["reason"], body["note"], body["next"]) == (
        assignment.public_id,
        "other",
        "The transcript is cut off",
        following.public_id,
    )
    detail = client.get(f"/api/v1/annotation/assignments/{assignment.public_id}/", **auth).json()
    assert detail["skipped"] == "Other (say why)" and detail["lapsed"] is True and detail["slot_open"] is False
    assert client.post(url, {"reason": "distressing"}, content_type="application/json", **auth).status_code == 404


def test_skipping_a_gold_check_answers_exactly_as_skipping_an_ordinary_response(workspace, cast, client):
    gold = workspace.reserve(cast.expert, "dm0001", model=MODELS[0])
    ordinary = workspace.reserve(cast.experts[1], "dm0001", model=MODELS[1])
    CampaignResponse.objects.filter(pk=gold.campaign_response_id).update(is_gold=True)
    answers = []
    for assignment in (gold, ordinary):
        url = f"/api/v1/annotation/assignments/{assignment.public_id}/skip/"
        answer = client.post(url, {"reason": "unreadable"}, content_type="application/json", **token_header(assignment.expert))
        body = answer.json()
        answers.append((answer.status_code, sorted(body), body["reason"], body["note"], body["next"] is None))
    assert answers[0] == answers[1]
    assert Skip.objects.count() == 2
