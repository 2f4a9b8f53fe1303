"""The OpenAPI schema and its interactive page are served locally, to staff only."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_schema_is_openapi_3_and_lists_the_platform_endpoints(client_for, cast):
    response = client_for(cast.admin).get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in ["/api/v1/datasets/", "/api/v1/import/heartbench/", "/api/v1/tokens/"]:
        assert path in schema["paths"]


def test_the_docs_page_loads_nothing_from_another_host(client_for, cast):
    response = client_for(cast.admin).get(reverse("api-docs"))
    assert response.status_code == 200
    html = response.content.decode()
    urls = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']+)["\']', html) + re.findall(r'url:\s*["\']([^"\']+)["\']', html)
    assert any("swagger-ui" in u for u in urls), urls
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), f"{url} is not served by the platform"
    assert "cdn" not in html.lower()


@pytest.mark.parametrize("who", ["expert", "outsider"])
def test_experts_and_outsiders_get_neither_schema_nor_docs(client_for, cast, who):
    client = client_for(getattr(cast, who))
    assert client.get(reverse("api-schema")).status_code == 403
    assert client.get(reverse("api-docs")).status_code == 403


def test_anonymous_visitors_get_neither(client):
    assert client.get(reverse("api-schema")).status_code in (401, 403)
    assert client.get(reverse("api-docs")).status_code in (401, 403)
