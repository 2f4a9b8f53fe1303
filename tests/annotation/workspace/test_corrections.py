"""Corrections: an expert asks with a reason, an admin accepts or refuses, both versions are kept."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation.models import CorrectionRequest, Judgment
from annotation.services.workspace import DraftEntry, decide_correction, request_correction

from .conftest import judge_fully


def _flip_first(assignment):
    first = assignment.campaign_response.item.criteria.order_by("position").first()
    return [DraftEntry(first.pk, "On reflection the response does not do this", False)], first


def test_a_correction_keeps_the_submitted_version_and_the_proposed_one(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    entries, first = _flip_first(assignment)
    correction = request_correction(assignment=assignment, expert=cast.expert, reason="I misread the response", entries=entries)
    before = {r["criterion"]: r for r in correction.original}
    after = {r["criterion"]: r for r in correction.proposed}
    assert before[first.pk]["hit"] is True and after[first.pk]["hit"] is False
    assert len(before) == len(after) == 6
    assert Judgment.objects.get(assignment=assignment, criterion=first).hit is True  # nothing applied yet


def test_accepting_applies_the_correction_and_keeps_the_original_on_record(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    entries, first = _flip_first(assignment)
    correction = request_correction(assignment=assignment, expert=cast.expert, reason="I misread", entries=entries)
    decided = decide_correction(correction=correction, admin=cast.admin, accept=True, note="Agreed")
    assert decided.status == CorrectionRequest.Status.ACCEPTED and decided.decided_by == cast.admin
    judgment = Judgment.objects.get(assignment=assignment, criterion=first)
    assert (judgment.hit, judgment.rationale) == (False, "On reflection the response does not do this")
    assert {r["criterion"]: r["hit"] for r in CorrectionRequest.objects.get().original}[first.pk] is True
    with pytest.raises(IntegrityError), transaction.atomic():  # still immutable outside an accepted correction
        Judgment.objects.filter(pk=judgment.pk).update(hit=True)


def test_refusing_changes_no_judgment(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    entries, first = _flip_first(assignment)
    correction = request_correction(assignment=assignment, expert=cast.expert, reason="I misread", entries=entries)
    decide_correction(correction=correction, admin=cast.admin, accept=False, note="The first reading was right")
    assert Judgment.objects.get(assignment=assignment, criterion=first).hit is True
    assert CorrectionRequest.objects.get().status == CorrectionRequest.Status.REFUSED


def test_only_an_admin_decides_and_only_once(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    entries, _ = _flip_first(assignment)
    correction = request_correction(assignment=assignment, expert=cast.expert, reason="I misread", entries=entries)
    with pytest.raises(PermissionDenied):
        decide_correction(correction=correction, admin=cast.expert, accept=True)
    decide_correction(correction=correction, admin=cast.admin, accept=False)
    with pytest.raises(ValidationError, match="already refused"):
        decide_correction(correction=correction, admin=cast.admin, accept=True)


def test_a_correction_needs_a_reason_a_change_and_submitted_work(workspace, cast):
    draft = workspace.reserve(cast.expert, "dm0002")
    with pytest.raises(ValidationError, match="Only submitted work"):
        request_correction(assignment=draft, expert=cast.expert, reason="why", entries=[])
    assignment = judge_fully(workspace.reserve(cast.expert))
    with pytest.raises(ValidationError, match="reason"):
        request_correction(assignment=assignment, expert=cast.expert, reason=" ", entries=_flip_first(assignment)[0])
    with pytest.raises(ValidationError, match="changes nothing"):
        request_correction(assignment=assignment, expert=cast.expert, reason="why", entries=[])
    short = [DraftEntry(_flip_first(assignment)[1].pk, "short", False)]
    with pytest.raises(ValidationError, match="at least 10 characters"):
        request_correction(assignment=assignment, expert=cast.expert, reason="why", entries=short)
    assert not CorrectionRequest.objects.exists()


def test_one_correction_waits_at_a_time(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert))
    entries, _ = _flip_first(assignment)
    request_correction(assignment=assignment, expert=cast.expert, reason="first", entries=entries)
    with pytest.raises(ValidationError, match="already waiting"):
        request_correction(assignment=assignment, expert=cast.expert, reason="second", entries=entries)


def test_the_pages_carry_the_request_to_the_admin_and_back(workspace, cast, client_for):
    assignment = judge_fully(workspace.reserve(cast.expert))
    first = assignment.campaign_response.item.criteria.order_by("position").first()
    client = client_for(cast.expert)
    url = reverse("annotation:judge_correction", args=[assignment.public_id])
    assert client.get(url).status_code == 200
    response = client.post(
        url, {"reason": "I misread it", f"rationale-{first.pk}": "It does not, on a second read", f"hit-{first.pk}": "miss"}
    )
    assert response.status_code == 302
    assert "waiting for an admin" in client.get(response.url).content.decode()
    admin = client_for(cast.admin)
    listing = admin.get(reverse("annotation:corrections")).content.decode()
    assert "I misread it" in listing and "It does not, on a second read" in listing
    correction = CorrectionRequest.objects.get()
    admin.post(reverse("annotation:decide_correction", args=[correction.pk]), {"decision": "accept", "note": ""})
    assert Judgment.objects.get(assignment=assignment, criterion=first).hit is False
    assert client_for(cast.expert).get(reverse("annotation:corrections")).status_code == 403
