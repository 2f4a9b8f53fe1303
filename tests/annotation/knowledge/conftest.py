"""Fixtures of the knowledge library's tests: the demo dataset, a blind test on it, and helpers to publish entries."""

from dataclasses import dataclass

import pytest

from annotation.knowledge.models import FaqEntry
from annotation.knowledge.services.knowledge import (
    CaseContent,
    FaqContent,
    create_case,
    create_faq_entry,
    review_faq_entry,
    submit_faq_entry,
)
from annotation.models import Campaign, CampaignResponse
from annotation.services.campaigns import create_campaign
from heartbench_core.models import Criterion, DatasetVersion
from tests.factories import demo_responses, demo_version

MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


@dataclass
class Library:
    version: DatasetVersion
    campaign: Campaign

    @property
    def dataset(self):
        return self.version.dataset

    def criterion(self, question_id: str = "dm0001", position: int = 0) -> Criterion:
        return Criterion.objects.select_related("lineage", "item").get(
            item__version=self.version, item__question_id=question_id, position=position
        )

    def entry(self, question_id: str = "dm0001", model: str | None = None) -> CampaignResponse:
        qs = CampaignResponse.objects.filter(campaign=self.campaign, item__question_id=question_id).select_related("response", "item")
        if model:
            qs = qs.filter(response__model__name=model)
        return qs.order_by("order_key").first()


def published_faq(
    cast, dataset, *, question="怎样算共情？", answer="用户的感受被说出来才算。", criteria=(), abilities=(), tags=()
) -> FaqEntry:
    entry = create_faq_entry(
        author=cast.author,
        dataset=dataset,
        content=FaqContent(question=question, answer=answer, criteria=list(criteria), abilities=list(abilities), tags=list(tags)),
    )
    submit_faq_entry(entry=entry, author=cast.author)
    return review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)


def written_case(cast, criterion, *, title="隐含的共情也算命中", hit=True, publish=True, **source):
    from annotation.knowledge.services.knowledge import CaseSource

    return create_case(
        author=cast.reviewer,
        criterion=criterion,
        content=CaseContent(
            title=title, excerpt="我能感觉到你这段时间很辛苦。", hit=hit, reasoning="回复没有直接说“共情”，但说出了用户的感受。"
        ),
        source=CaseSource(**source) if source else CaseSource(),
        publish=publish,
    )


@pytest.fixture
def library(cast) -> Library:
    version = demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Blind test Library",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign
    return Library(version=version, campaign=campaign)


def calibration_item(library, question_id="dm0002", model="demo-model-borealis", *, status="active"):
    """A calibration set of one response with reference verdicts (hit on even positions, with an explanation)."""
    from annotation.models import GoldLabel
    from heartbench_core.models import ModelResponse

    calibration = Campaign.objects.create(
        name=f"Calibration {question_id}", kind=Campaign.Kind.CALIBRATION, version=library.version, status=status
    )
    response = ModelResponse.objects.get(dataset=library.dataset, question_id=question_id, model__name=model)
    item = library.version.items.get(question_id=question_id)
    entry = CampaignResponse.objects.create(campaign=calibration, response=response, item=item)
    GoldLabel.objects.bulk_create(
        [
            GoldLabel(campaign_response=entry, criterion=c, hit=c.position % 2 == 0, explanation=f"参考判定：第{c.position + 1}条的理由。")
            for c in item.criteria.all()
        ]
    )
    return entry
