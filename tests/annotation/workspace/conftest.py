"""Fixtures of the workspace tests: a blind-test campaign over the demo items, and ways to fill it."""

from dataclasses import dataclass

import pytest

from annotation.models import Assignment, Campaign, CampaignResponse
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
from tests.factories import demo_responses, demo_version

MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


@dataclass
class Workspace:
    campaign: Campaign

    def response_of(self, question_id: str, model: str | None = None) -> CampaignResponse:
        qs = CampaignResponse.objects.filter(campaign=self.campaign, item__question_id=question_id)
        if model:
            qs = qs.filter(response__model__name=model)
        return qs.order_by("order_key").first()

    def reserve(self, expert, question_id: str = "dm0001", model: str | None = None) -> Assignment:
        """Reserve one response of an item for an expert directly (bypassing matching, on purpose)."""
        from datetime import timedelta

        from django.utils import timezone

        return Assignment.objects.create(
            campaign_response=self.response_of(question_id, model), expert=expert, expires_at=timezone.now() + timedelta(hours=2)
        )


def complete_entries(assignment: Assignment, *, hit: bool = True, text: str = "A considered rationale") -> list[DraftEntry]:
    criteria = assignment.campaign_response.item.criteria.order_by("position")
    return [DraftEntry(criterion_id=c.pk, rationale=f"{text} #{c.position}", hit=hit) for c in criteria]


def judge_fully(assignment: Assignment, *, hit: bool = True, text: str = "A considered rationale") -> Assignment:
    """Save a complete draft and submit it through the services."""
    save_draft(assignment=assignment, expert=assignment.expert, entries=complete_entries(assignment, hit=hit, text=text))
    return submit_assignment(assignment=assignment, expert=assignment.expert)


@pytest.fixture
def workspace(cast) -> Workspace:
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Blind test North",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    return Workspace(campaign=campaign)
