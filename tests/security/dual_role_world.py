"""A world with users who are experts *and* staff, an open campaign they judge in and a closed one sharing its responses.

- Campaign "C open" (aurora and borealis responses) lists the cast's experts and every dual-role
  user; two other experts judged some of its responses (their rationale is OTHER_SECRET), one of its
  responses is a hidden gold check (explanation GOLD_SECRET), the judge's rationale on its
  responses is JUDGE_SECRET, and each dual-role user holds work in it.
- Campaign "D closed" (all three models) was judged by the same two experts; its responses of
  aurora and borealis are the very responses of C (their rationale is OTHER_SECRET too), its
  cirrus responses are in no open campaign (rationale OPEN_RATIONALE).
- Both have an agreement report, hence golden labels.
- Campaign "E elsewhere" (closed) is on another dataset, "demo-elsewhere" (its cirrus responses
  only), judged by the same two experts (OPEN_RATIONALE), with a report and, with platform runs,
  a platform run: the staff views a dual-role user keeps while C is open. Everything on "demo",
  D included, is closed to them whole: blindness is by dataset, never a hole in a list.
"""

from dataclasses import dataclass, field

from django.utils import timezone

from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

C_MODELS = ("demo-model-aurora", "demo-model-borealis")
OPEN_MODEL = "demo-model-cirrus"
ELSEWHERE = "demo-elsewhere"  # another dataset: what a dual-role user still sees while C is open
JUDGE = "demo-judge"
JUDGE_SECRET = "JUDGE-RATIONALE-ON-C-5d1"
OTHER_SECRET = "OTHER-RATER-RATIONALE-ON-C-8e2"
GOLD_SECRET = "GOLD-EXPLANATION-IN-C-2a7"
OPEN_RATIONALE = "open rationale on a response of no open campaign"
MINE = "My own blind rationale, long enough"
CASE_SECRET = "CASE-OF-C-SECRET-6f3"  # cases of C's running work: from C, or on a response C holds
LESSON_FROM_E = "Lesson from E, on another dataset"

# Every combination of an expert with staff roles, and a superuser the campaign lists.
COMBINATIONS = {
    "expert+admin": (Role.EXPERT, Role.ADMIN),
    "expert+reviewer": (Role.EXPERT, Role.SENIOR_REVIEWER),
    "expert+author": (Role.EXPERT, Role.RUBRIC_AUTHOR),
    "expert+all": (Role.EXPERT, Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER),
    "superuser": (),
}


@dataclass
class DualRoleWorld:
    cast: object
    users: dict
    version: object
    open_campaign: object
    closed_campaign: object
    c_entries: list
    d_entries: list
    mine: dict = field(default_factory=dict)  # combination -> the user's own assignment in C
    queued: object = None  # an entry of C with a split verdict (queued for adjudication)
    d_queued_hidden: object = None  # an entry of D whose response is also in C
    d_queued_open: object = None  # an entry of D whose response is in no open campaign
    elsewhere: object = None  # campaign E (closed) on the other dataset
    e_queued: object = None  # an entry of E with a split verdict
    library: dict = field(default_factory=dict)  # the knowledge library's FAQ entry and cases (see _library)

    def c_response_ids(self) -> set[int]:
        return {e.response_id for e in self.c_entries}

    def c_assignment_ids(self) -> list[str]:
        from annotation.models import Assignment

        return list(Assignment.objects.filter(campaign_response__campaign=self.open_campaign).values_list("public_id", flat=True))


def _judge(entry, expert, rationale, hits):
    from annotation.models import Assignment, Judgment

    assignment = Assignment.objects.create(campaign_response=entry, expert=expert, expires_at=None)
    criteria = list(entry.item.criteria.order_by("position"))
    Judgment.objects.bulk_create(
        [Judgment(assignment=assignment, criterion=c, rationale=f"{rationale} {c.position}", hit=hits(c)) for c in criteria]
    )
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    return assignment


