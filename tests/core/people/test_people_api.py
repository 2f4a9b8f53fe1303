"""The People API mirrors the pages for admins: list and filter users, invite, change roles, deactivate, reactivate."""

import pytest
from django.core import mail

from annotation.models import Assignment
from heartbench_core.models import User
from heartbench_core.roles import Role, roles_of

from .helpers import campaign_with_open_work, link_in

pytestmark = pytest.mark.django_db

API = "/api/v1/people/"


def test_admins_list_everyone_with_roles_and_status(client_for, cast):
    body = client_for(cast.admin).get(API).json()
    assert body["count"] == len(cast.everyone)
    by_name = {p["username"]: p for p in body["results"]}
    assert by_name["erin_expert1"]["roles"] == ["expert"] and by_name["erin_expert1"]["status"] == "active"
    assert by_name["olga_outsider"]["roles"] == []
    assert set(by_name["alice_admin"]) >= {"id", "email", "language", "is_active", "last_login", "invited_at", "superuser"}


def test_the_list_filters_by_role_and_refuses_an_unknown_one(client_for, cast):
    client = client_for(cast.admin)
    names = [p["username"] for p in client.get(API, {"role": "expert"}).json()["results"]]
    assert names == [e.username for e in cast.experts]
    response = client.get(API, {"role": "wizard"})
    assert response.status_code == 400 and "role" in response.json()
    assert client.get(API, {"status": "gone"}).status_code == 400


def test_inviting_creates_the_user_and_sends_the_link(client_for, cast):
    response = client_for(cast.admin).post(
        API,
        {"email": "nora@example.org", "username": "nora", "roles": ["expert", "senior_reviewer"], "language": "zh-hans"},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "nora" and body["status"] == "invited" and body["roles"] == ["senior_reviewer", "expert"]
    assert body["invited_at"] is not None and body["language"] == "zh-hans"
    assert link_in(mail.outbox[-1]).startswith("/accounts/invite/")


def test_inviting_an_existing_address_is_a_400_naming_the_field(client_for, cast):
    response = client_for(cast.admin).post(API, {"email": "erin_expert1@example.org", "roles": ["expert"]}, content_type="application/json")
    assert response.status_code == 400
    assert "email" in response.json()["errors"]
    assert mail.outbox == []


def test_changing_roles(client_for, cast):
    client = client_for(cast.admin)
    response = client.post(f"{API}{cast.outsider.pk}/roles/", {"roles": ["expert"]}, content_type="application/json")
    assert response.status_code == 200 and response.json()["roles"] == ["expert"]
    cast.outsider._hb_roles = None
    assert roles_of(cast.outsider) == {Role.EXPERT}
    own = client.post(f"{API}{cast.admin.pk}/roles/", {"roles": []}, content_type="application/json")
    assert own.status_code == 400 and "own admin role" in own.json()["errors"]["roles"][0]


def test_deactivating_releases_open_work_and_reactivating_restores_access(client_for, cast):
    _campaign, open_work, _expired, _others = campaign_with_open_work(cast)
    client = client_for(cast.admin)
    response = client.post(f"{API}{cast.expert.pk}/deactivate/")
    assert response.status_code == 200
    assert response.json()["released"] == 2 and response.json()["status"] == "inactive"
    assert set(Assignment.objects.filter(pk__in=[a.pk for a in open_work]).values_list("status", flat=True)) == {"released"}
    assert client.post(f"{API}{cast.expert.pk}/deactivate/").status_code == 400
    assert client.post(f"{API}{cast.admin.pk}/deactivate/").status_code == 400
    again = client.post(f"{API}{cast.expert.pk}/reactivate/")
    assert again.status_code == 200 and again.json()["is_active"] is True


def test_re_sending_an_invitation(client_for, cast):
    client = client_for(cast.admin)
    user = client.post(API, {"email": "nora@example.org", "roles": []}, content_type="application/json").json()
    assert client.post(f"{API}{user['id']}/resend-invite/").status_code == 200
    assert len(mail.outbox) == 2
    accepted = client.post(f"{API}{cast.expert.pk}/resend-invite/")
    assert accepted.status_code == 400 and "already set a password" in accepted.json()["errors"]["user"][0]


def test_an_unknown_user_is_a_404(client_for, cast):
    assert client_for(cast.admin).post(f"{API}999999/deactivate/").status_code == 404


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_use_it(client_for, cast, who):
    client = client_for(getattr(cast, who))
    assert client.get(API).status_code == 403
    assert client.post(API, {"email": "nora@example.org", "roles": ["admin"]}, content_type="application/json").status_code == 403
    assert client.post(f"{API}{cast.admin.pk}/deactivate/").status_code == 403
    assert not User.objects.filter(email="nora@example.org").exists()
