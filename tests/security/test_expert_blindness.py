"""Blindness, tested as an attacker would: an expert crawls everything they can reach and guesses ids.

The world holds every secret an expert must never see: model names, a judge's verdicts and
rationales, another expert's judgments and username, a hidden gold check with its labels. The
expert then follows every link and form target from their pages, and requests every URL
pattern of the project with their own ids (and others' ids) substituted. No body, header or
error message may carry a secret; other experts' work answers 404.
"""

import json

import pytest

from annotation.models import Assignment, CampaignResponse, CorrectionRequest, GoldLabel
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import DraftEntry, request_correction, save_draft, submit_assignment
from heartbench_core.models import JudgeRun, JudgeVerdict, LanguageModel
from tests.factories import demo_responses, demo_version
from tests.security.permissions_table import SKIP_PREFIXES
from tests.security.urlwalk import crawl, every_get_url, response_text

MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]
JUDGE_SECRET = "JUDGE-RATIONALE-SECRET-7c1"
JUDGE_NAME = "judge-model-secret-x9"
OTHER_SECRET = "OTHER-EXPERT-RATIONALE-SECRET-4f2"
GOLD_SECRET = "GOLD-EXPLANATION-SECRET-93a"
CASE_SECRET = "CASE-FROM-RUNNING-WORK-SECRET-5b8"  # cases experts must not read: of running work, or drafts
VISIBLE_CASE = "A lesson anyone may read"
MINE = "My own rationale, long enough"


def _judge(assignment, text):
    entries = [DraftEntry(c.pk, f"{text} {c.position}", c.position % 2 == 0) for c in assignment.campaign_response.item.criteria.all()]
    save_draft(assignment=assignment, expert=assignment.expert, entries=entries)
    return submit_assignment(assignment=assignment, expert=assignment.expert)


@pytest.fixture
def world(cast):
    version = demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Blind test East",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
    ).campaign
    me, other, third = cast.experts
    crs = list(CampaignResponse.objects.filter(campaign=campaign).order_by("order_key"))
    # A hidden gold check, with labels, that I am given.
    gold = next(cr for cr in crs if cr.item.question_id == "dm0002")
    CampaignResponse.objects.filter(pk=gold.pk).update(is_gold=True)
    GoldLabel.objects.bulk_create(
        [GoldLabel(campaign_response=gold, criterion=c, hit=True, explanation=GOLD_SECRET) for c in gold.item.criteria.all()]
    )
    # A judge's verdicts on every response.
    for model in LanguageModel.objects.all():
        run = JudgeRun.objects.create(version=version, model=model, judge=JUDGE_NAME)
        for cr in [cr for cr in crs if cr.response.model_id == model.pk]:
            JudgeVerdict.objects.bulk_create(
                [
                    JudgeVerdict(run=run, response=cr.response, criterion=c, hit=False, rationale=JUDGE_SECRET)
                    for c in cr.item.criteria.all()
                ]
            )
    dm1 = [cr for cr in crs if cr.item.question_id == "dm0001"]
    # Response dm0001/a: all three judged (the discussion is open to me); dm0001/b: the others judged, not me.
    shared = [
        _judge(Assignment.objects.create(campaign_response=dm1[0], expert=e), OTHER_SECRET if e != me else MINE) for e in cast.experts
    ]
    others_only = [_judge(Assignment.objects.create(campaign_response=dm1[1], expert=e), OTHER_SECRET) for e in (other, third)]
    mine_draft = Assignment.objects.create(campaign_response=gold, expert=me)
    save_draft(assignment=mine_draft, expert=me, entries=[DraftEntry(gold.item.criteria.first().pk, MINE, True)])
    their_draft = Assignment.objects.create(campaign_response=gold, expert=other)
    save_draft(assignment=their_draft, expert=other, entries=[DraftEntry(gold.item.criteria.first().pk, OTHER_SECRET, False)])
    first = shared[0].campaign_response.item.criteria.order_by("position").first()
    request_correction(assignment=shared[0], expert=me, reason="mine", entries=[DraftEntry(first.pk, MINE + " again", False)])
    theirs_correction = request_correction(
        assignment=shared[1], expert=other, reason=OTHER_SECRET, entries=[DraftEntry(first.pk, OTHER_SECRET + " again", True)]
    )
    library = _library(cast, campaign, gold, dm1)
    return {
        "library": library,
        "me": me,
        "campaign": campaign,
        "mine": [shared[0], mine_draft],
        "theirs": [shared[1], shared[2], *others_only, their_draft],
        "their_correction": theirs_correction,
        "secrets": [
            *LanguageModel.objects.values_list("name", flat=True),
            JUDGE_SECRET,
            JUDGE_NAME,
            OTHER_SECRET,
            GOLD_SECRET,
            other.username,
            third.username,
            "is_gold",
            CASE_SECRET,
        ],
    }


