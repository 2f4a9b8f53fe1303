"""Every export answers a pipeline's API token, and refuses an API client with 401/403 JSON, never the login page; browsers still go to sign in."""

import re

import pytest
from django.urls import URLResolver, get_resolver

from heartbench_core.services.api_tokens import issue_token, revoke_token
from tests.validation.builders import blind_test
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db

# A page URL that serves a file: its route says so (export, .csv, .jsonl) or it is listed here.
EXPORT_ROUTE = re.compile(r"export|\.csv|\.jsonl|\.json\b|download")
EXPORTS_BY_QUERY = {"rubrics:audit"}  # ?format=csv


def _page_routes(patterns=None, prefix="", namespace=""):
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            inner = f"{namespace}{p.namespace}:" if p.namespace else namespace
            yield from _page_routes(p.url_patterns, prefix + str(p.pattern), inner)
        elif not prefix.startswith("api/"):
            yield prefix + str(p.pattern), f"{namespace}{p.name}", p.callback


def test_every_export_route_takes_tokens():
    exports = {name: view for route, name, view in _page_routes() if EXPORT_ROUTE.search(route) or name in EXPORTS_BY_QUERY}
    assert set(exports) >= {"validation:export", "annotation:campaign_payments", "annotation:library_export", "rubrics:audit"}
    assert {name for name, view in exports.items() if not getattr(view, "accepts_tokens", False)} == set()


@pytest.fixture
def exports(cast):
    campaign = blind_test(cast)
    create_agreement_report(campaign=campaign, resamples=10)
    urls = [
        f"/validation/campaigns/{campaign.pk}/export/{what}.{fmt}" for what in ("judgments", "golden", "report") for fmt in ("csv", "jsonl")
    ]
    return [*urls, f"/work/manage/campaigns/{campaign.pk}/payments.csv", "/work/library/export.jsonl", "/rubrics/audit/?format=csv"]


def test_an_admin_s_token_downloads_every_export(cast, client, exports):
    token = issue_token(user=cast.admin, name="pipeline").text
    for url in exports:
        response = client.get(url, HTTP_AUTHORIZATION=f"Token {token}")
        assert response.status_code == 200, (url, response.status_code)
        assert response["Content-Disposition"].startswith("attachment"), url
    assert "_auth_user_id" not in client.session  # the token signed in that request only


def test_an_api_client_is_refused_in_json_and_a_browser_goes_to_sign_in(cast, client, exports):
    revoked = issue_token(user=cast.admin, name="old")
    revoke_token(token=revoked.token, by=cast.admin)
    expert = issue_token(user=cast.expert, name="expert").text
    for url in exports:
        for headers, status in (
            ({"HTTP_AUTHORIZATION": "Token not-a-token"}, 401),
            ({"HTTP_AUTHORIZATION": f"Token {revoked.text}"}, 401),
            ({"HTTP_AUTHORIZATION": "Basic YWRtaW46eA=="}, 401),
            ({"HTTP_ACCEPT": "application/json"}, 401),
            ({"HTTP_AUTHORIZATION": f"Token {expert}"}, 403),
        ):
            response = client.get(url, **headers)
            assert response.status_code == status, (url, headers, response.status_code)
            assert response["Content-Type"].startswith("application/json") and response.json()["detail"], (url, headers)
        browser = client.get(url)
        assert browser.status_code == 302 and browser["Location"].startswith("/accounts/login/"), url
    assert "revoked" in client.get(exports[0], HTTP_AUTHORIZATION=f"Token {revoked.text}").json()["detail"]


def test_a_signed_in_browser_still_downloads_without_a_token(cast, client_for, exports):
    browser = client_for(cast.admin)
    assert all(browser.get(url).status_code == 200 for url in exports)
