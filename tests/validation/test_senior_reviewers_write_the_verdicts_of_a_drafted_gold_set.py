"""A gold set or calibration set drafted from free responses: senior reviewers write its verdicts and explanations, an admin finalises it."""

import re

import pytest
from django.contrib.auth.models import Group

from annotation.models import Campaign, GoldLabel
from heartbench_core.models import Criterion, ModelResponse, StaffExposure
from heartbench_core.roles import Role
from tests.annotation.manage.helpers import demo_campaign, gold_set
from tests.factories import demo_responses, demo_version
from validation.models import GoldDraft

pytestmark = pytest.mark.django_db

BUILDER = "/validation/gold-builder/"
CALIBRATION = {"pass_threshold": "0.8", "max_attempts": "2", "cooldown_days": "1", "sitting_size": ""}


@pytest.fixture
def version(db):
    v = demo_version()
    demo_responses()
    return v


def response(qid: str, model: str) -> ModelResponse:
    return ModelResponse.objects.get(question_id=qid, model__name=model)


def criteria(qid: str) -> list[Criterion]:
    return list(Criterion.objects.filter(item__question_id=qid).order_by("position"))


def start(client, picks, *, name="Drafted gold", kind="gold_set"):
    return client.post(BUILDER, {"responses": [str(p.pk) for p in picks], "name": name, "kind": kind, "source": "reviewers", **CALIBRATION})


def write(client, draft, picked, verdicts):
    """verdicts: {criterion: (hit, explanation)}."""
    data = {}
    for c, (hit, explanation) in verdicts.items():
        data[f"hit_{c.pk}"] = "1" if hit else "0"
        data[f"explanation_{c.pk}"] = explanation
    return client.post(f"/validation/gold-drafts/{draft.pk}/responses/{picked.pk}/", data)


def finalise(client, draft):
    return client.post(f"/validation/gold-drafts/{draft.pk}/finalise/")


