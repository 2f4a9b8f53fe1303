"""An admin builds a gold set or calibration set on a page (and through the API): free responses, verdicts settled in closed blind tests."""

import re

import pytest
from django.contrib.auth.models import Group

from annotation.models import Campaign, CampaignResponse, GoldLabel
from annotation.services.campaigns import create_calibration
from heartbench_core.models import ModelResponse, StaffExposure
from heartbench_core.roles import Role
from tests.annotation.manage.helpers import demo_campaign, gold_file, gold_set, qualify
from tests.factories import demo_version
from validation.models import GoldenLabel
from validation.services.golden import adjudicate, refresh_golden_labels

from .builders import blind_test as imported_test

pytestmark = pytest.mark.django_db

PAGE = "/validation/gold-builder/"
API = "/api/v1/validation/gold-builder/"


def blind_test(cast, **kwargs) -> Campaign:
    """A closed blind test of three experts on the demo items, its golden standard computed."""
    campaign = imported_test(cast, **kwargs)
    refresh_golden_labels(campaign=campaign)
    return campaign


def response(qid: str, model: str) -> ModelResponse:
    return ModelResponse.objects.get(question_id=qid, model__name=model)


def create(client, ids, *, name="Built gold", kind="gold_set", **extra):
    return client.post(PAGE, {"responses": [str(i) for i in ids], "name": name, "kind": kind, **DEFAULTS, **extra})


DEFAULTS = {"pass_threshold": "0.8", "max_attempts": "2", "cooldown_days": "1", "sitting_size": ""}


def unsettled_response(campaign) -> tuple[ModelResponse, list[GoldenLabel]]:
    """A response of the campaign with a criterion whose golden label is a mere majority, and those labels."""
    label = GoldenLabel.objects.filter(campaign=campaign, provenance=GoldenLabel.Provenance.MAJORITY).select_related(
        "campaign_response__response"
    )[0]
    cr = label.campaign_response
    return cr.response, list(GoldenLabel.objects.filter(campaign_response=cr, provenance=GoldenLabel.Provenance.MAJORITY))


