"""Submitting: every criterion judged with a rationale first, re-validated by the server, immutable after."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation.models import Assignment, ExpertQuality, Judgment
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment

from .conftest import complete_entries, judge_fully


def test_it_refuses_to_submit_until_every_criterion_is_judged(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    entries = complete_entries(assignment)
    save_draft(assignment=assignment, expert=cast.expert, entries=entries[:-1])
    with pytest.raises(ValidationError) as caught:
        submit_assignment(assignment=assignment, expert=cast.expert)
    assert list(caught.value.message_dict) == [f"criterion_{entries[-1].criterion_id}"]
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED


def test_a_verdict_without_a_rationale_is_invalid(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    entries = complete_entries(assignment)
    entries[0] = DraftEntry(entries[0].criterion_id, "   ", True)
    save_draft(assignment=assignment, expert=cast.expert, entries=entries)
    with pytest.raises(ValidationError, match="write a rationale of at least 10 characters"):
        submit_assignment(assignment=assignment, expert=cast.expert)


def test_a_rationale_shorter_than_the_campaign_minimum_is_invalid(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    entries = complete_entries(assignment)
    entries[2] = DraftEntry(entries[2].criterion_id, "too short", False)  # 9 characters
    save_draft(assignment=assignment, expert=cast.expert, entries=entries)
    with pytest.raises(ValidationError, match="Criterion 3"):
        submit_assignment(assignment=assignment, expert=cast.expert)


def test_a_rationale_without_a_verdict_is_invalid(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    entries = complete_entries(assignment)
    entries[1] = DraftEntry(entries[1].criterion_id, "Long enough rationale", None)
    save_draft(assignment=assignment, expert=cast.expert, entries=entries)
    with pytest.raises(ValidationError, match="Criterion 2: mark hit or miss"):
        submit_assignment(assignment=assignment, expert=cast.expert)


def test_submitting_marks_the_assignment_and_scores_quality(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.submitted_at is not None
    assert ExpertQuality.objects.get(profile__user=cast.expert).submitted == 1


def test_submitted_judgments_cannot_change_even_bypassing_the_service(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    judgment = Judgment.objects.filter(assignment=assignment).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.filter(pk=judgment.pk).update(hit=False)
    other = assignment.campaign_response.item.criteria.exclude(pk=judgment.criterion_id).first()
    Judgment.objects.filter(assignment=assignment, criterion=other).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(assignment=assignment, criterion=other, rationale="sneaked in later", hit=True)
    assert Judgment.objects.get(pk=judgment.pk).hit is True


def test_a_statement_inserting_many_judgments_is_refused_whole_when_one_is_of_a_submitted_assignment(workspace, cast):
    """The guard checks an INSERT once over all its rows (PostgreSQL) or row by row (SQLite): either way nothing goes in."""
    submitted = judge_fully(workspace.reserve(cast.expert))
    criterion = submitted.campaign_response.item.criteria.first()
    Judgment.objects.filter(assignment=submitted, criterion=criterion).delete()
    open_one = workspace.reserve(cast.experts[1])
    criteria = list(open_one.campaign_response.item.criteria.all())
    before = Judgment.objects.count()
    rows = [Judgment(assignment=open_one, criterion=c, hit=True, rationale="a considered rationale") for c in criteria]
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.bulk_create([*rows, Judgment(assignment=submitted, criterion=criterion, hit=True, rationale="sneaked in")])
    assert Judgment.objects.count() == before
    Judgment.objects.bulk_create(rows)  # the open assignment's alone are taken
    assert Judgment.objects.count() == before + len(rows)


def test_a_second_submission_is_refused(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    with pytest.raises(ValidationError, match="already submitted"):
        submit_assignment(assignment=assignment, expert=cast.expert)


def test_the_page_re_validates_and_keeps_what_was_typed(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    criteria = list(assignment.campaign_response.item.criteria.order_by("position"))
    data = {f"rationale-{c.pk}": "A long enough rationale" for c in criteria}
    data.update({f"hit-{c.pk}": "hit" for c in criteria[:-1]}, version="0")
    response = client_for(cast.expert).post(reverse("annotation:judge_submit", args=[assignment.public_id]), data)
    assert response.status_code == 400
    body = response.content.decode()
    assert "Not submitted yet" in body and f"Criterion {len(criteria)}: mark hit or miss." in body
    assert Judgment.objects.filter(assignment=assignment).count() == len(criteria)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED


def test_the_page_submits_then_moves_on_to_the_next_response(workspace, cast, client_for):
    client = client_for(cast.expert)
    first = client.post(reverse("annotation:next_response", args=[workspace.campaign.pk]))
    public_id = first.url.rstrip("/").split("/")[-1]
    assignment = Assignment.objects.get(public_id=public_id)
    data = {"version": str(assignment.draft_version)}
    for c in assignment.campaign_response.item.criteria.all():
        data.update({f"rationale-{c.pk}": "A long enough rationale", f"hit-{c.pk}": "miss", "active_seconds": "30"})
    response = client.post(reverse("annotation:judge_submit", args=[public_id]), data)
    assert response.status_code == 302
    following = response.url.rstrip("/").split("/")[-1]
    assert following != public_id
    assert Assignment.objects.get(public_id=following, expert=cast.expert).status == Assignment.Status.RESERVED
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED and assignment.active_seconds == 30
    page = client.get(response.url).content.decode()
    assert "Submitted. 1 of 2 done" in page
    assert '<strong class="ws-done">1</strong>' in page


@pytest.mark.parametrize("question_id", ["dm0001", "dm0006"])
def test_an_api_submit_runs_the_same_small_number_of_queries_whatever_the_item_size(
    workspace, cast, client_for, django_assert_num_queries, question_id
):
    assignment = workspace.reserve(cast.expert, question_id)
    judge_fully(workspace.reserve(cast.expert, "dm0002"))  # the expert's quality rows exist, as after a first submission
    entries = [{"criterion": e.criterion_id, "rationale": e.rationale, "hit": e.hit} for e in complete_entries(assignment)]
    client = client_for(cast.expert)
    # Session, user, roles and the assignment; the draft (lock, criteria, upsert, update); the
    # submission (lock, criteria, one read of the judgments, update; the quality rows, the
    # submitted count, their update, the policy); savepoints. It was 33 and 49 before; 23 since the
    # submission records the guidelines in force (one query: the campaign's, else its dataset's).
    with django_assert_num_queries(23):
        response = client.post(
            f"/api/v1/annotation/assignments/{assignment.public_id}/submit/",
            {"version": 0, "judgments": entries},
            content_type="application/json",
        )
    assert response.status_code == 200
    assert Judgment.objects.filter(assignment=assignment).count() == len(entries)
