"""An endpoint's API key comes from an environment variable the operator designated (ENDPOINT_KEY_PREFIX, by default
HEARTBENCH_KEY_, or ENDPOINT_KEY_VARIABLES): no admin can make the worker send SECRET_KEY or DATABASE_URL to a server
they control (issue 27, item 2). Refused where the name is given (page, API, command, service) naming the rule, and
again at each request, so an endpoint stored before the rule, or restored, sends nothing; the lists show it unusable."""

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.env import env_key_prefix, env_key_variables
from heartbench_core.judging.models import Endpoint, EndpointRun, RunQuestion
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.judging.services.llm import ChatClient, ChatError, EndpointConfig
from heartbench_core.judging.services.runs import Selection, execute_run, request_judge_run

pytestmark = pytest.mark.django_db

SERVER_SECRET = "hbtest-the-servers-own-secret-0b7e"
RULE = "must start with HEARTBENCH_KEY_ (ENDPOINT_KEY_PREFIX) or be listed in ENDPOINT_KEY_VARIABLES"


@pytest.fixture
def server_secrets(monkeypatch):
    """The server's own secrets, as a production process holds them."""
    monkeypatch.setenv("SECRET_KEY", SERVER_SECRET)
    monkeypatch.setenv("DATABASE_URL", f"postgres://app:{SERVER_SECRET}@db/heartbench")
    monkeypatch.setenv("HEARTBENCH_KEY_JUDGE", "hbtest-judge-key")


@pytest.mark.parametrize("variable", ["SECRET_KEY", "DATABASE_URL", "HOME", "HEARTBENCH_KEY_"])
def test_the_service_refuses_a_variable_the_operator_did_not_designate_naming_the_rule(fake, variable):
    with pytest.raises(ValidationError) as refused:
        save_endpoint(name="judge-x", base_url=fake.base_url, model="m", api_key_env=variable)
    assert refused.value.message_dict["api_key_env"] == [
        f"{variable} may not hold an endpoint's key: the variable's name {RULE}, "
        "so that no endpoint is sent another of the server's secrets"
    ]
    assert not Endpoint.objects.exists()


def test_the_page_the_api_and_the_command_refuse_it_too(cast, client_for, fake):
    client = client_for(cast.admin)
    form = {
        "name": "judge-x",
        "base_url": fake.base_url,
        "model": "m",
        "api_key_env": "SECRET_KEY",
        "temperature": "0",
        "max_tokens": "100",
        "concurrency": "1",
        "max_retries": "0",
        "backoff_seconds": "1",
        "timeout_seconds": "5",
    }
    page = client.post("/judging/endpoints/new/", form)
    assert page.status_code == 400 and RULE in page.content.decode()
    api = client.post(
        "/api/v1/endpoints/",
        {"name": "judge-x", "base_url": fake.base_url, "model": "m", "api_key_env": "DATABASE_URL"},
        content_type="application/json",
    )
    assert api.status_code == 400 and RULE in api.json()["errors"]["api_key_env"][0]
    with pytest.raises(CommandError, match="ENDPOINT_KEY_PREFIX"):
        call_command("add_endpoint", "judge-x", "--base-url", fake.base_url, "--model", "m", "--api-key-env", "SECRET_KEY")
    save_endpoint(name="judge-y", base_url=fake.base_url, model="m")
    patched = client.patch("/api/v1/endpoints/judge-y/", {"api_key_env": "SECRET_KEY"}, content_type="application/json")
    assert patched.status_code == 400 and Endpoint.objects.get().api_key_env == ""


def test_a_designated_variable_is_accepted_by_prefix_or_by_the_operators_list(fake, settings):
    assert save_endpoint(name="a", base_url=fake.base_url, model="m", api_key_env="HEARTBENCH_KEY_OPENAI").endpoint.api_key_env
    settings.ENDPOINT_KEY_VARIABLES = ["OPENAI_API_KEY"]
    assert save_endpoint(name="b", base_url=fake.base_url, model="m", api_key_env="OPENAI_API_KEY").endpoint.api_key_env
    settings.ENDPOINT_KEY_PREFIX = "LLM_"
    with pytest.raises(ValidationError, match="must start with LLM_"):
        save_endpoint(name="c", base_url=fake.base_url, model="m", api_key_env="HEARTBENCH_KEY_OPENAI")


