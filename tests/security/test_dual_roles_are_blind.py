"""A user who is expert and staff is blind in the open campaign they are an expert of, whatever their roles.

Each staff route of campaign C (open) is refused with the reason, or filtered, for users holding
the expert role with every combination of staff roles (and a superuser the campaign lists); the
same routes open once C closes. Everything else on C's dataset (a closed campaign D sharing C's
responses, the other models' runs and responses) is closed whole too: a list that left out only
C's responses would name, by its hole, the model a response is by and the items C sampled. Another
dataset stays open. Plain staff roles keep every route, as the permission matrix says.
"""

import pytest
from django.test import Client

from annotation.models import Campaign
from annotation.services.campaigns import set_campaign_status
from heartbench_core.models import JudgeRun
from heartbench_core.roles import Role, roles_of
from tests.security.dual_role_world import COMBINATIONS, build_dual_role_world

pytestmark = pytest.mark.django_db

REASON = "you are an expert in"


@pytest.fixture
def world(cast):
    return build_dual_role_world(cast)


def _routes(world):
    """(roles that may use it, method, path, body) of every staff route that shows C's responses."""
    c, label = world.open_campaign, world.version.label
    report = c.agreement_reports.first()
    entry, criterion = world.queued, world.queued.item.criteria.order_by("position").first()
    response = world.c_entries[0].response
    run = JudgeRun.objects.get(version=world.version, model=response.model)
    admin, reviewer, author = Role.ADMIN, Role.SENIOR_REVIEWER, Role.RUBRIC_AUTHOR
    return [
        ((admin,), "GET", f"/validation/campaigns/{c.pk}/", None),
        ((admin,), "GET", f"/validation/campaigns/{c.pk}/reports/{report.pk}/", None),
        ((admin,), "POST", f"/validation/campaigns/{c.pk}/compute/", {}),
        ((admin, reviewer), "GET", f"/validation/campaigns/{c.pk}/adjudication/", None),
        ((admin, reviewer), "GET", f"/validation/campaigns/{c.pk}/adjudication/{entry.pk}/{criterion.pk}/", None),
        ((admin,), "GET", f"/validation/campaigns/{c.pk}/export/judgments.csv", None),
        ((admin,), "GET", f"/validation/campaigns/{c.pk}/export/golden.jsonl", None),
        ((admin,), "GET", f"/validation/campaigns/{c.pk}/export/report.csv", None),
        ((admin,), "GET", f"/api/v1/validation/campaigns/{c.pk}/reports/", None),
        ((admin,), "POST", f"/api/v1/validation/campaigns/{c.pk}/reports/", {"wait": True, "resamples": 10}),
        ((admin,), "GET", f"/api/v1/validation/reports/{report.pk}/", None),
        ((admin,), "GET", f"/api/v1/validation/campaigns/{c.pk}/golden-labels/", None),
        ((admin, reviewer), "GET", f"/api/v1/validation/campaigns/{c.pk}/queue/", None),
        (
            (admin, reviewer),
            "POST",
            "/api/v1/validation/adjudications/",
            {"campaign_response_id": entry.pk, "criterion_id": criterion.pk, "hit": True, "cause": "rater_error", "note": "decided"},
        ),
        ((admin, author, reviewer), "GET", f"/api/v1/responses/{response.public_id}/", None),
        ((admin, author), "GET", f"/api/v1/judge-runs/{run.pk}/", None),
        ((admin, author), "GET", f"/api/v1/judge-runs/{run.pk}/verdicts/", None),
        ((admin, author), "GET", f"/api/v1/scores/?dataset=demo&model={response.model.name}&questions=true", None),
        ((admin, author), "GET", f"/datasets/demo/v/{label}/leaderboard/", None),
        ((admin, author), "GET", "/api/v1/scores/leaderboard/?dataset=demo", None),
        ((admin, author), "GET", f"/datasets/demo/v/{label}/leaderboard/{response.model.name}/", None),
    ]


