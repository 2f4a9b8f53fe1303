"""A small, complete fixture world with one object of each kind a URL can name.

The permission matrix fills every URL's arguments from here. Pieces owned by other apps are
built through their services or models; a piece that cannot be built leaves its value
None, and the matrix then names the URL whose argument has no value.
"""

from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from tests.factories import demo_responses, demo_version

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
MODELS = ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")


@dataclass
class World:
    cast: object
    values: dict = field(default_factory=dict)
    objects: dict = field(default_factory=dict)


def build_world(cast) -> World:
    from annotation.models import Assignment, Campaign, CampaignResponse, CorrectionRequest, Judgment
    from annotation.services.campaigns import create_campaign
    from heartbench_core.models import JudgeRun, ModelResponse

    world = World(cast=cast)
    version = demo_version()
    demo_responses()
    from heartbench_core.services.judging import import_judge_verdicts

    for model in MODELS:
        import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge="demo-judge")
    outcome = create_campaign(
        name="matrix",
        dataset_name="demo",
        model_names=list(MODELS),
        sample_fraction=1.0,
        overlap=2,
        requires_qualification=False,
        expert_usernames=[e.username for e in cast.experts],
        created_by=cast.admin,
    )
    campaign: Campaign = outcome.campaign
    entry = CampaignResponse.objects.filter(campaign=campaign, is_gold=False).select_related("item").order_by("order_key").first()
    assignment = Assignment.objects.create(campaign_response=entry, expert=cast.expert, expires_at=None)
    criterion = entry.item.criteria.order_by("position").first()
    Judgment.objects.create(assignment=assignment, criterion=criterion, rationale="The response names the feeling.", hit=True)
    submitted = Assignment.objects.create(
        campaign_response=CampaignResponse.objects.filter(campaign=campaign).exclude(pk=entry.pk).order_by("order_key").first(),
        expert=cast.expert,
        expires_at=None,
        status=Assignment.Status.SUBMITTED,
    )
    correction = CorrectionRequest.objects.create(assignment=submitted, reason="I misread criterion 1.", original=[], proposed=[])
    # The second expert also judged that response: with k=2 its discussion thread is open.
    Assignment.objects.create(
        campaign_response=submitted.campaign_response, expert=cast.experts[1], expires_at=None, status=Assignment.Status.SUBMITTED
    )
    from heartbench_core.services.api_tokens import issue_token

    api_token = issue_token(user=cast.author, name="matrix", by=cast.admin).token
    world.objects.update(version=version, campaign=campaign, assignment=assignment, entry=entry, criterion=criterion)
    world.values.update(
        name="demo",
        label=version.label,
        question_id=entry.item.question_id,
        model=MODELS[0],
        campaign_id=campaign.pk,
        public_id=assignment.public_id,
        submitted_public_id=submitted.public_id,
        entry_id=entry.pk,
        what="judgments",
        fmt="csv",
        criterion_id=criterion.pk,
        key=str(criterion.lineage_id),
        correction_id=correction.pk,
        user_id=cast.author.pk,
        api_token_pk=api_token.pk,
        uidb64="MQ",  # a password-reset link whose token is not valid: the page says so
        token="not-a-valid-token",
        response_public_id=ModelResponse.objects.order_by("pk").first().public_id,
        version_pk=version.pk,
        item_pk=entry.item_id,
        model_pk=ModelResponse.objects.order_by("pk").first().model_id,
        judge_run_pk=JudgeRun.objects.order_by("pk").values_list("pk", flat=True).first(),
    )
    _rubrics_pieces(world)
    _validation_pieces(world)
    _campaign_management_pieces(world)
    _judging_pieces(world)
    _library_pieces(world)
    return world


def _judging_pieces(world: World) -> None:
    from heartbench_core.judging.services.endpoints import save_endpoint
    from heartbench_core.judging.services.runs import Selection, release_held, request_judge_run

    # An endpoint pointing at nothing, and a run on it that is only recorded: held as if by a command, then let go
    # (cancelled), so no broker message is sent and no request ever leaves.
    save_endpoint(name="matrix-judge", base_url="http://127.0.0.1:9/v1", model="matrix-judge-model")
    run = request_judge_run(
        dataset_name="demo", model_name=MODELS[0], endpoint_name="matrix-judge", selection=Selection(questions=("dm0001",)), hold_as="world"
    ).run
    release_held(run=run)
    world.values.update(endpoint_name="matrix-judge", template_name="heartbench-zh", revision=1, endpoint_run_pk=run.pk)


