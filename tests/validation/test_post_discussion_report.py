"""Blind verdicts count; post-discussion revisions appear only in an exploratory post-discussion view of agreement."""

import io

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.services.workspace import DraftEntry, decide_correction, mark_discussion_seen, request_correction
from validation.models import AgreementReport, GoldenLabel, ReleaseGate
from validation.selectors import load_campaign_arrays
from validation.services.agreement_reports import create_agreement_report

from .builders import blind_test

RESAMPLES = 50


def _revise_after_discussion(assignment: Assignment, *, admin, hit: bool):
    """The expert reads the thread, then asks to turn every verdict to `hit`; an admin accepts."""
    expert = assignment.expert
    mark_discussion_seen(assignment=assignment, expert=expert)
    assignment.refresh_from_db()
    entries = [
        DraftEntry(c.pk, f"Revised after the discussion, criterion {c.position}", hit)
        for c in assignment.campaign_response.item.criteria.order_by("position")
    ]
    correction = request_correction(assignment=assignment, expert=expert, reason="The thread changed my mind", entries=entries)
    assert correction.after_discussion
    return decide_correction(correction=correction, admin=admin, accept=True)


def _judgments(campaign):
    return sorted(
        Judgment.objects.filter(assignment__campaign_response__campaign=campaign).values_list("assignment_id", "criterion_id", "hit")
    )


def _labels(campaign):
    return sorted(GoldenLabel.objects.filter(campaign=campaign).values_list("campaign_response_id", "criterion_id", "hit", "expert_hits"))


@pytest.fixture
def revised(cast):
    """A blind test, its baseline report, and two experts' revisions (all "miss") of three responses after the discussion."""
    campaign = blind_test(cast, campaign="blind-post", seed=5)
    baseline = create_agreement_report(campaign=campaign, resamples=RESAMPLES)
    blind_judgments, blind_labels = _judgments(campaign), _labels(campaign)
    responses = (
        Assignment.objects.filter(campaign_response__campaign=campaign)
        .order_by("campaign_response_id")
        .values_list("campaign_response_id", flat=True)
        .distinct()[:3]
    )
    for cr_id in list(responses):
        for assignment in Assignment.objects.filter(campaign_response_id=cr_id, expert__in=cast.experts[:2]).select_related(
            "expert", "campaign_response__item"
        ):
            _revise_after_discussion(assignment, admin=cast.admin, hit=False)
    return campaign, baseline, blind_judgments, blind_labels


def test_an_accepted_revision_after_the_discussion_changes_no_judgment_golden_label_or_default_report(revised):
    campaign, baseline, blind_judgments, blind_labels = revised
    assert _judgments(campaign) == blind_judgments
    again = create_agreement_report(campaign=campaign, resamples=RESAMPLES)
    assert _labels(campaign) == blind_labels
    for figure in ("item_agreement", "cohen_kappa", "krippendorff_alpha", "pairs", "units"):
        assert getattr(again.typed_result, figure) == getattr(baseline.typed_result, figure), figure
    assert again.typed_result.post_discussion is None and again.typed_parameters.post_discussion is False


def test_the_post_discussion_view_overlays_the_newest_accepted_revision_per_assignment(revised, cast):
    campaign = revised[0]
    blind = load_campaign_arrays(campaign)
    post = load_campaign_arrays(campaign, post_discussion=True)
    assert blind.revisions == {}
    assert post.revisions["assignments"] == 6 and post.revisions["changed_verdicts"] > 0
    assert post.j_unit.size == blind.j_unit.size  # the same verdicts, some of them revised
    verdicts = [
        {(unit, data.expert_ids[e]): hit for unit, e, hit in zip(data.j_unit.tolist(), data.j_expert.tolist(), data.j_hit.tolist())}
        for data in (blind, post)
    ]
    assert verdicts[0].keys() == verdicts[1].keys()
    first_three = set(np.flatnonzero(np.isin(post.cr_id, post.cr_id[:3])).tolist())
    two = {e.pk for e in cast.experts[:2]}
    for (unit, expert), hit in verdicts[1].items():
        if int(post.u_cr[unit]) in first_three and expert in two:
            assert hit is False
        else:
            assert hit == verdicts[0][(unit, expert)]


def test_the_post_discussion_report_differs_is_exploratory_and_never_sets_the_gate_or_the_golden_labels(revised):
    campaign, baseline, _, blind_labels = revised
    gates = ReleaseGate.objects.count()
    post = create_agreement_report(campaign=campaign, resamples=RESAMPLES, post_discussion=True)
    assert post.exploratory is True and post.typed_parameters.post_discussion is True
    assert post.typed_result.post_discussion.note == "post-discussion revisions included"
    assert post.typed_result.post_discussion.assignments == 6
    assert not ReleaseGate.objects.filter(report=post).exists() and ReleaseGate.objects.count() == gates
    assert post.typed_result.krippendorff_alpha.value != baseline.typed_result.krippendorff_alpha.value
    assert post.typed_result.human_hit_rate.value < baseline.typed_result.human_hit_rate.value
    assert _labels(campaign) == blind_labels  # computed on revisions, stored on blind verdicts


def test_the_command_flag_the_page_checkbox_and_the_api_field_ask_for_the_post_discussion_view(
    revised, cast, client_for, monkeypatch, django_capture_on_commit_callbacks
):
    from django_q.conf import Conf

    campaign = revised[0]
    out = io.StringIO()
    call_command("agreement_report", "--campaign", campaign.name, "--resamples", str(RESAMPLES), "--post-discussion", stdout=out)
    assert "post-discussion revisions included" in out.getvalue()
    assert AgreementReport.objects.order_by("-id").first().exploratory is True

    client = client_for(cast.admin)
    response = client.post(
        reverse("validation-reports", args=[campaign.pk]),
        {"post_discussion": True, "wait": True, "resamples": RESAMPLES},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["result"]["post_discussion"]["note"] == "post-discussion revisions included"

    monkeypatch.setattr(Conf, "SYNC", True)  # run the queued job inline
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("validation:compute", args=[campaign.pk]), {"resamples": RESAMPLES, "post_discussion": "on"})
    from_page = AgreementReport.objects.order_by("-id").first()
    assert from_page.trigger == "page" and from_page.typed_parameters.post_discussion is True and from_page.exploratory
    page = client.get(reverse("validation:report", args=[campaign.pk, from_page.pk])).content.decode()
    assert "post-discussion revisions included" in page
    assert not ReleaseGate.objects.filter(report__parameters__post_discussion=True).exists()