def _send(client, method, path, body):
    if method == "GET":
        return client.get(path)
    if path.startswith("/api/"):
        return client.post(path, body, content_type="application/json")
    return client.post(path, body)


def _may_use(user, roles) -> bool:
    return bool(roles_of(user) & set(roles))


@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_every_staff_route_of_an_open_campaign_refuses_its_experts_whatever_their_roles(combination, world):
    user = world.users[combination]
    client = Client()
    client.force_login(user)
    tried = 0
    for roles, method, path, body in _routes(world):
        if not _may_use(user, roles):
            continue
        tried += 1
        response = _send(client, method, path, body)
        assert response.status_code == 403, f"{combination}: {method} {path} answered {response.status_code}"
        assert REASON in response.content.decode().lower(), f"{combination}: {method} {path} does not say why"
    assert tried >= 4


@pytest.mark.parametrize("combination", list(COMBINATIONS))
def test_the_same_routes_open_once_the_campaign_closes(combination, world):
    set_campaign_status(campaign=world.open_campaign, status=Campaign.Status.CLOSED)
    user = world.users[combination]
    client = Client()
    client.force_login(user)
    for roles, method, path, body in _routes(world):
        if not _may_use(user, roles):
            continue
        if "/adjudication/" in path and world.queued.assignments.filter(expert=user).exists():
            continue
        response = _send(client, method, path, body)
        assert response.status_code in (200, 201, 302), f"{combination}: {method} {path} answered {response.status_code}"


def test_plain_staff_roles_keep_every_route_of_the_open_campaign(world, cast):
    for user in (cast.admin, cast.author, cast.reviewer):
        client = Client()
        client.force_login(user)
        for roles, method, path, body in _routes(world):
            if method == "POST" or not _may_use(user, roles):
                continue
            response = _send(client, method, path, body)
            assert response.status_code == 200, f"{user.username}: {method} {path} answered {response.status_code}"


@pytest.mark.parametrize("combination", ["expert+admin", "expert+reviewer", "expert+author", "superuser"])
def test_the_responses_list_leaves_out_the_whole_dataset_of_the_open_campaign_never_a_hole(combination, world):
    client = Client()
    client.force_login(world.users[combination])
    question = world.c_entries[0].item.question_id
    # Every model's answer to the question is left out alike: which one C holds (or which items it sampled) is not told by a gap.
    assert client.get(f"/api/v1/responses/?question_id={question}&dataset=demo").json()["results"] == []
    everything = client.get("/api/v1/responses/?page_size=1000").json()["results"]
    assert everything and {r["dataset"] for r in everything} == {"demo-elsewhere"}
    elsewhere = client.get(f"/api/v1/responses/?question_id={question}").json()["results"]
    assert {(r["dataset"], r["model"]) for r in elsewhere} == {("demo-elsewhere", "demo-model-cirrus")}


def test_a_superuser_the_campaign_does_not_list_and_who_holds_no_work_in_it_sees_everything(world, cast):
    from tests.conftest import make_user

    root = make_user("root_operator", is_superuser=True)
    client = Client()
    client.force_login(root)
    question = world.c_entries[0].item.question_id
    listed = {r["model"] for r in client.get(f"/api/v1/responses/?question_id={question}").json()["results"]}
    assert listed == {"demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"}
    assert client.get(f"/validation/campaigns/{world.open_campaign.pk}/").status_code == 200


def test_an_expert_of_an_unrestricted_open_campaign_is_blind_in_it(world, cast):
    from tests.conftest import make_user

    c = world.open_campaign
    c.experts.clear()  # an unrestricted campaign admits every expert
    newcomer = make_user("new_reviewer_expert", Role.SENIOR_REVIEWER, Role.EXPERT)
    client = Client()
    client.force_login(newcomer)
    assert client.get(f"/validation/campaigns/{c.pk}/adjudication/").status_code == 403