def _library(cast, campaign, gold, dm1):
    """The knowledge library around the running campaign: what the expert may read, and cases of running work they may not."""
    from annotation.knowledge.models import Case, FaqEntry
    from annotation.knowledge.services.knowledge import (
        CaseContent,
        CaseSource,
        FaqContent,
        create_case,
        create_faq_entry,
        review_faq_entry,
        submit_faq_entry,
    )

    criterion = dm1[0].item.criteria.order_by("position").first()
    faq = create_faq_entry(
        author=cast.author,
        dataset=campaign.version.dataset,
        content=FaqContent(question="What counts as empathy?", answer="Naming the feeling counts.", criteria=[criterion.lineage_id]),
    )
    submit_faq_entry(entry=faq, author=cast.author)
    review_faq_entry(entry=faq, reviewer=cast.reviewer, approve=True)
    draft = FaqEntry.objects.create(dataset=campaign.version.dataset, question=f"{CASE_SECRET} draft", answer="x", author=cast.author)

    def case(title, entry=None, **extra):
        source = CaseSource(Case.Source.ADJUDICATION, campaign, entry.response) if entry else CaseSource()
        content = CaseContent(title=title, excerpt=f"{title} excerpt", hit=True, reasoning=f"{title} reasoning", **extra)
        return create_case(
            author=cast.reviewer,
            criterion=criterion if entry is None else entry.item.criteria.order_by("position").first(),
            content=content,
            source=source,
            publish=True,
        )

    visible = case(VISIBLE_CASE)
    running = case(f"{CASE_SECRET} running", dm1[0])  # a response the expert judged, in the campaign still running
    on_gold = case(f"{CASE_SECRET} gold", gold)  # the hidden gold check they were given
    return {"faq": faq, "draft": draft, "visible": visible, "hidden": [running, on_gold], "criterion": criterion}


def _leaks(text: str, secrets: list[str]) -> list[str]:
    lowered = text.lower()
    return [s for s in secrets if s.lower() in lowered]