def build_dual_role_world(cast, *, platform_runs: bool = False) -> DualRoleWorld:
    from annotation.models import Assignment, CampaignResponse, CorrectionRequest, GoldLabel, Judgment
    from annotation.services.campaigns import create_campaign, set_campaign_status
    from heartbench_core.models import JudgeRun, JudgeVerdict, LanguageModel, ModelResponse
    from validation.services.agreement_reports import create_agreement_report

    version = demo_version()
    demo_responses()
    users = {}
    for combination, roles in COMBINATIONS.items():
        username = "dual_" + combination.replace("+", "_")
        users[combination] = make_user(username, *roles, is_superuser=combination == "superuser")
    experts = [e.username for e in cast.experts]
    c = create_campaign(
        name="C open",
        dataset_name="demo",
        model_names=list(C_MODELS),
        sample_fraction=1.0,
        overlap=2,
        expert_usernames=experts + [u.username for u in users.values()],
        requires_qualification=False,
    ).campaign
    d = create_campaign(
        name="D closed",
        dataset_name="demo",
        model_names=[*C_MODELS, OPEN_MODEL],
        sample_fraction=1.0,
        overlap=2,
        expert_usernames=experts,
        requires_qualification=False,
    ).campaign
    c_entries = list(
        CampaignResponse.objects.filter(campaign=c)
        .select_related("item", "response")
        .order_by("item__question_id", "response__model__name")
    )
    d_entries = list(
        CampaignResponse.objects.filter(campaign=d)
        .select_related("item", "response")
        .order_by("item__question_id", "response__model__name")
    )
    c_responses = {e.response_id for e in c_entries}
    # The judge's verdicts on every response; its rationale on C's responses is the secret.
    for model in LanguageModel.objects.filter(name__in=[*C_MODELS, OPEN_MODEL]):
        run = JudgeRun.objects.create(version=version, model=model, judge=JUDGE)
        verdicts = []
        for response in ModelResponse.objects.filter(model=model, dataset=version.dataset):
            item = version.items.get(question_id=response.question_id)
            rationale = JUDGE_SECRET if response.pk in c_responses else "open verdict rationale"
            verdicts += [
                JudgeVerdict(run=run, response=response, criterion=cr, hit=cr.position % 2 == 0, rationale=rationale)
                for cr in item.criteria.all()
            ]
        JudgeVerdict.objects.bulk_create(verdicts)
    other, third = cast.experts[1], cast.experts[2]
    # In C: the two other experts judge the first two entries, agreeing on even positions (golden labels) only (ties, queued).
    for entry in c_entries[:2]:
        _judge(entry, other, OTHER_SECRET, lambda cr: True)
        _judge(entry, third, OTHER_SECRET, lambda cr: cr.position % 2 == 0)
    # The other expert asks to correct their judgment of C's first entry (admins decide corrections).
    theirs = Assignment.objects.get(campaign_response=c_entries[0], expert=other)
    first = c_entries[0].item.criteria.order_by("position").first()
    CorrectionRequest.objects.create(
        assignment=theirs,
        reason=OTHER_SECRET,
        original=[{"criterion": first.pk, "position": first.position, "rationale": f"{OTHER_SECRET} 0", "hit": True}],
        proposed=[{"criterion": first.pk, "position": first.position, "rationale": f"{OTHER_SECRET} again", "hit": False}],
    )
    gold = c_entries[-1]
    CampaignResponse.objects.filter(pk=gold.pk).update(is_gold=True)
    GoldLabel.objects.bulk_create(
        [GoldLabel(campaign_response=gold, criterion=cr, hit=True, explanation=GOLD_SECRET) for cr in gold.item.criteria.all()]
    )
    world = DualRoleWorld(
        cast=cast, users=users, version=version, open_campaign=c, closed_campaign=d, c_entries=c_entries, d_entries=d_entries
    )
    world.queued = c_entries[0]
    # Each dual-role user holds work in C (a draft on an entry nobody else judged).
    for i, (combination, user) in enumerate(users.items()):
        entry = c_entries[2 + i]
        assignment = Assignment.objects.create(campaign_response=entry, expert=user, expires_at=None)
        Judgment.objects.create(assignment=assignment, criterion=entry.item.criteria.order_by("position").first(), rationale=MINE, hit=True)
        world.mine[combination] = assignment
    # In D: the same two experts judge the responses of the first question (all three models) the same way.
    first_question = d_entries[0].item.question_id
    for entry in [e for e in d_entries if e.item.question_id == first_question]:
        text = OTHER_SECRET if entry.response_id in c_responses else OPEN_RATIONALE
        _judge(entry, other, text, lambda cr: True)
        _judge(entry, third, text, lambda cr: cr.position % 2 == 0)
        if entry.response_id in c_responses:
            world.d_queued_hidden = entry
        else:
            world.d_queued_open = entry
    create_agreement_report(campaign=c, resamples=20)
    create_agreement_report(campaign=d, resamples=20)
    world.elsewhere, world.e_queued = _elsewhere(experts, other, third)
    if platform_runs:  # a second judge, after the reports (which would otherwise have to name one)
        _platform_runs(version, c_responses)
        _platform_runs(world.elsewhere.version, set(), models=(OPEN_MODEL,))
    set_campaign_status(campaign=d, status="closed")
    d.refresh_from_db()
    world.library = _library(world)
    return world


