"""No password, token or session id appears in an error page or a log line."""

import io
import logging

import pytest
from django.test import override_settings

from heartbench_core.redaction import RedactSecretsFilter

PASSWORD = "hunter2-very-secret-pw"
TOKEN = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"
SECRETS = (PASSWORD, TOKEN)


def post_boom(client):
    client.raise_request_exception = False
    return client.post(
        "/boom/",
        {"username": "erin", "password": PASSWORD, "api_token": TOKEN, "note": "harmless"},
        HTTP_AUTHORIZATION=f"Token {TOKEN}",
    )


@pytest.fixture
def console_output():
    """What the project's configured console handler writes, as text."""
    handlers = [h for h in logging.getLogger().handlers if any(isinstance(f, RedactSecretsFilter) for f in h.filters)]
    assert handlers, "the root logger has no redacting handler: check LOGGING in settings"
    buffer = io.StringIO()
    old = [h.setStream(buffer) for h in handlers]
    yield buffer
    for h, stream in zip(handlers, old):
        h.setStream(stream)


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.security.boom_urls", DEBUG=True)
def test_the_debug_error_page_hides_posted_passwords_tokens_and_the_authorization_header(client):
    response = post_boom(client)
    assert response.status_code == 500
    page = response.content.decode()
    assert "harmless" in page  # the page does show the request: it is the filter that hides secrets
    for secret in SECRETS:
        assert secret not in page


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.security.boom_urls", DEBUG=False)
def test_the_production_error_page_shows_nothing_of_the_request(client):
    response = post_boom(client)
    assert response.status_code == 500
    page = response.content.decode()
    assert "harmless" not in page
    for secret in SECRETS:
        assert secret not in page


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.security.boom_urls", DEBUG=False)
def test_the_logged_error_and_its_traceback_carry_no_secret(client, console_output):
    post_boom(client)
    logged = console_output.getvalue()
    assert "Internal Server Error: /boom/" in logged
    assert "RuntimeError: could not handle" in logged  # the traceback was written
    for secret in SECRETS:
        assert secret not in logged


@pytest.mark.django_db
def test_a_failed_login_logs_no_password(client, cast, console_output):
    logging.getLogger("heartbench").warning("login failed for %s with password=%s", "erin", PASSWORD)
    client.post("/accounts/login/", {"username": "erin_expert1", "password": PASSWORD})
    assert "password=********" in console_output.getvalue()
    assert PASSWORD not in console_output.getvalue()
