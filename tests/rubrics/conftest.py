"""Fixtures of the rubric tests: the demo dataset and helpers to walk a revision through review."""

import pytest

from heartbench_core.models import Criterion
from rubrics import services
from tests.factories import demo_version


@pytest.fixture
def version(db):
    return demo_version()


@pytest.fixture
def criterion(version):
    """dm0001's first criterion: 情绪感知 +3 "AI识别出用户的疲惫、倦怠或无力感"."""
    return Criterion.objects.select_related("lineage", "item").get(item__version=version, item__question_id="dm0001", position=0)


def approve_by_panel(revision, reviewers):
    """Submit (if needed) and have every panel member approve."""
    if revision.status == "draft":
        services.submit_revision(revision=revision, user=revision.author)
    for reviewer in reviewers:
        revision = services.review_revision(revision=revision, reviewer=reviewer, verdict="approve")
    return revision


def edit(cast, criterion, **changes):
    fields = {"text": criterion.text, "ability": criterion.ability, "weight": criterion.weight, "reason": "clarify wording"}
    fields.update(changes)
    base = fields.pop("base_revision", criterion.lineage.current_revision)
    return services.edit_criterion(author=fields.pop("author", cast.author), key=criterion.lineage_id, base_revision=base, **fields)


def judge(version, question_id, hits_by_model: dict, *, judge_name="judge-a", label="default"):
    """Record judge verdicts: {model name: {position: hit}} on the given item's criteria."""
    from heartbench_core.models import JudgeRun, JudgeVerdict, LanguageModel, ModelResponse

    item = version.items.get(question_id=question_id)
    criteria = {c.position: c for c in item.criteria.all()}
    for model_name, hits in hits_by_model.items():
        model = LanguageModel.objects.get(name=model_name)
        response = ModelResponse.objects.get(dataset=version.dataset, question_id=question_id, model=model)
        run, _ = JudgeRun.objects.get_or_create(version=version, model=model, judge=judge_name, label=label)
        for pos, hit in hits.items():
            JudgeVerdict.objects.create(run=run, response=response, criterion=criteria[pos], hit=hit)


def human_judgments(version, question_id, model_name, experts, hits_by_expert: list[dict], campaign_name="blind"):
    """Submitted expert judgments of one response: one dict {position: hit} per expert."""
    from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
    from heartbench_core.models import ModelResponse

    item = version.items.get(question_id=question_id)
    criteria = {c.position: c for c in item.criteria.all()}
    response = ModelResponse.objects.get(dataset=version.dataset, question_id=question_id, model__name=model_name)
    campaign, _ = Campaign.objects.get_or_create(name=campaign_name, defaults={"version": version})
    entry, _ = CampaignResponse.objects.get_or_create(campaign=campaign, response=response, defaults={"item": item})
    for expert, hits in zip(experts, hits_by_expert):
        assignment = Assignment.objects.create(campaign_response=entry, expert=expert)
        for pos, hit in hits.items():
            Judgment.objects.create(assignment=assignment, criterion=criteria[pos], hit=hit, rationale="理由充分的判断")
        assignment.status = Assignment.Status.SUBMITTED
        assignment.save(update_fields=["status"])
    return response