def _elsewhere(experts, other, third):
    """Campaign E on another dataset (cirrus answers only), judged by the two experts, reported, closed."""
    from annotation.models import CampaignResponse
    from annotation.services.campaigns import create_campaign, set_campaign_status
    from heartbench_core.models import JudgeRun, JudgeVerdict, LanguageModel, ModelResponse
    from validation.services.agreement_reports import create_agreement_report

    version = demo_version(ELSEWHERE)
    demo_responses(ELSEWHERE, models=(OPEN_MODEL,))
    e = create_campaign(
        name="E elsewhere",
        dataset_name=ELSEWHERE,
        model_names=[OPEN_MODEL],
        sample_fraction=1.0,
        overlap=2,
        expert_usernames=experts,
        requires_qualification=False,
    ).campaign
    run = JudgeRun.objects.create(version=version, model=LanguageModel.objects.get(name=OPEN_MODEL), judge=JUDGE)
    for response in ModelResponse.objects.filter(dataset=version.dataset):
        item = version.items.get(question_id=response.question_id)
        JudgeVerdict.objects.bulk_create(
            [
                JudgeVerdict(run=run, response=response, criterion=cr, hit=cr.position % 2 == 0, rationale="open verdict rationale")
                for cr in item.criteria.all()
            ]
        )
    entries = list(CampaignResponse.objects.filter(campaign=e).select_related("item").order_by("item__question_id")[:2])
    for entry in entries:
        _judge(entry, other, OPEN_RATIONALE, lambda cr: True)
        _judge(entry, third, OPEN_RATIONALE, lambda cr: cr.position % 2 == 0)
    create_agreement_report(campaign=e, resamples=20)
    set_campaign_status(campaign=e, status="closed")
    e.refresh_from_db()
    return e, entries[0]


def _platform_runs(version, c_responses, models=(C_MODELS[0], OPEN_MODEL)):
    """Runs made on the platform: a judge run of a C model (its reasons and raw answers are JUDGE_SECRET) and one of the open model."""
    from heartbench_core.judging.models import Endpoint, EndpointRun, RunQuestion
    from heartbench_core.judging.services.endpoints import default_template, latest_revision, save_endpoint
    from heartbench_core.models import JudgeRun, JudgeVerdict, LanguageModel, ModelResponse

    endpoint = Endpoint.objects.filter(name="dual-judge").first() or (
        save_endpoint(name="dual-judge", base_url="http://127.0.0.1:9/v1", model="dual-judge-model").endpoint
    )
    revision = latest_revision(default_template())
    for model in LanguageModel.objects.filter(name__in=models):
        judge_run = JudgeRun.objects.create(version=version, model=model, judge=endpoint.model, label="platform")
        run = EndpointRun.objects.create(
            kind="judge",
            version=version,
            model=model,
            endpoint=endpoint,
            judge_run=judge_run,
            template_revision=revision,
            status="finished",
        )
        for response in ModelResponse.objects.filter(model=model, dataset=version.dataset):
            item = version.items.get(question_id=response.question_id)
            hidden = response.pk in c_responses
            reason = JUDGE_SECRET if hidden else "open platform reason"
            failed = item.question_id == "dm0001"
            RunQuestion.objects.create(
                run=run,
                item=item,
                status="failed" if failed else "done",
                problem={"code": "wrong_length", "found": 1, "expected": 2} if failed else None,
                outputs=[
                    {
                        "answer": f'{{"criteria": [{{"index": 1, "reason": "{reason}", "hit": 1}}]}}',
                        "finish_reason": "stop",
                        "problem": None,
                    }
                ],
            )
            if not failed:
                JudgeVerdict.objects.bulk_create(
                    [JudgeVerdict(run=judge_run, response=response, criterion=cr, hit=True, rationale=reason) for cr in item.criteria.all()]
                )


def _library(world: DualRoleWorld) -> dict:
    """A FAQ entry, a case from C (running), a case from D on a response C holds, and a case from D on one it does not."""
    from annotation.knowledge.models import Case
    from annotation.knowledge.services.knowledge import (
        CaseContent,
        CaseSource,
        FaqContent,
        create_case,
        create_faq_entry,
        review_faq_entry,
        submit_faq_entry,
    )

    cast = world.cast
    faq = create_faq_entry(
        author=cast.author,
        dataset=world.version.dataset,
        content=FaqContent(question="Which criteria count implicit empathy?", answer="Those of warmth."),
    )
    submit_faq_entry(entry=faq, author=cast.author)
    review_faq_entry(entry=faq, reviewer=cast.reviewer, approve=True)

    def case(title, campaign, entry):
        criterion = entry.item.criteria.order_by("position").first()
        content = CaseContent(title=title, excerpt=f"{title} (excerpt)", hit=True, reasoning=f"{title} (reasoning)")
        source = CaseSource(Case.Source.ADJUDICATION, campaign, entry.response)
        return create_case(author=cast.reviewer, criterion=criterion, content=content, source=source, publish=True)

    return {
        "faq": faq,
        "hidden": [
            case(f"{CASE_SECRET} running", world.open_campaign, world.c_entries[0]),
            case(f"{CASE_SECRET} shared", world.closed_campaign, world.d_queued_hidden),
        ],
        "visible": case(LESSON_FROM_E, world.elsewhere, world.e_queued),
    }