@pytest.mark.django_db
def test_an_expert_crawling_every_reachable_page_and_endpoint_finds_no_secret(world, client_for):
    me = world["me"]
    client = client_for(me)
    crs = CampaignResponse.objects.filter(campaign=world["campaign"])
    values = {
        "public_id": [a.public_id for a in world["mine"]] + [a.public_id for a in world["theirs"]],
        "campaign_id": [str(world["campaign"].pk)],
        "criterion_id": [str(world["mine"][0].campaign_response.item.criteria.first().pk)],
        "correction_id": [str(world["their_correction"].pk), str(CorrectionRequest.objects.filter(assignment__expert=me).first().pk)],
        "pk": [str(cr.pk) for cr in crs[:3]] + ["1"],
        "id": [str(cr.pk) for cr in crs[:3]] + ["1"],
        "name": ["demo"],
        "label": [world["campaign"].version.label],
        "question_id": ["dm0001", "dm0002"],
        "kind": ["faq", "cases"],
    }
    library = world["library"]
    values["pk"] += [str(library["faq"].pk), str(library["draft"].pk), str(library["visible"].pk)] + [str(c.pk) for c in library["hidden"]]
    start = every_get_url(values, SKIP_PREFIXES) | {f"/api/v1/annotation/assignments/{a.public_id}/" for a in world["mine"]}
    # The library's lists, searches and the judging page's panel on each criterion, with words of the hidden cases.
    for word in ("CASE", "running", "lesson", "empathy"):
        start |= {f"/work/library/?q={word}", f"/work/library/?q={word}&kind=cases", f"/api/v1/annotation/library/search/?q={word}"}
        for a in world["mine"]:
            for c in a.campaign_response.item.criteria.all():
                start |= {f"/work/a/{a.public_id}/library/?criterion={c.pk}&q={word}", f"/work/a/{a.public_id}/library/?criterion={c.pk}"}
    start |= {"/work/library/?kind=cases", "/api/v1/annotation/library/cases/", "/api/v1/annotation/library/faq/"}
    for a in world["mine"]:
        for hidden in [*library["hidden"], library["draft"]]:
            start |= {f"/work/a/{a.public_id}/library/entry/?case={hidden.pk}", f"/work/a/{a.public_id}/library/entry/?faq={hidden.pk}"}
    reached = crawl(client, start, lambda text: _leaks(text, world["secrets"]))
    # The crawl really reached the expert's work (not only 403s).
    for a in world["mine"]:
        assert f"/work/a/{a.public_id}/" in reached
        assert f"/api/v1/annotation/assignments/{a.public_id}/" in reached
    assert f"/work/a/{world['mine'][0].public_id}/discussion/" in reached
    assert "/work/" in reached and "/api/v1/annotation/assignments/" in reached
    # …and the library, which it read without finding a case of running work.
    assert f"/work/library/faq/{library['faq'].pk}/" in reached and f"/work/library/cases/{library['visible'].pk}/" in reached
    assert f"/work/a/{world['mine'][0].public_id}/library/" in reached
    assert f"/api/v1/annotation/library/cases/{library['visible'].pk}/" in reached


def test_guessing_the_ids_of_other_experts_work_answers_404_everywhere(world, client_for):
    client = client_for(world["me"])
    for assignment in world["theirs"]:
        pid = assignment.public_id
        for url in (
            f"/work/a/{pid}/",
            f"/work/a/{pid}/discussion/",
            f"/work/a/{pid}/correction/",
            f"/api/v1/annotation/assignments/{pid}/",
            f"/api/v1/annotation/assignments/{pid}/discussion/",
            f"/api/v1/annotation/assignments/{pid}/corrections/",
        ):
            response = client.get(url)
            assert response.status_code == 404, url
            assert not _leaks(response_text(response), world["secrets"])
        for url in (
            f"/work/a/{pid}/draft/",
            f"/work/a/{pid}/submit/",
            f"/work/a/{pid}/problem/",
            f"/api/v1/annotation/assignments/{pid}/draft/",
        ):
            assert client.post(url, {"comment": "x"}).status_code == 404, url
    # A made-up id looks exactly like someone else's.
    assert client.get("/work/a/AAAAAAAAAAAAAAAA/").status_code == 404


def test_a_gold_check_looks_exactly_like_any_other_response(world, client_for):
    client = client_for(world["me"])
    gold, normal = world["mine"][1], world["mine"][0]
    for a in (gold, normal):
        page = response_text(client.get(f"/work/a/{a.public_id}/")).lower()
        api = json.dumps(client.get(f"/api/v1/annotation/assignments/{a.public_id}/").json()).lower()
        assert "gold" not in page and "gold" not in api
    keys = set(client.get(f"/api/v1/annotation/assignments/{gold.public_id}/").json())
    assert keys == set(client.get(f"/api/v1/annotation/assignments/{normal.public_id}/").json())


def test_responses_of_one_item_do_not_come_in_model_order(world, client_for, cast):
    """Take every response through "next": per item, the models' order is not the registry's order."""
    from annotation.services.assignment import assign_next_response

    expert = cast.experts[2]
    Assignment.objects.filter(expert=expert).delete()
    order: dict[str, list[str]] = {}
    while (a := assign_next_response(expert=expert, campaign=world["campaign"])) is not None:
        order.setdefault(a.campaign_response.item.question_id, []).append(a.campaign_response.response.model.name)
        _judge(a, "ordering check rationale")
    assert sum(len(v) for v in order.values()) >= 12
    assert any(models != sorted(models) for models in order.values() if len(models) > 1)
