"""Adjudication: the queue, decisions with cause and reason, provenance, flags, and who may decide."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotation.models import Assignment, CampaignResponse
from heartbench_core.models import Criterion
from rubrics.models import CriterionFlag
from tests.validation.builders import blind_test
from validation.models import Adjudication, GoldenLabel
from validation.selectors import adjudication_units
from validation.services.golden import adjudicate, adjudication_queue, refresh_golden_labels


@pytest.fixture
def campaign(cast):
    return blind_test(cast, flip=0.3)


def first_entry(campaign, **kw):
    # The least agreed unit (a split): a reviewer may decide any compared unit, not only those that need a decision.
    entry = adjudication_units(campaign, **kw)[0]
    return entry, CampaignResponse.objects.get(pk=entry.campaign_response_id), Criterion.objects.get(pk=entry.criterion_id)


class TestQueue:
    def test_split_majorities_and_judge_contradictions_are_compared_lowest_agreement_first_but_not_queued(self, campaign):
        # A 2-of-3 split has its golden label (the majority), and so has a unanimous verdict the judge contradicts:
        # with k = 3 and no flagged criterion nothing needs a decision; every compared unit can still be looked at.
        assert adjudication_queue(campaign) == []
        units = adjudication_units(campaign)
        agreements = [e.agreement for e in units]
        assert agreements == sorted(agreements)
        for e in units:
            unanimous = e.expert_hits in (0, e.expert_ratings)
            if "judge_contradicts" in e.triggers:
                assert unanimous and e.judge_hit != (e.expert_hits == e.expert_ratings)
            if not unanimous:
                assert "split" in e.triggers
            assert not e.needs_decision
        assert any("judge_contradicts" in e.triggers for e in units) and any("split" in e.triggers for e in units)

    def test_a_reviewer_never_sees_responses_they_rated(self, cast, campaign):
        entry = adjudication_units(campaign)[0]
        Assignment.objects.create(campaign_response_id=entry.campaign_response_id, expert=cast.reviewer, status="released")
        mine = {e.campaign_response_id for e in adjudication_units(campaign, reviewer=cast.reviewer)}
        assert entry.campaign_response_id not in mine

    def test_criteria_reported_unclear_are_queued_as_ambiguous(self, cast, campaign):
        from annotation.models import UnclearCriterionReport

        assignment = Assignment.objects.filter(campaign_response__campaign=campaign).first()
        criterion = assignment.campaign_response.item.criteria.first()
        UnclearCriterionReport.objects.create(assignment=assignment, criterion=criterion, comment="which feeling?")
        queued = [e for e in adjudication_queue(campaign) if e.criterion_id == criterion.pk]
        assert queued and all("ambiguous" in e.triggers for e in queued)


class TestDecision:
    def test_a_decision_becomes_the_golden_label_with_who_when_and_why(self, cast, campaign):
        refresh_golden_labels(campaign=campaign)
        entry, cr, criterion = first_entry(campaign)
        decision = adjudicate(
            reviewer=cast.reviewer,
            campaign_response=cr,
            criterion=criterion,
            hit=True,
            cause=Adjudication.Cause.RATER_ERROR,
            note="the response does name the feeling",
        )
        label = GoldenLabel.objects.get(campaign_response=cr, criterion=criterion)
        assert label.hit and label.provenance == "adjudicated" and label.adjudication == decision
        assert decision.decided_by == cast.reviewer and decision.decided_at is not None
        assert decision.expert_hits == entry.expert_hits and list(decision.triggers) == list(entry.triggers)
        # A later refresh keeps the decision, and the unit leaves the queue.
        refresh_golden_labels(campaign=campaign)
        assert GoldenLabel.objects.get(pk=label.pk).provenance == "adjudicated"
        assert (cr.pk, criterion.pk) not in {(e.campaign_response_id, e.criterion_id) for e in adjudication_queue(campaign)}

    def test_the_newest_decision_wins(self, cast, campaign):
        _, cr, criterion = first_entry(campaign)
        adjudicate(reviewer=cast.reviewer, campaign_response=cr, criterion=criterion, hit=True, cause="other", note="first")
        adjudicate(reviewer=cast.reviewers[1], campaign_response=cr, criterion=criterion, hit=False, cause="guideline_gap", note="second")
        refresh_golden_labels(campaign=campaign)
        label = GoldenLabel.objects.get(campaign_response=cr, criterion=criterion)
        assert label.hit is False and label.adjudication.note == "second"

    def test_a_decision_needs_a_known_cause_and_a_reason(self, cast, campaign):
        _, cr, criterion = first_entry(campaign)
        with pytest.raises(ValidationError) as exc:
            adjudicate(reviewer=cast.reviewer, campaign_response=cr, criterion=criterion, hit=True, cause="mood", note=" ")
        assert set(exc.value.message_dict) == {"cause", "note"}
        assert not Adjudication.objects.exists()

    def test_it_can_flag_the_criterion_for_the_rubric_authors(self, cast, campaign):
        _, cr, criterion = first_entry(campaign)
        adjudicate(
            reviewer=cast.reviewer,
            campaign_response=cr,
            criterion=criterion,
            hit=False,
            cause="ambiguous_criterion",
            note="'feeling' could mean either",
            flag_for_authors=True,
        )
        flag = CriterionFlag.objects.get(lineage=criterion.lineage)
        assert flag.source == "adjudication" and "either" in flag.reason and flag.flagged_by == cast.reviewer

    def test_experts_and_raters_of_the_response_cannot_decide(self, cast, campaign):
        _, cr, criterion = first_entry(campaign)
        with pytest.raises(PermissionDenied):
            adjudicate(reviewer=cast.expert, campaign_response=cr, criterion=criterion, hit=True, cause="other", note="x")
        Assignment.objects.create(campaign_response=cr, expert=cast.reviewer, status="released")
        with pytest.raises(PermissionDenied):
            adjudicate(reviewer=cast.reviewer, campaign_response=cr, criterion=criterion, hit=True, cause="other", note="x")
        assert not Adjudication.objects.exists()

    def test_the_page_records_a_decision_and_shows_no_model_or_rater_name(self, cast, campaign, client_for):
        _, cr, criterion = first_entry(campaign)
        client = client_for(cast.reviewer)
        url = f"/validation/campaigns/{campaign.pk}/adjudication/{cr.pk}/{criterion.pk}/"
        page = client.get(url).content.decode()
        assert cr.response.model.name not in page
        assert all(e.username not in page for e in cast.experts)
        queue_page = client.get(f"/validation/campaigns/{campaign.pk}/adjudication/").content.decode()
        assert "demo-model" not in queue_page
        bad = client.post(url, {"hit": "1", "cause": "", "note": ""})
        assert bad.status_code == 400 and not Adjudication.objects.exists()
        ok = client.post(url, {"hit": "0", "cause": "judge_error", "note": "the judge missed the penalty"})
        assert ok.status_code == 302
        assert GoldenLabel.objects.get(campaign_response=cr, criterion=criterion).hit is False

    def test_the_api_records_a_decision(self, cast, campaign, client_for):
        _, cr, criterion = first_entry(campaign)
        client = client_for(cast.reviewer)
        queue = client.get(f"/api/v1/validation/campaigns/{campaign.pk}/queue/", {"show": "all"}).json()["results"]
        assert queue[0]["campaign_response_id"] == cr.pk and "model" not in queue[0]
        response = client.post(
            "/api/v1/validation/adjudications/",
            {"campaign_response_id": cr.pk, "criterion_id": criterion.pk, "hit": True, "cause": "other", "note": "clear hit"},
            content_type="application/json",
        )
        assert response.status_code == 201
        assert (
            client_for(cast.expert)
            .post(
                "/api/v1/validation/adjudications/",
                {"campaign_response_id": cr.pk, "criterion_id": criterion.pk, "hit": True, "cause": "other", "note": "x"},
                content_type="application/json",
            )
            .status_code
            == 403
        )
