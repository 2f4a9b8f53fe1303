"""The judging pages and the API do what the commands do: endpoints, template revisions, runs started, followed,
cancelled and retried; admins only, errors named by field, never a 500."""

import json

import pytest

from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplate, RunQuestion
from heartbench_core.judging.services.runs import claim_run, execute_run
from tests.runner import scenarios as s

pytestmark = pytest.mark.django_db


def test_an_admin_adds_and_changes_an_endpoint_on_its_page(cast, client_for, fake):
    client = client_for(cast.admin)
    assert client.get("/judging/").status_code == 200
    form = {
        "name": "judge-b",
        "base_url": fake.base_url,
        "model": "fake-judge-2",
        "api_key_env": "HEARTBENCH_KEY_JUDGE",
        "temperature": "0",
        "max_tokens": "2048",
        "concurrency": "8",
        "max_retries": "2",
        "backoff_seconds": "1",
        "timeout_seconds": "30",
        "currency": "USD",
    }
    response = client.post("/judging/endpoints/new/", form)
    assert response.status_code == 302 and response["Location"] == "/judging/endpoints/judge-b/"
    endpoint = Endpoint.objects.get(name="judge-b")
    assert (endpoint.concurrency, endpoint.api_key_env, endpoint.created_by) == (8, "HEARTBENCH_KEY_JUDGE", cast.admin)
    page = client.get("/judging/endpoints/judge-b/").content.decode()
    assert "HEARTBENCH_KEY_JUDGE" in page and "key missing" in page
    bad = client.post("/judging/endpoints/judge-b/", {**form, "concurrency": "500", "api_key_env": "sk-live abc"})
    assert bad.status_code == 400
    text = bad.content.decode()
    assert "Concurrency: must be a number from 1 to 64" in text and "not the key itself" in text
    endpoint.refresh_from_db()
    assert endpoint.concurrency == 8
    assert client.post("/judging/endpoints/new/", form).status_code == 400  # the name exists


def test_a_template_revision_is_recorded_with_its_note_and_a_bad_one_is_refused_naming_the_placeholder(cast, client_for):
    client = client_for(cast.admin)
    page = client.get("/judging/templates/heartbench-zh/")
    assert page.status_code == 200 and "r1" in page.content.decode()
    bad = client.post("/judging/templates/heartbench-zh/", {"system": "", "user": "只有 $dialogue 和 $model", "change_note": "x"})
    assert bad.status_code == 400 and "$response" in bad.content.decode() and "$model" in bad.content.decode()
    ok = client.post(
        "/judging/templates/heartbench-zh/",
        {
            "system": "你是评估员。",
            "user": "对话 $dialogue\n回复 $response\n评分项 $criteria\n共 $count 项",
            "change_note": "shorter prompt",
        },
    )
    assert ok.status_code == 302
    template = JudgeTemplate.objects.get(name="heartbench-zh")
    newest = template.revisions.order_by("-revision").first()
    assert (newest.revision, newest.change_note, newest.created_by) == (2, "shorter prompt", cast.admin)
    assert client.get("/judging/templates/heartbench-zh/r2/").status_code == 200
    created = client.post(
        "/judging/templates/new/", {"name": "terse", "system": "", "user": "$dialogue $response $criteria $count", "change_note": "first"}
    )
    assert created.status_code == 302 and JudgeTemplate.objects.filter(name="terse").exists()


