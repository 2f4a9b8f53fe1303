"""The API key lives only in the environment: it is sent to the endpoint, and never stored, shown back, logged, or put
in an error or a stored raw answer — even when the endpoint echoes it back."""

import io
import json
import logging

import pytest
from django.core import serializers
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.judging.models import EndpointRun
from heartbench_core.judging.services.endpoints import save_endpoint
from tests.fake_openai import Reply, alternating, platform_answer
from tests.runner import scenarios as s

pytestmark = pytest.mark.django_db

SECRET = "hbtest-SECRET-KEY-9f3a1c77"


def _everything_stored() -> str:
    from django.apps import apps

    out = []
    for model in apps.get_models():
        out.append(serializers.serialize("json", model._default_manager.all()))
    return "\n".join(out)


def test_the_key_is_used_but_never_stored_shown_logged_or_put_in_an_error(demo, fake, cast, client_for, monkeypatch, caplog):
    monkeypatch.setenv("HEARTBENCH_KEY_TEST_JUDGE", SECRET)
    save_endpoint(
        name="judge-a",
        base_url=fake.base_url,
        model="fake-judge",
        api_key_env="HEARTBENCH_KEY_TEST_JUDGE",
        max_retries=1,
        backoff_seconds=0.01,
    )

    def echoing(n):  # a judge whose reasons quote the key back
        return Reply(platform_answer(alternating(n), [f"key is {SECRET}"] * n))

    fake.behaviour = s.by_question(
        demo, {"dm0001": [s.echo(SECRET)], "dm0002": [echoing], "dm0003": [lambda n: Reply(f"no json, but {SECRET}")]}
    )
    caplog.set_level(logging.DEBUG)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command(
            "judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a", stdout=out, stderr=err, verbosity=2
        )
    # It was sent, as a bearer token, on every request.
    assert fake.headers and all({k.lower(): v for k, v in h.items()}.get("authorization") == f"Bearer {SECRET}" for h in fake.headers)
    shown = [out.getvalue(), err.getvalue(), str(failed.value), caplog.text]
    client = client_for(cast.admin)
    run = EndpointRun.objects.get()
    for url in (
        "/judging/",
        "/judging/endpoints/judge-a/",
        f"/judging/runs/{run.pk}/",
        "/api/v1/endpoints/judge-a/",
        "/api/v1/endpoint-runs/",
        f"/api/v1/endpoint-runs/{run.pk}/questions/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        shown.append(response.content.decode())
    shown.append(_everything_stored())
    assert "HEARTBENCH_KEY_TEST_JUDGE" in shown[-1]  # the variable's name is stored…
    assert all(SECRET not in text for text in shown)  # …its value nowhere
    assert "[redacted]" in shown[-1]
    questions = json.loads(client.get(f"/api/v1/endpoint-runs/{run.pk}/questions/").content)
    by_id = {q["question_id"]: q for q in questions}
    assert by_id["dm0001"]["problem"]["code"] == "http_error" and "[redacted]" in by_id["dm0001"]["problem"]["message"]


def test_a_missing_key_variable_fails_each_question_naming_the_variable_not_sending_anything(demo, fake, monkeypatch, capsys):
    monkeypatch.delenv("HEARTBENCH_KEY_TEST_JUDGE", raising=False)
    save_endpoint(name="judge-a", base_url=fake.base_url, model="fake-judge", api_key_env="HEARTBENCH_KEY_TEST_JUDGE")
    with pytest.raises(CommandError):
        call_command("judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a")
    out = capsys.readouterr().out
    assert "failed: dm0001 — the API key is missing: the environment variable HEARTBENCH_KEY_TEST_JUDGE" in out
    assert fake.requests == []


def test_a_key_pasted_where_the_variable_name_goes_is_refused(demo):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="not the key itself"):
        save_endpoint(name="judge-b", base_url="https://api.example.com/v1", model="m", api_key_env="sk-proj-abc123")