def _rubrics_pieces(world: World) -> None:
    from rubrics.models import AuditEntry, CriterionFlag
    from rubrics.services import edit_criterion, flag_criterion

    criterion = world.objects["criterion"]
    revision = edit_criterion(
        author=world.cast.author,
        key=criterion.lineage_id,
        text=criterion.text + "（措辞更清楚）",
        ability=criterion.ability,
        weight=criterion.weight,
        reason="clearer wording",
        base_revision=criterion.lineage.current_revision,
    )
    flag = flag_criterion(lineage=criterion.lineage, reason="experts disagree", source="test")
    world.values.update(
        revision_pk=revision.pk,
        audit_pk=AuditEntry.objects.order_by("pk").values_list("pk", flat=True).first(),
        flag_pk=flag.pk if isinstance(flag, CriterionFlag) else None,
        kind="flag",
    )


def _validation_pieces(world: World) -> None:
    from validation.models import Adjudication, BackgroundJob
    from validation.services.agreement_reports import create_agreement_report

    report = create_agreement_report(campaign=world.objects["campaign"], resamples=50)
    # A decision on the world's unit, so a case can be written from it.
    Adjudication.objects.create(
        campaign_response=world.objects["entry"],
        criterion=world.objects["criterion"],
        hit=True,
        cause="ambiguous_criterion",
        note="implicit empathy counts",
        expert_hits=1,
        expert_ratings=1,
        decided_by=world.cast.reviewers[1],
    )
    job = BackgroundJob.objects.create(
        kind=BackgroundJob.Kind.AGREEMENT_REPORT, campaign=world.objects["campaign"], status="done", report=report
    )
    world.values.update(report_id=report.pk, report_pk=report.pk, job_pk=job.pk, version_id=world.objects["version"].pk)
    # A gold-set draft waiting for its verdicts, on a response no campaign holds as gold.
    from datetime import timedelta

    from validation.models import GoldDraft

    draft = GoldDraft.objects.create(
        name="matrix draft",
        kind="gold_set",
        version=world.objects["version"],
        retake_cooldown=timedelta(days=1),
        created_by=world.cast.admin,
    )
    draft.responses.add(world.objects["entry"].response_id)
    world.values.update(draft_id=draft.pk, response_id=world.objects["entry"].response_id)


def _campaign_management_pieces(world: World) -> None:
    from annotation.models import AdminAlert, CalibrationResult, ItemProblemReport

    campaign, expert = world.objects["campaign"], world.cast.expert
    result = CalibrationResult.objects.create(campaign=campaign, expert=expert, threshold=0.8, score=1.0, agreed=1, compared=1, passed=True)
    alert = AdminAlert.objects.create(kind=AdminAlert.Kind.GOLD_ACCURACY, expert=expert, campaign=campaign, message="matrix alert")
    problem = ItemProblemReport.objects.create(assignment=world.objects["assignment"], comment="The response is cut off.")
    world.values.update(report_kind="problem", problem_report_pk=problem.pk)
    world.values.update(
        username=expert.username, result_id=result.pk, calibration_result_pk=result.pk, alert_id=alert.pk, alert_pk=alert.pk
    )
    # The world's expert is certified, so their certificate page and its verification code answer.
    from django.utils import timezone

    from annotation.manage.selectors import certificate_code
    from annotation.models import ExpertProfile, ExpertQuality

    profile, _ = ExpertProfile.objects.get_or_create(user=expert)
    ExpertQuality.objects.update_or_create(profile=profile, defaults={"calibration_score": 0.9, "certified_at": timezone.now()})
    world.values.update(code=certificate_code(campaign.pk, expert.pk))


def _library_pieces(world: World) -> None:
    from annotation.knowledge.services.knowledge import (
        CaseContent,
        FaqContent,
        create_case,
        create_faq_entry,
        review_faq_entry,
        submit_faq_entry,
    )
    from annotation.services.guidelines import publish_dataset_guidelines

    cast, criterion = world.cast, world.objects["criterion"]
    entry = create_faq_entry(
        author=cast.author,
        dataset=world.objects["version"].dataset,
        content=FaqContent(question="怎样算共情？", answer="说出用户的感受。", criteria=[criterion.lineage_id]),
    )
    submit_faq_entry(entry=entry, author=cast.author)
    review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)
    case = create_case(
        author=cast.reviewer,
        criterion=criterion,
        content=CaseContent(title="隐含的共情", excerpt="你一定很累吧。", hit=True, reasoning="说出了感受。"),
        publish=True,
    )
    publish_dataset_guidelines(dataset=world.objects["version"].dataset, body="# 总则\n先写理由。", author=cast.admin)
    world.values.update(faq_pk=entry.pk, case_pk=case.pk)
