"""API errors are JSON, 500s included, and a signed-in user without the role is refused (403) before the body is parsed."""

import logging

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("url", ["/api/v1/boom/", "/api/v1/plain-boom/"])
def test_an_unexpected_exception_on_an_api_url_is_a_json_500_without_a_traceback(cast, url, debug, caplog):
    client = Client(raise_request_exception=False)
    client.force_login(cast.admin)
    with override_settings(ROOT_URLCONF="tests.security.api_boom_urls", DEBUG=debug), caplog.at_level(logging.ERROR, "django.request"):
        response = client.get(url)
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body) == ["detail"] and "Server error" in body["detail"]
    assert b"Traceback" not in response.content and b"secret internals" not in response.content
    # The operators still get the traceback in the log.
    assert any(r.exc_info and "secret internals" in str(r.exc_info[1]) for r in caplog.records)


def test_the_test_client_still_raises_the_exception_of_an_api_view(cast):
    client = Client()
    client.force_login(cast.admin)
    with override_settings(ROOT_URLCONF="tests.security.api_boom_urls"), pytest.raises(RuntimeError):
        client.get("/api/v1/boom/")


def test_an_unknown_api_url_is_a_json_404(cast):
    client = Client()
    client.force_login(cast.admin)
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    assert Client().get("/no-such-page/")["Content-Type"].startswith("text/html")


IMPORT_ENDPOINTS = [
    "/api/v1/import/heartbench/",
    "/api/v1/import/responses/",
    "/api/v1/import/verdicts/",
    "/api/v1/validation/judgments/import/",
    "/api/v1/annotation/manage/calibrations/",
]


def _session_with_csrf(user) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/accounts/login/")
    return client, client.cookies["csrftoken"].value


@pytest.mark.parametrize("url", IMPORT_ENDPOINTS)
@pytest.mark.parametrize("content_type", ["application/json", "text/plain", "application/x-www-form-urlencoded"])
def test_a_signed_in_user_without_the_role_posting_the_wrong_content_type_gets_403_not_415(cast, url, content_type):
    client, token = _session_with_csrf(cast.expert)
    response = client.post(url, "a=1", content_type=content_type, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 403, response.content


def test_an_admin_posting_the_wrong_content_type_still_learns_it_is_unsupported(cast):
    client, token = _session_with_csrf(cast.admin)
    response = client.post("/api/v1/import/heartbench/", '{"a": 1}', content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 415


def test_a_session_post_without_the_csrf_token_is_still_refused(cast):
    client, _ = _session_with_csrf(cast.admin)
    response = client.post("/api/v1/import/heartbench/", {"dataset": "demo"})
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_a_multipart_upload_with_the_token_in_the_form_still_imports(cast):
    from tests.factories import DEMO_ITEMS

    client, token = _session_with_csrf(cast.admin)
    with open(DEMO_ITEMS, "rb") as handle:
        response = client.post("/api/v1/import/heartbench/", {"dataset": "demo", "file": handle, "csrfmiddlewaretoken": token})
    assert response.status_code == 201, response.content


def test_the_project_handler500_answers_json_under_api_and_a_page_elsewhere(rf):
    from django.urls import get_resolver

    handler = get_resolver().resolve_error_handler(500)
    api = handler(rf.get("/api/v1/versions/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json" and "Server error" in api.content.decode()
    page = handler(rf.get("/datasets/"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