def test_judge_runs_on_the_open_campaigns_dataset_are_left_out_whatever_their_model(world):
    client = Client()
    client.force_login(world.users["expert+author"])
    runs = {(r["dataset"], r["model"]) for r in client.get("/api/v1/judge-runs/").json()["results"]}
    assert runs == {("demo-elsewhere", "demo-model-cirrus")}


def test_a_closed_campaign_on_the_same_dataset_is_closed_whole(world):
    d = world.closed_campaign
    client = Client()
    client.force_login(world.users["expert+all"])
    criterion = world.d_queued_open.item.criteria.order_by("position").first()
    for path in (
        f"/validation/campaigns/{d.pk}/",
        f"/validation/campaigns/{d.pk}/adjudication/",
        f"/validation/campaigns/{d.pk}/adjudication/{world.d_queued_open.pk}/{criterion.pk}/",
        f"/validation/campaigns/{d.pk}/export/judgments.csv",
        f"/api/v1/validation/campaigns/{d.pk}/golden-labels/",
        f"/api/v1/validation/campaigns/{d.pk}/queue/",
        f"/api/v1/validation/campaigns/{d.pk}/reports/",
        f"/api/v1/validation/reports/{d.agreement_reports.first().pk}/",
        f"/validation/campaigns/{d.pk}/export/report.jsonl",
    ):
        response = client.get(path)
        body = response.content.decode().replace("&#x27;", "'")
        assert response.status_code == 403 and "an open campaign on this campaign's dataset" in body, path


def test_a_campaign_on_another_dataset_stays_open(world):
    e = world.elsewhere
    client = Client()
    client.force_login(world.users["expert+all"])
    criterion = world.e_queued.item.criteria.order_by("position").first()
    for path in (
        f"/validation/campaigns/{e.pk}/",
        f"/validation/campaigns/{e.pk}/adjudication/{world.e_queued.pk}/{criterion.pk}/",
        f"/api/v1/validation/campaigns/{e.pk}/golden-labels/",
        f"/api/v1/validation/reports/{e.agreement_reports.first().pk}/",
    ):
        assert client.get(path).status_code == 200, path
    export = b"".join(client.get(f"/validation/campaigns/{e.pk}/export/judgments.csv").streaming_content).decode()
    assert "demo-model-cirrus" in export


def test_the_agreement_index_names_the_campaigns_on_the_open_campaigns_dataset_without_a_way_in(world):
    client = Client()
    client.force_login(world.users["expert+admin"])
    html = client.get("/validation/").content.decode()
    c, d = world.open_campaign, world.closed_campaign
    assert "C open" in html and f"/validation/campaigns/{c.pk}/" not in html
    assert "D closed" in html and f"/validation/campaigns/{d.pk}/" not in html
    assert f"/validation/campaigns/{world.elsewhere.pk}/" in html


@pytest.mark.parametrize("combination", ["expert+admin", "expert+all", "superuser"])
def test_corrections_of_the_open_campaigns_raters_are_neither_listed_nor_decidable(combination, world):
    from annotation.models import CorrectionRequest

    correction = CorrectionRequest.objects.get(assignment__campaign_response__campaign=world.open_campaign)
    client = Client()
    client.force_login(world.users[combination])
    assert client.get("/api/v1/annotation/corrections/").json()["count"] == 0
    assert "OTHER-RATER" not in client.get("/work/corrections/").content.decode()
    refused = client.post(f"/work/corrections/{correction.pk}/decide/", {"decision": "refuse"})
    assert refused.status_code == 403 and REASON in refused.content.decode().lower()
    refused = client.post(f"/api/v1/annotation/corrections/{correction.pk}/decide/", {"accept": False}, content_type="application/json")
    assert refused.status_code == 403 and REASON in refused.content.decode().lower()
    correction.refresh_from_db()
    assert correction.status == CorrectionRequest.Status.PENDING
    set_campaign_status(campaign=world.open_campaign, status=Campaign.Status.CLOSED)
    client.force_login(type(world.users[combination]).objects.get(pk=world.users[combination].pk))
    assert client.get("/api/v1/annotation/corrections/").json()["count"] == 1