def test_a_run_started_on_the_page_is_followed_cancelled_and_retried(
    cast, client_for, demo, fake, judge_endpoint, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: sent.append(args[0]))
    client = client_for(cast.admin)
    form = {
        "kind": "judge",
        "dataset": "demo",
        "model": "demo-model-borealis",
        "endpoint": "judge-a",
        "template": "",
        "questions": "dm0001,dm0002,dm0003",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/judging/runs/new/", form)
    run = EndpointRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/judging/runs/{run.pk}/" and sent == [run.pk]
    page = client.get(f"/judging/runs/{run.pk}/").content.decode()
    assert "every 2s" in page and "3 remaining" in page
    # A worker takes it; one question cannot be read.
    fake.behaviour = s.by_question(demo, {"dm0002": [s.wrong_length]})
    execute_run(claim_run(run_id=run.pk, holder="w"))
    page = client.get(f"/judging/runs/{run.pk}/").content.decode()
    assert "dm0002" in page and "the answer gives" in page and "every 2s" not in page
    assert "estimated cost" in page.lower() and "USD" in page
    partial = client.get(f"/judging/runs/{run.pk}/?part=progress", HTTP_HX_REQUEST="true")
    assert partial.status_code == 200 and "<h1" not in partial.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/judging/runs/{run.pk}/retry/").status_code == 302
    assert RunQuestion.objects.get(run=run, item__question_id="dm0002").status == "pending"
    assert client.post(f"/judging/runs/{run.pk}/cancel/").status_code == 302
    run.refresh_from_db()
    assert run.status == "cancelled"
    bad = client.post("/judging/runs/new/", {**form, "questions": "dm0001,zzz", "run": "other"})
    assert bad.status_code == 400 and "zzz" in bad.content.decode()


def test_the_api_creates_an_endpoint_a_revision_and_a_run_and_reports_its_questions(
    cast, client_for, demo, fake, judge_endpoint, monkeypatch
):
    monkeypatch.setattr("django_q.tasks.async_task", lambda *a, **k: None)
    client = client_for(cast.admin)
    created = client.post(
        "/api/v1/endpoints/",
        {"name": "api-judge", "base_url": fake.base_url, "model": "m-1", "api_key_env": "HEARTBENCH_KEY_NO_SUCH_VAR"},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["api_key_variable_set"] is False and "api_key" not in {
        k for k in created.json() if k != "api_key_env" and k != "api_key_variable_set"
    }
    patched = client.patch("/api/v1/endpoints/api-judge/", {"concurrency": 2}, content_type="application/json")
    assert patched.status_code == 200 and patched.json()["concurrency"] == 2
    bad = client.patch("/api/v1/endpoints/api-judge/", {"base_url": "ftp://x"}, content_type="application/json")
    assert bad.status_code == 400 and "base_url" in json.dumps(bad.json())
    revision = client.post(
        "/api/v1/judge-templates/heartbench-zh/revisions/",
        {"user": "$dialogue $response $criteria $count", "change_note": "minimal"},
        content_type="application/json",
    )
    assert revision.status_code == 201 and revision.json()["revision"] == 2
    run = client.post(
        "/api/v1/endpoint-runs/",
        {
            "kind": "judge",
            "dataset": "demo",
            "model": "demo-model-cirrus",
            "endpoint": "judge-a",
            "template": "heartbench-zh",
            "questions": ["dm0004"],
        },
        content_type="application/json",
    )
    assert run.status_code == 201, run.content
    body = run.json()
    assert (body["template"], body["template_revision"], body["run"], body["judge"], body["total"]) == (
        "heartbench-zh",
        2,
        "heartbench-zh-r2",
        "fake-judge-1",
        1,
    )
    fake.behaviour = s.by_question(demo, {"dm0004": [s.wrong_length]})
    execute_run(claim_run(run_id=body["id"], holder="w"))
    detail = client.get(f"/api/v1/endpoint-runs/{body['id']}/").json()
    assert (detail["status"], detail["failed"], detail["done"]) == ("finished", 1, 0)
    questions = client.get(f"/api/v1/endpoint-runs/{body['id']}/questions/?status=failed").json()
    assert (
        questions[0]["question_id"] == "dm0004" and questions[0]["problem"]["code"] == "wrong_length" and len(questions[0]["outputs"]) == 3
    )
    again = client.post(f"/api/v1/endpoint-runs/{body['id']}/retry-failed/")
    assert again.status_code == 200 and again.json()["remaining"] == 1
    again = client.post(f"/api/v1/endpoint-runs/{body['id']}/retry-failed/")
    assert again.status_code == 400
    resumed = client.post(
        "/api/v1/endpoint-runs/",
        {"kind": "judge", "dataset": "demo", "model": "demo-model-cirrus", "endpoint": "judge-a", "run": "heartbench-zh-r2"},
        content_type="application/json",
    )
    assert resumed.status_code == 200 and resumed.json()["created"] is False and resumed.json()["added"] == 5
    listed = client.get("/api/v1/endpoint-runs/?kind=judge").json()
    assert listed["count"] == 1


def test_judging_is_for_admins_only(cast, client_for, demo, judge_endpoint):
    for user in (cast.author, cast.reviewer, cast.expert):
        client = client_for(user)
        assert client.get("/judging/").status_code == 403
        assert client.get("/api/v1/endpoints/").status_code == 403
        assert client.get("/api/v1/endpoint-runs/").status_code == 403
