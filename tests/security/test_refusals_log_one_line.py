"""A refusal (403) logs one line, not a traceback per request; a server error still logs its traceback."""

import io
import logging

import pytest
from django.test import Client, override_settings

from heartbench_core.redaction import RedactSecretsFilter

pytestmark = pytest.mark.django_db


@pytest.fixture
def console():
    """What the project's configured console handler writes, as text."""
    handlers = [h for h in logging.getLogger().handlers if any(isinstance(f, RedactSecretsFilter) for f in h.filters)]
    assert handlers, "no console handler: check LOGGING in settings"
    buffer = io.StringIO()
    old = [h.setStream(buffer) for h in handlers]
    yield buffer
    for h, stream in zip(handlers, old):
        h.setStream(stream)


def test_a_page_refused_to_a_user_without_the_role_logs_one_line_without_a_traceback(cast, console):
    client = Client()
    client.force_login(cast.expert)
    assert client.get("/rubrics/").status_code == 403
    assert client.get("/datasets/").status_code == 403
    logged = console.getvalue()
    assert "Forbidden (Permission denied): /rubrics/" in logged
    assert "Traceback" not in logged


def test_a_server_error_on_a_page_still_logs_its_traceback(cast, console):
    client = Client(raise_request_exception=False)
    with override_settings(ROOT_URLCONF="tests.security.boom_urls", DEBUG=False):
        assert client.get("/boom/").status_code == 500
    assert "Traceback" in console.getvalue()
