"""403, 404 and 500 pages for people: the site's header, a way back, no traceback; the API keeps answering JSON."""

import json

import pytest
from django.test import RequestFactory, override_settings
from django.urls import reverse
from django.views import defaults

from heartbench_core.errors import server_error

pytestmark = pytest.mark.django_db

MISSING = "/no-such-page-here/"
SITE_NAME = "HeartBench&nbsp;validation"


@pytest.fixture(autouse=True)
def no_debug():
    """Django renders its error templates only with DEBUG off (with it on, its technical pages)."""
    with override_settings(DEBUG=False):
        yield


def assert_site_shell(html: str) -> None:
    assert '<header class="topbar">' in html
    assert f'<a class="brand" href="/">{SITE_NAME}</a>' in html
    assert 'href="/">Back to the start page</a>' in html


class TestMissingPage:
    def test_it_answers_404_in_the_site_layout_for_an_anonymous_visitor(self, client):
        response = client.get(MISSING)
        assert response.status_code == 404
        html = response.content.decode()
        assert_site_shell(html)
        assert "Page not found" in html
        assert f'href="{reverse("login")}">Log in</a>' in html

    def test_it_answers_404_with_the_expert_navigation_for_a_signed_in_expert(self, cast, client_for):
        response = client_for(cast.expert).get(MISSING)
        assert response.status_code == 404
        html = response.content.decode()
        assert_site_shell(html)
        assert f'href="{reverse("annotation:home")}">My work</a>' in html
        assert cast.expert.username in html
        assert ">Log in</a>" not in html

    def test_an_unknown_api_address_still_answers_json(self, client):
        response = client.get("/api/v1/no-such-endpoint/")
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": "Not found."}


class TestRefusedPage:
    def test_an_expert_opening_an_admin_page_gets_403_in_the_site_layout(self, cast, client_for):
        response = client_for(cast.expert).get(reverse("annotation:campaigns"))
        assert response.status_code == 403
        html = response.content.decode()
        assert_site_shell(html)
        assert "Not open to you" in html
        assert f'href="{reverse("annotation:home")}">My work</a>' in html


class TestServerErrorPage:
    def render_after_a_failing_view(self, path: str):
        request = RequestFactory().get(path)
        try:
            raise RuntimeError("database exploded: secret detail")
        except RuntimeError:
            # As Django's handler does: the 500 view runs while the view's exception is being handled.
            return server_error(request)

    def test_it_renders_a_standalone_page_with_the_site_name_and_a_link_home(self):
        response = self.render_after_a_failing_view("/datasets/")
        assert response.status_code == 500
        html = response.content.decode()
        assert_site_shell(html)
        assert "Traceback" not in html
        assert "secret detail" not in html
        assert "RuntimeError" not in html

    def test_djangos_own_server_error_view_renders_it_too(self):
        request = RequestFactory().get("/datasets/")
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            response = defaults.server_error(request)
        assert response.status_code == 500
        assert_site_shell(response.content.decode())

    def test_it_needs_no_database(self, django_assert_num_queries):
        with django_assert_num_queries(0):
            response = self.render_after_a_failing_view("/datasets/")
        assert response.status_code == 500

    def test_an_api_server_error_is_still_json(self):
        response = self.render_after_a_failing_view("/api/v1/datasets/")
        assert response.status_code == 500
        assert response["Content-Type"] == "application/json"
        assert "detail" in json.loads(response.content)
