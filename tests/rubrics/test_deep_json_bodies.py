"""An API body nested too deeply for Python's JSON decoder is a 400 parse error, not a 500."""

from django.test import Client

from tests.rubrics.conftest import edit


def test_a_json_body_of_a_hundred_thousand_brackets_is_a_400(cast, criterion):
    revision = edit(cast, criterion, weight=4)
    client = Client(raise_request_exception=False)
    client.force_login(cast.reviewer)
    response = client.post(f"/api/v1/rubrics/revisions/{revision.pk}/comments/", "[" * 100000, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "JSON parse error - nested too deeply"}


def test_an_ordinary_json_body_still_parses(cast, criterion):
    revision = edit(cast, criterion, weight=4)
    client = Client()
    client.force_login(cast.reviewer)
    response = client.post(f"/api/v1/rubrics/revisions/{revision.pk}/comments/", {"body": "ok"}, content_type="application/json")
    assert response.status_code == 201