def test_an_endpoint_stored_before_the_rule_sends_no_secret_and_shows_as_unusable(demo, fake, cast, client_for, server_secrets):
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge", api_key_env="HEARTBENCH_KEY_JUDGE", max_retries=1)
    run = request_judge_run(
        dataset_name="demo",
        model_name="demo-model-aurora",
        endpoint_name="judge-a",
        selection=Selection(questions=("dm0001",)),
        hold_as="test",
    ).run
    Endpoint.objects.filter(name="judge-a").update(api_key_env="SECRET_KEY")  # as a restore, or a row from before the rule
    outcome = execute_run(run)
    q = RunQuestion.objects.get(run=run)
    assert fake.requests == [] and outcome.failed == ["dm0001"]
    assert q.problem == {"code": "key_variable_not_allowed", "message": "", "variable": "SECRET_KEY", "prefix": "HEARTBENCH_KEY_"}
    client = client_for(cast.admin)
    shown = client.get(f"/api/v1/endpoint-runs/{run.pk}/questions/").json()[0]["why"]
    assert shown.startswith("SECRET_KEY may not hold an endpoint's key") and RULE in shown
    # The lists say it cannot be used, and why; a new run on it is refused naming the rule.
    index = client.get("/judging/").content.decode()
    assert "unusable" in index and RULE in index
    page = client.get("/judging/endpoints/judge-a/").content.decode()
    assert "unusable" in page and RULE in page and "is not set in this web process" not in page
    listed = client.get("/api/v1/endpoints/judge-a/").json()
    assert RULE in listed["refusals"][0] and listed["api_key_variable_set"] is False
    with pytest.raises(ValidationError, match="endpoint judge-a cannot be used: SECRET_KEY may not hold"):
        request_judge_run(dataset_name="demo", model_name="demo-model-borealis", endpoint_name="judge-a")
    assert EndpointRun.objects.count() == 1


def test_the_client_refuses_it_at_each_request_before_anything_is_sent(fake, server_secrets):
    for variable in ("SECRET_KEY", "DATABASE_URL"):
        client = ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m", api_key_env=variable))
        with pytest.raises(ChatError) as refused:
            client.complete([{"role": "user", "content": "hi"}])
        assert (refused.value.kind, refused.value.params["variable"], refused.value.requests) == ("key_variable_not_allowed", variable, 0)
    assert fake.requests == []
    ChatClient(EndpointConfig(name="x", base_url=fake.base_url, model="m", api_key_env="HEARTBENCH_KEY_JUDGE")).complete(
        [{"role": "user", "content": "hi"}]
    )
    assert [h.get("Authorization") or h.get("authorization") for h in fake.headers] == ["Bearer hbtest-judge-key"]


def test_the_operator_cannot_designate_the_platforms_own_secrets(monkeypatch):
    for prefix in ("SECRET", "DATABASE_", "", "1BAD"):
        monkeypatch.setenv("ENDPOINT_KEY_PREFIX", prefix)
        with pytest.raises(ImproperlyConfigured, match="ENDPOINT_KEY_PREFIX"):
            env_key_prefix("ENDPOINT_KEY_PREFIX", "HEARTBENCH_KEY_")
    monkeypatch.setenv("ENDPOINT_KEY_VARIABLES", "OPENAI_API_KEY,SECRET_KEY")
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY is the platform's own secret"):
        env_key_variables("ENDPOINT_KEY_VARIABLES")
    monkeypatch.setenv("ENDPOINT_KEY_VARIABLES", "OPENAI_API_KEY, ANTHROPIC_API_KEY")
    assert env_key_variables("ENDPOINT_KEY_VARIABLES") == ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
    monkeypatch.delenv("ENDPOINT_KEY_PREFIX")
    assert env_key_prefix("ENDPOINT_KEY_PREFIX", "HEARTBENCH_KEY_") == "HEARTBENCH_KEY_"
