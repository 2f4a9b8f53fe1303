"""Every state-changing request made with a session needs the CSRF token: pages, htmx posts and the API."""

import pytest
from django.test import Client

from tests.conftest import make_user
from tests.security import permissions_table as table
from tests.security.test_permission_matrix import values_for
from tests.security.urlwalk import build_path, endpoints
from tests.security.world import build_world

pytestmark = pytest.mark.django_db

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def test_no_unsafe_request_without_the_csrf_token_gets_through(cast):
    world = build_world(cast)
    root = make_user("csrf_root", is_superuser=True)  # holds every role: no permission check stops the request first
    client = Client(enforce_csrf_checks=True)
    client.force_login(root)
    passed, checked = [], 0
    for endpoint in endpoints(table.SKIP_PREFIXES):
        methods = [m for m in endpoint.methods if m in UNSAFE]
        if not methods:
            continue
        path = build_path(endpoint.route, values_for(endpoint, world))
        for method in methods:
            for headers in ({}, {"HX-Request": "true"}):
                response = client.generic(method, path, b"", content_type="application/x-www-form-urlencoded", headers=headers)
                checked += 1
                if response.status_code != 403:
                    passed.append(f"{method} {path} ({endpoint.key}) {headers or ''}: {response.status_code}")
    assert checked > 50
    assert not passed, "accepted without a CSRF token:\n" + "\n".join(passed)


def test_the_base_page_sends_the_csrf_token_with_every_htmx_request(client_for, cast):
    html = client_for(cast.admin).get("/datasets/").content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in html
