"""A NUL character in a URL path or query parameter is a 400 naming where, never PostgreSQL's 500."""

import pytest
from django.test import Client

from tests.factories import demo_version

pytestmark = pytest.mark.django_db

API = [
    ("/api/v1/versions/?dataset=%00", "dataset"),
    ("/api/v1/items/?question_id=a%00b", "question_id"),
    ("/api/v1/items/?version=%00", "version"),
    ("/api/v1/responses/?model=%00", "model"),
    ("/api/v1/datasets/%00/", "path"),
    ("/api/v1/rubrics/audit/?person=%00", "person"),
]
PAGES = [
    ("/datasets/%00/", "path"),
    ("/rubrics/d/%00/", "path"),
    ("/datasets/demo/v/v1/items/%00/", "path"),
    ("/datasets/demo/v/v1/?q=%00", "q"),
]


@pytest.fixture
def admin_client(cast):
    demo_version()
    client = Client(raise_request_exception=False)
    client.force_login(cast.admin)
    return client


@pytest.mark.parametrize("url,where", API)
def test_an_api_url_with_a_nul_answers_400_keyed_by_where_it_is(admin_client, url, where):
    response = admin_client.get(url)
    assert response.status_code == 400
    assert response.json() == {where: ["Must not contain a NUL character."]}


@pytest.mark.parametrize("url,where", PAGES)
def test_a_page_url_with_a_nul_answers_400_saying_where_it_is(admin_client, url, where):
    response = admin_client.get(url)
    assert response.status_code == 400
    assert response.content.decode() == f"{where}: Must not contain a NUL character."


def test_urls_without_a_nul_are_untouched(admin_client):
    assert admin_client.get("/api/v1/versions/?dataset=demo").json()["count"] == 1
    assert admin_client.get("/datasets/demo/").status_code == 200
