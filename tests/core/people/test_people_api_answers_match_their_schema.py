"""Real answers of the People API conform to the schema its serializers declare."""

import pytest

from tests.api.test_responses_match_their_schema import conforms, schema  # noqa: F401 (schema is a fixture)

from .helpers import campaign_with_open_work

pytestmark = pytest.mark.django_db


def test_every_people_operation_answers_as_declared(schema, cast, client_for):  # noqa: F811
    campaign_with_open_work(cast)
    client = client_for(cast.admin)
    conforms(schema, "/api/v1/people/", client.get("/api/v1/people/", {"role": "expert", "status": "active"}))
    conforms(schema, "/api/v1/people/{user_id}/", client.get(f"/api/v1/people/{cast.expert.pk}/"))
    invited = conforms(
        schema,
        "/api/v1/people/",
        client.post("/api/v1/people/", {"email": "nora@example.org", "roles": ["expert"]}, content_type="application/json"),
        "POST",
    )
    conforms(schema, "/api/v1/people/{user_id}/resend-invite/", client.post(f"/api/v1/people/{invited['id']}/resend-invite/"), "POST")
    conforms(
        schema,
        "/api/v1/people/{user_id}/roles/",
        client.post(f"/api/v1/people/{cast.author.pk}/roles/", {"roles": ["rubric_author", "expert"]}, content_type="application/json"),
        "POST",
    )
    gone = conforms(schema, "/api/v1/people/{user_id}/deactivate/", client.post(f"/api/v1/people/{cast.expert.pk}/deactivate/"), "POST")
    assert gone["released"] == 2
    conforms(schema, "/api/v1/people/{user_id}/reactivate/", client.post(f"/api/v1/people/{cast.expert.pk}/reactivate/"), "POST")
