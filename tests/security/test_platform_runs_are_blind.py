"""Runs made on the platform and the alignment page, as a user who is expert *and* staff in an open campaign: every run on
the campaign's dataset (whatever its model: which models the campaign holds is not told by a gap) and the dataset's
judge–expert alignment are refused with the reason, by page and API, whatever their roles; a run on another dataset stays
reachable; both open once the campaign closes."""

import pytest
from django.test import Client

from annotation.models import Campaign
from annotation.services.campaigns import set_campaign_status
from heartbench_core.judging.models import EndpointRun
from heartbench_core.roles import Role, roles_of
from tests.security.dual_role_world import COMBINATIONS, JUDGE_SECRET, build_dual_role_world

pytestmark = pytest.mark.django_db

REASON = "you are an expert in"


@pytest.fixture
def world(cast):
    return build_dual_role_world(cast, platform_runs=True)


def _hidden_routes(world):
    run = EndpointRun.objects.get(model__name="demo-model-aurora")
    other_model = EndpointRun.objects.get(version__dataset__name="demo", model__name="demo-model-cirrus")
    return [
        ("GET", f"/judging/runs/{other_model.pk}/", None),
        ("GET", f"/api/v1/endpoint-runs/{other_model.pk}/", None),
        ("GET", f"/judging/runs/{run.pk}/", None),
        ("POST", f"/judging/runs/{run.pk}/retry/", {}),
        ("POST", f"/judging/runs/{run.pk}/cancel/", {}),
        ("GET", f"/api/v1/endpoint-runs/{run.pk}/", None),
        ("GET", f"/api/v1/endpoint-runs/{run.pk}/questions/", None),
        ("POST", f"/api/v1/endpoint-runs/{run.pk}/retry-failed/", {}),
        ("POST", "/api/v1/endpoint-runs/", {"kind": "judge", "dataset": "demo", "model": "demo-model-aurora", "endpoint": "dual-judge"}),
        ("GET", "/validation/datasets/demo/alignment/", None),
        ("GET", "/api/v1/validation/datasets/demo/alignment/", None),
    ]


def _send(client, method, path, body):
    if method == "GET":
        return client.get(path)
    if path.startswith("/api/"):
        return client.post(path, body, content_type="application/json")
    return client.post(path, body)


ADMINS = [c for c, roles in COMBINATIONS.items() if Role.ADMIN in roles or c == "superuser"]


@pytest.mark.parametrize("combination", ADMINS)
def test_the_run_of_a_model_of_the_open_campaign_and_the_alignment_are_refused_with_the_reason(combination, world):
    client = Client()
    client.force_login(world.users[combination])
    assert Role.ADMIN in roles_of(world.users[combination])
    for method, path, body in _hidden_routes(world):
        response = _send(client, method, path, body)
        text = response.content.decode()
        assert response.status_code == 403, f"{combination}: {method} {path} answered {response.status_code}"
        assert REASON in text.lower() and JUDGE_SECRET not in text, f"{combination}: {method} {path}"
    listed = client.get("/api/v1/endpoint-runs/").json()
    assert [(r["dataset"], r["model"]) for r in listed["results"]] == [("demo-elsewhere", "demo-model-cirrus")]
    page = client.get("/judging/").content.decode()
    assert "demo-elsewhere" in page and "demo-model-aurora" not in page
    open_run = EndpointRun.objects.get(version__dataset__name="demo-elsewhere")
    assert client.get(f"/judging/runs/{open_run.pk}/").status_code == 200


@pytest.mark.parametrize("combination", ADMINS)
def test_they_open_once_the_campaign_closes(combination, world):
    set_campaign_status(campaign=world.open_campaign, status=Campaign.Status.CLOSED)
    client = Client()
    client.force_login(world.users[combination])
    for method, path, _body in _hidden_routes(world):
        if method == "GET":
            assert client.get(path).status_code == 200, path


def test_plain_admins_reach_them(world, cast):
    client = Client()
    client.force_login(cast.admin)
    for method, path, _body in _hidden_routes(world):
        if method == "GET":
            assert client.get(path).status_code == 200, path
