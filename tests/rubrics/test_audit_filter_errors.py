"""A criterion filter that is no key, or a filter holding a NUL, is the documented 400 on the audit API and a clear message on the page."""

import pytest
from django.urls import reverse

from tests.rubrics.conftest import edit

LONG_NOT_A_UUID = "x" * 40
NOT_A_KEY_PREFIX = "zz-top"


@pytest.mark.parametrize("value", [LONG_NOT_A_UUID, "0" * 36, NOT_A_KEY_PREFIX])
def test_the_audit_api_answers_400_naming_the_criterion_parameter(cast, client_for, criterion, value):
    response = client_for(cast.admin).get("/api/v1/rubrics/audit/", {"criterion": value})
    assert response.status_code == 400
    assert list(response.json()) == ["criterion"]
    assert "is not a criterion key" in response.json()["criterion"][0]


@pytest.mark.parametrize("name", ["dataset", "item", "criterion", "person"])
def test_a_nul_character_in_any_audit_filter_is_a_400_naming_it(cast, client_for, criterion, name):
    response = client_for(cast.admin).get("/api/v1/rubrics/audit/", {name: "a\x00b"})
    assert response.status_code == 400
    assert list(response.json()) == [name]


def test_the_audit_api_still_finds_a_criterion_by_its_full_key_in_any_case(cast, client_for, criterion):
    edit(cast, criterion, weight=4)
    response = client_for(cast.admin).get("/api/v1/rubrics/audit/", {"criterion": str(criterion.lineage_id).upper()})
    assert response.status_code == 200 and response.json()["count"] == 1


def test_the_audit_page_shows_a_clear_message_for_a_bad_criterion_instead_of_failing(cast, client_for, criterion):
    edit(cast, criterion, weight=4)
    client = client_for(cast.admin)
    page = client.get(reverse("rubrics:audit"), {"criterion": LONG_NOT_A_UUID})
    assert page.status_code == 400
    assert "is not a criterion key (a UUID) or the start of one" in page.content.decode()
    assert '<span class="tag">' not in page.content.decode()
    partial = client.get(reverse("rubrics:audit"), {"criterion": LONG_NOT_A_UUID}, HTTP_HX_REQUEST="true")
    assert partial.status_code == 200 and "is not a criterion key" in partial.content.decode()
    csv = client.get(reverse("rubrics:audit"), {"criterion": LONG_NOT_A_UUID, "format": "csv"})
    assert csv.status_code == 400 and csv["Content-Type"].startswith("text/html")


def test_the_audit_page_shows_a_clear_message_for_a_nul_in_a_filter(cast, client_for, criterion):
    page = client_for(cast.admin).get(reverse("rubrics:audit"), {"person": "rita\x00"})
    assert page.status_code == 400 and "Must not contain a NUL character." in page.content.decode()
