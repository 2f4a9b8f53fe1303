"""Drafts autosave: upsert per criterion, only by the assignment's expert, never after submission."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.services.workspace import MAX_ACTIVE_SECONDS_PER_REPORT, DraftEntry, record_active_time, save_draft

from .conftest import complete_entries, judge_fully


def test_it_upserts_rationale_and_verdict_per_criterion_and_records_when(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    c1, c2 = assignment.campaign_response.item.criteria.order_by("position")[:2]
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c1.pk, "first thoughts", None)])
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c1.pk, "second thoughts here", True), DraftEntry(c2.pk, "x")])
    rows = {j.criterion_id: (j.rationale, j.hit) for j in Judgment.objects.filter(assignment=assignment)}
    assert rows == {c1.pk: ("second thoughts here", True), c2.pk: ("x", None)}
    assignment.refresh_from_db()
    assert assignment.draft_saved_at is not None


def test_it_keeps_the_reservation_alive_while_the_expert_works(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    before = assignment.expires_at
    saved = save_draft(assignment=assignment, expert=cast.expert, entries=[])
    assert saved.expires_at > before


def test_it_refuses_another_experts_draft(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    with pytest.raises(PermissionDenied):
        save_draft(assignment=assignment, expert=cast.experts[1], entries=complete_entries(assignment))
    assert not Judgment.objects.exists()


def test_it_refuses_a_draft_after_submission(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    with pytest.raises(ValidationError, match="already submitted"):
        save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment, hit=False))
    assert set(Judgment.objects.filter(assignment=assignment).values_list("hit", flat=True)) == {True}


def test_it_names_the_field_of_a_criterion_from_another_item_and_writes_nothing(workspace, cast):
    assignment = workspace.reserve(cast.expert, "dm0001")
    foreign = workspace.response_of("dm0002").item.criteria.first()
    own = assignment.campaign_response.item.criteria.first()
    with pytest.raises(ValidationError) as caught:
        save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(own.pk, "fine"), DraftEntry(foreign.pk, "nope")])
    assert "judgments[1].criterion" in caught.value.message_dict
    assert not Judgment.objects.exists()


def test_it_refuses_an_expired_reservation(workspace, cast):
    from datetime import timedelta

    from django.utils import timezone

    assignment = workspace.reserve(cast.expert)
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(ValidationError, match="expired"):
        save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment))


def test_it_adds_active_time_and_clips_an_implausible_report(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    assert record_active_time(assignment=assignment, expert=cast.expert, seconds=42) == 42
    assert record_active_time(assignment=assignment, expert=cast.expert, seconds=10_000) == 42 + MAX_ACTIVE_SECONDS_PER_REPORT
    assert record_active_time(assignment=assignment, expert=cast.expert, seconds=-5) == 42 + MAX_ACTIVE_SECONDS_PER_REPORT
    save_draft(assignment=assignment, expert=cast.expert, entries=[], active_seconds=8)
    assignment.refresh_from_db()
    assert assignment.active_seconds == 50 + MAX_ACTIVE_SECONDS_PER_REPORT


def test_the_autosave_endpoint_answers_htmx_with_the_saved_indicator(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    c = assignment.campaign_response.item.criteria.first()
    response = client_for(cast.expert).post(
        reverse("annotation:judge_draft", args=[assignment.public_id]),
        {f"rationale-{c.pk}": "The response names the fatigue", f"hit-{c.pk}": "hit", "active_seconds": "12", "version": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert 'id="save-status"' in response.content.decode() and "Saved" in response.content.decode()
    judgment = Judgment.objects.get(assignment=assignment)
    assert (judgment.rationale, judgment.hit) == ("The response names the fatigue", True)
    assignment.refresh_from_db()
    assert assignment.active_seconds == 12


def test_the_autosave_endpoint_tells_htmx_why_it_did_not_save(workspace, cast, client_for):
    assignment = judge_fully(workspace.reserve(cast.expert))
    c = assignment.campaign_response.item.criteria.first()
    response = client_for(cast.expert).post(
        reverse("annotation:judge_draft", args=[assignment.public_id]),
        {f"rationale-{c.pk}": "changed", "version": str(assignment.draft_version)},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 409
    assert "Not saved" in response.content.decode()


def test_a_reload_shows_the_saved_draft(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    c = assignment.campaign_response.item.criteria.order_by("position")[1]
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Half-way rationale", False)])
    body = client_for(cast.expert).get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert ">Half-way rationale</textarea>" in body
    assert f'name="hit-{c.pk}" value="miss" checked' in body


@pytest.mark.parametrize("question_id", ["dm0001", "dm0006"])
def test_each_autosave_runs_the_same_number_of_queries_whatever_the_item_size(
    workspace, cast, client_for, django_assert_num_queries, question_id
):
    assignment = workspace.reserve(cast.expert, question_id)
    client = client_for(cast.expert)
    data = {}
    for c in assignment.campaign_response.item.criteria.all():
        data.update({f"rationale-{c.pk}": "some rationale text", f"hit-{c.pk}": "hit"})
    url = reverse("annotation:judge_draft", args=[assignment.public_id])
    client.post(url, {**data, "version": "0"}, HTTP_HX_REQUEST="true")
    with django_assert_num_queries(10):
        assert client.post(url, {**data, "version": "1"}, HTTP_HX_REQUEST="true").status_code == 200