def test_the_page_marks_each_response_free_or_held_and_offers_only_free_settled_ones(cast, client_for):
    blind_test(cast, constant=1)
    pool = gold_set(demo_version())
    page = client_for(cast.admin).get(PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    held = response("dm0005", "demo-model-aurora")
    free = response("dm0001", "demo-model-aurora")
    assert f'value="{free.pk}"' in html
    assert f'value="{held.pk}"' not in html
    assert f"gold set {pool.name}" in html
    listed = page.context["listing"]
    rows = {r.response_id: r for r in listed.rows}
    assert rows[held.pk].free is False and rows[free.pk].free is True
    assert rows[free.pk].missing_positions == []
    assert listed.page.paginator.count == 18


def test_the_filters_narrow_the_list_by_question_model_difficulty_ability_and_freedom(cast, client_for):
    blind_test(cast, constant=1)
    gold_set(demo_version())
    admin = client_for(cast.admin)
    by_question = admin.get(PAGE, {"question_id": "dm0005"}).context["listing"]
    assert {r.question_id for r in by_question.rows} == {"dm0005"} and len(by_question.rows) == 3
    by_model = admin.get(PAGE, {"model": "demo-model-cirrus"}).context["listing"]
    assert {r.model for r in by_model.rows} == {"demo-model-cirrus"}
    free_only = admin.get(PAGE, {"question_id": "dm0005", "free": "on"}).context["listing"]
    assert [r.model for r in free_only.rows] == ["demo-model-cirrus"]
    hard = admin.get(PAGE, {"difficulty": "hard"}).context["listing"]
    assert hard.rows and {r.difficulty for r in hard.rows} == {"hard"}
    ability = by_question.rows[0].abilities[0]
    by_ability = admin.get(PAGE, {"ability": ability}).context["listing"]
    assert by_ability.rows and all(ability in r.abilities for r in by_ability.rows)


def test_an_admin_creates_a_gold_set_from_unanimous_verdicts(cast, client_for):
    closed = blind_test(cast, constant=1)
    picks = [response("dm0001", "demo-model-aurora").pk, response("dm0001", "demo-model-cirrus").pk]
    answer = create(client_for(cast.admin), picks)
    built = Campaign.objects.get(name="Built gold")
    assert answer.status_code == 302 and answer.url == f"/work/manage/campaigns/{built.pk}/"
    assert built.kind == Campaign.Kind.GOLD_SET
    assert sorted(CampaignResponse.objects.filter(campaign=built, is_gold=True).values_list("response_id", flat=True)) == sorted(picks)
    expected = set(
        GoldenLabel.objects.filter(campaign=closed, campaign_response__response_id__in=picks).values_list(
            "campaign_response__response_id", "criterion_id", "hit"
        )
    )
    got = set(
        GoldLabel.objects.filter(campaign_response__campaign=built).values_list("campaign_response__response_id", "criterion_id", "hit")
    )
    assert got == expected and len(got) > 2
    # Whoever builds a gold set knows its answers.
    assert set(StaffExposure.objects.filter(user=cast.admin, response_id__in=picks).values_list("response_id", flat=True)) == set(picks)


def test_a_criterion_without_a_settled_verdict_is_named_and_refused_until_a_reviewer_decides_it(cast, client_for):
    closed = blind_test(cast, flip=0.3, seed=3)
    picked, majority = unsettled_response(closed)
    admin = client_for(cast.admin)
    row = next(r for r in admin.get(PAGE, {"question_id": picked.question_id}).context["listing"].rows if r.response_id == picked.pk)
    assert row.missing_positions == sorted(label.criterion.position + 1 for label in majority)
    refused = create(admin, [picked.pk])
    assert refused.status_code == 400
    assert "no settled verdict on criteria" in refused.content.decode()
    assert f"#{row.missing_positions[0]}" in refused.content.decode()
    assert not Campaign.objects.filter(name="Built gold").exists()
    for label in majority:
        adjudicate(
            reviewer=cast.reviewer,
            campaign_response=label.campaign_response,
            criterion=label.criterion,
            hit=not label.hit,
            cause="other",
            note=f"decided on {label.criterion.position}",
        )
    assert create(admin, [picked.pk], kind="calibration", name="Built calibration").status_code == 302
    built = Campaign.objects.get(name="Built calibration")
    assert built.kind == Campaign.Kind.CALIBRATION
    explanations = dict(GoldLabel.objects.filter(campaign_response__campaign=built).values_list("criterion_id", "explanation"))
    for label in majority:
        assert explanations[label.criterion_id] == f"decided on {label.criterion.position}"


def test_verdicts_of_a_blind_test_still_open_are_not_settled(cast, client_for):
    closed = blind_test(cast, constant=1)
    Campaign.objects.filter(pk=closed.pk).update(status=Campaign.Status.ACTIVE)
    pick = response("dm0001", "demo-model-aurora")
    row = next(r for r in client_for(cast.admin).get(PAGE, {"question_id": "dm0001"}).context["listing"].rows if r.response_id == pick.pk)
    assert row.settled == 0 and not row.pickable
    assert create(client_for(cast.admin), [pick.pk]).status_code == 400
    assert not Campaign.objects.filter(name="Built gold").exists()


def test_a_response_held_by_a_calibration_set_is_refused_with_the_set_named(cast, client_for):
    blind_test(cast, constant=1)
    version = demo_version()
    qualify(*cast.experts)
    create_calibration(name="Calibration A", dataset_name="demo", source=gold_file(version))
    held = response("dm0001", "demo-model-aurora")
    refused = create(client_for(cast.admin), [held.pk])
    assert refused.status_code == 400
    assert "Calibration A" in refused.content.decode()
    assert not Campaign.objects.filter(name="Built gold").exists()


def test_the_ticks_and_the_name_survive_a_refusal(cast, client_for):
    blind_test(cast, constant=1)
    free = response("dm0002", "demo-model-aurora").pk
    refused = create(client_for(cast.admin), [free], name="")
    assert refused.status_code == 400
    assert free in refused.context["picked"]
    html = refused.content.decode()
    assert re.search(rf'name="responses" value="{free}"[^>]* checked>', html)
    assert 'name="name"' in html and "This field is required." in html


def test_only_admins_reach_the_builder(cast, client_for):
    blind_test(cast, constant=1)
    for user in (cast.reviewer, cast.expert, cast.author):
        assert client_for(user).get(PAGE).status_code == 403
        assert client_for(user).get(API + "candidates/").status_code == 403


def test_an_admin_expert_of_an_open_campaign_on_the_dataset_sees_none_of_it(cast, client_for):
    blind_test(cast, constant=1)
    cast.admin.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    demo_campaign(cast, name="Live", experts=[cast.admin, *cast.experts[:2]], overlap=2)
    admin = client_for(cast.admin)
    page = admin.get(PAGE)
    assert page.status_code == 200
    assert page.context["listing"].rows == []
    assert "demo-model-aurora" not in page.content.decode()
    pick = response("dm0001", "demo-model-aurora")
    assert create(admin, [pick.pk], version=demo_version().pk).status_code == 403
    api = admin.get(API + "candidates/", {"version": demo_version().pk})
    assert api.status_code == 403
    refused = admin.post(
        API, {"version": demo_version().pk, "kind": "gold_set", "name": "x", "responses": [pick.pk]}, content_type="application/json"
    )
    assert refused.status_code == 403
    assert not Campaign.objects.filter(kind=Campaign.Kind.GOLD_SET).exists()
    assert not StaffExposure.objects.filter(user=cast.admin).exists()


def test_the_api_lists_candidates_and_creates_through_the_same_service(cast, client_for):
    closed = blind_test(cast, constant=1)
    gold_set(demo_version())
    api = client_for(cast.admin)
    listed = api.get(API + "candidates/", {"version": closed.version_id, "question_id": "dm0005"})
    assert listed.status_code == 200
    body = listed.json()
    assert body["count"] == 3
    by_model = {r["model"]: r for r in body["results"]}
    assert by_model["demo-model-aurora"]["free"] is False and by_model["demo-model-aurora"]["held_by"][0]["name"] == "Gold pool"
    assert by_model["demo-model-cirrus"]["free"] is True and by_model["demo-model-cirrus"]["missing_positions"] == []
    held = by_model["demo-model-aurora"]["response_id"]
    bad = api.post(
        API, {"version": closed.version_id, "kind": "gold_set", "name": "API gold", "responses": [held]}, content_type="application/json"
    )
    assert bad.status_code == 400
    assert "Gold pool" in bad.json()["errors"]["responses"][0]
    assert not Campaign.objects.filter(name="API gold").exists()
    made = api.post(
        API,
        {"version": closed.version_id, "kind": "gold_set", "name": "API gold", "responses": [by_model["demo-model-cirrus"]["response_id"]]},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["kind"] == "gold_set" and made.json()["responses"] == 1
    assert Campaign.objects.get(name="API gold").kind == Campaign.Kind.GOLD_SET


def test_the_page_and_the_api_filter_the_candidates_one_way(cast, client_for):
    blind_test(cast, constant=1)
    admin = client_for(cast.admin)
    page = admin.get(PAGE, {"difficulty": "extreme", "question_id": "dm0005"})
    assert page.status_code == 200 and {row.question_id for row in page.context["listing"].rows} == {"dm0005"}
    assert "Difficulty: invalid value “extreme”; choose one of: any, Hard, Normal, Unspecified." in page.content.decode()
    version = demo_version().pk
    listed = admin.get(API + "candidates/", {"version": version, "question_id": "dm0005", "free": "true"}).json()["results"]
    on_page = admin.get(PAGE, {"question_id": "dm0005", "free": "on"}).context["listing"].rows
    assert [r["response_id"] for r in listed] == [row.response_id for row in on_page]
    response = admin.get(API + "candidates/", {"version": version, "difficulty": "extreme", "free": "maybe"})
    assert response.status_code == 400 and sorted(response.json()) == ["difficulty", "free"]