def test_reviewers_write_every_verdict_and_the_admin_finalises_a_calibration_set(cast, client_for, version):
    picked = [response("dm0001", "demo-model-aurora"), response("dm0003", "demo-model-cirrus")]
    started = start(client_for(cast.admin), picked, name="Drafted calibration", kind="calibration")
    draft = GoldDraft.objects.get(name="Drafted calibration")
    assert started.status_code == 302 and started.url == f"/validation/gold-drafts/{draft.pk}/"
    assert not Campaign.objects.filter(name="Drafted calibration").exists()

    reviewer = client_for(cast.reviewer)
    page = reviewer.get(f"/validation/gold-drafts/{draft.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "dm0001" in html and "dm0003" in html
    assert "demo-model" not in html  # the reviewers judge the text, not the model
    assert "Drafted calibration" in reviewer.get("/validation/gold-drafts/").content.decode()

    first, second = criteria("dm0001"), criteria("dm0003")
    assert write(reviewer, draft, picked[0], {c: (c.position % 2 == 0, f"why {c.position}") for c in first}).status_code == 302
    assert write(reviewer, draft, picked[1], {c: (True, f"because {c.position}") for c in second[:-1]}).status_code == 302

    admin = client_for(cast.admin)
    refused = finalise(admin, draft)
    assert refused.status_code == 400
    assert f"dm0003/demo-model-cirrus has no written verdict on criteria #{len(second)}" in refused.content.decode()
    assert not Campaign.objects.filter(name="Drafted calibration").exists()

    assert write(client_for(cast.reviewers[1]), draft, picked[1], {second[-1]: (False, "the last one")}).status_code == 302
    done = finalise(client_for(cast.admin), draft)
    built = Campaign.objects.get(name="Drafted calibration")
    assert done.status_code == 302 and done.url == f"/work/manage/campaigns/{built.pk}/"
    assert built.kind == Campaign.Kind.CALIBRATION
    labels = {
        (cr, c): (hit, expl)
        for cr, c, hit, expl in GoldLabel.objects.filter(campaign_response__campaign=built).values_list(
            "campaign_response__response_id", "criterion_id", "hit", "explanation"
        )
    }
    assert len(labels) == len(first) + len(second)
    assert labels[(picked[0].pk, first[0].pk)] == (True, "why 0")
    assert labels[(picked[1].pk, second[-1].pk)] == (False, "the last one")
    draft.refresh_from_db()
    assert draft.campaign == built
    # Whoever wrote a gold verdict never meets that response blind.
    assert StaffExposure.objects.filter(user=cast.reviewer, response=picked[0]).exists()
    assert StaffExposure.objects.filter(user=cast.reviewers[1], response=picked[1]).exists()


def test_a_verdict_without_an_explanation_is_refused_and_what_was_typed_stays(cast, client_for, version):
    picked = response("dm0002", "demo-model-borealis")
    start(client_for(cast.admin), [picked])
    draft = GoldDraft.objects.get()
    first, second = criteria("dm0002")[:2]
    refused = write(client_for(cast.reviewer), draft, picked, {first: (True, "kept text"), second: (False, "  ")})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "write the explanation experts read when they miss this criterion" in html
    assert "kept text</textarea>" in html
    assert re.search(rf'name="hit_{second.pk}" value="0" checked', html)
    assert not draft.verdicts.exists()


def test_only_free_responses_start_a_draft_and_one_taken_since_is_refused_at_finalising(cast, client_for, version):
    gold_set(version)
    admin = client_for(cast.admin)
    held = response("dm0005", "demo-model-aurora")
    assert start(admin, [held]).status_code == 400
    assert not GoldDraft.objects.exists()
    later = response("dm0004", "demo-model-aurora")
    start(admin, [later])
    draft = GoldDraft.objects.get()
    write(client_for(cast.reviewer), draft, later, dict.fromkeys(criteria("dm0004"), (True, "fine")))
    gold_set(version, name="Another pool", picks=[("dm0004", "demo-model-aurora")])
    refused = finalise(client_for(cast.admin), draft)
    assert refused.status_code == 400 and "Another pool" in refused.content.decode()
    assert not Campaign.objects.filter(name="Drafted gold").exists()


def test_who_may_write_and_who_may_finalise(cast, client_for, version):
    picked = response("dm0001", "demo-model-borealis")
    start(client_for(cast.admin), [picked])
    draft = GoldDraft.objects.get()
    for user in (cast.expert, cast.author, cast.outsider):
        assert client_for(user).get(f"/validation/gold-drafts/{draft.pk}/").status_code == 403
        assert write(client_for(user), draft, picked, {criteria("dm0001")[0]: (True, "x")}).status_code == 403
    assert finalise(client_for(cast.reviewer), draft).status_code == 403
    assert not draft.verdicts.exists()


def test_a_reviewer_expert_of_an_open_campaign_on_the_dataset_cannot_open_the_draft(cast, client_for, version):
    picked = response("dm0001", "demo-model-borealis")
    start(client_for(cast.admin), [picked])
    draft = GoldDraft.objects.get()
    cast.reviewer.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    demo_campaign(cast, name="Live", experts=[cast.reviewer, *cast.experts[:2]], overlap=2)
    reviewer = client_for(cast.reviewer)
    assert reviewer.get(f"/validation/gold-drafts/{draft.pk}/").status_code == 403
    assert "Drafted gold" not in reviewer.get("/validation/gold-drafts/").content.decode()
    assert write(reviewer, draft, picked, {criteria("dm0001")[0]: (True, "x")}).status_code == 403
    assert not draft.verdicts.exists()


def test_the_api_drafts_writes_and_finalises_through_the_same_services(cast, client_for, version):
    API = "/api/v1/validation/gold-drafts/"
    picked = response("dm0001", "demo-model-cirrus")
    made = client_for(cast.admin).post(
        API, {"version": version.pk, "kind": "gold_set", "name": "API draft", "responses": [picked.pk]}, content_type="application/json"
    )
    assert made.status_code == 201, made.content
    draft_id = made.json()["id"]
    assert made.json()["campaign"] is None
    reviewer = client_for(cast.reviewer)
    detail = reviewer.get(f"{API}{draft_id}/").json()
    sheet = detail["responses"][0]
    assert sheet["question_id"] == "dm0001" and "model" not in sheet
    assert all(c["hit"] is None for c in sheet["criteria"])
    blank = reviewer.post(
        f"{API}{draft_id}/verdicts/",
        {"response": picked.pk, "verdicts": [{"criterion": sheet["criteria"][0]["pk"], "hit": True, "explanation": ""}]},
        content_type="application/json",
    )
    assert blank.status_code == 400
    saved = reviewer.post(
        f"{API}{draft_id}/verdicts/",
        {"response": picked.pk, "verdicts": [{"criterion": c["pk"], "hit": False, "explanation": "no"} for c in sheet["criteria"]]},
        content_type="application/json",
    )
    assert saved.status_code == 200 and saved.json() == {"saved": len(sheet["criteria"])}
    assert reviewer.post(f"{API}{draft_id}/finalise/").status_code == 403
    done = client_for(cast.admin).post(f"{API}{draft_id}/finalise/")
    assert done.status_code == 201 and done.json()["kind"] == "gold_set"
    assert GoldLabel.objects.filter(campaign_response__campaign__name="API draft", hit=False, explanation="no").count() == len(
        sheet["criteria"]
    )
