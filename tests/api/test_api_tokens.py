"""An admin issues, lists and revokes API tokens for pipelines, through the API and on a page; the token is shown once."""

import pytest
from django.urls import reverse

from heartbench_core.models import ApiToken
from heartbench_core.services.api_tokens import issue_token

pytestmark = pytest.mark.django_db


def _issue(client, **body):
    return client.post(reverse("api-token-list"), {"name": "nightly import", **body}, content_type="application/json")


def test_an_admin_issues_a_token_that_then_authenticates_a_pipeline(client_for, cast, client):
    response = _issue(client_for(cast.admin), username="rita_author")
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "rita_author" and body["name"] == "nightly import" and body["state"] == "active"
    assert body["token"].startswith("hb_") and len(body["token"]) == 46 and body["prefix"] == body["token"][:10]
    assert body["created_by"] == "alice_admin"
    client.logout()
    assert client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {body['token']}").status_code == 200


def test_a_user_may_hold_several_tokens_and_issuing_one_keeps_the_others(client_for, cast, client):
    admin = client_for(cast.admin)
    first = _issue(admin, username="rita_author", name="import").json()["token"]
    second = _issue(admin, username="rita_author", name="export").json()["token"]
    assert first != second
    assert sorted(ApiToken.objects.filter(user=cast.author).values_list("name", flat=True)) == ["export", "import"]
    client.logout()
    for token in (first, second):
        assert client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_revoking_keeps_the_row_and_the_token_no_longer_authenticates(client_for, cast, client):
    issued = issue_token(user=cast.author, name="import")
    response = client_for(cast.admin).delete(reverse("api-token-detail", args=[issued.token.pk]))
    assert response.status_code == 204
    issued.token.refresh_from_db()
    assert issued.token.revoked_at is not None and issued.token.revoked_by == cast.admin
    assert client_for(cast.admin).delete(reverse("api-token-detail", args=[issued.token.pk])).status_code == 204  # again: nothing changes
    client.logout()
    refused = client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {issued.text}")
    assert refused.status_code == 401 and "revoked" in refused.json()["detail"]


def test_the_token_list_shows_only_a_prefix_of_each_token(client_for, cast):
    issued = issue_token(user=cast.author, name="import", by=cast.admin)
    body = client_for(cast.admin).get(reverse("api-token-list")).json()
    assert body["count"] == 1
    row = body["results"][0]
    assert row["username"] == "rita_author" and row["prefix"] == issued.text[:10] and row["name"] == "import"
    assert set(row) >= {"created_at", "expires_at", "last_used_at", "revoked_at", "state"}
    assert issued.text not in str(body) and "token" not in row
    detail = client_for(cast.admin).get(reverse("api-token-detail", args=[issued.token.pk])).json()
    assert issued.text not in str(detail) and detail["prefix"] == row["prefix"]


def test_the_token_list_filters_by_username_and_state(client_for, cast):
    issue_token(user=cast.author, name="import")
    revoked = issue_token(user=cast.reviewer, name="old").token
    issue_token(user=cast.reviewer, name="new")
    revoked.revoked_at = revoked.created_at
    revoked.save()
    admin = client_for(cast.admin)
    body = admin.get(reverse("api-token-list"), {"username": "sam_reviewer1"}).json()
    assert sorted(r["name"] for r in body["results"]) == ["new", "old"]
    body = admin.get(reverse("api-token-list"), {"username": "sam_reviewer1", "state": "active"}).json()
    assert [r["name"] for r in body["results"]] == ["new"]
    assert admin.get(reverse("api-token-list"), {"state": "lost"}).json() == {"state": ["'lost' is not one of active, expired, revoked."]}
    # The page filters one way with the API: `user` is its name for `username`, a bad state the field's error.
    page = admin.get(reverse("tokens"), {"user": "sam_reviewer1", "state": "active"})
    assert [t.name for t in page.context["page"].object_list] == ["new"] and page.context["query"] == "user=sam_reviewer1&state=active"
    bad = admin.get(reverse("tokens"), {"state": "lost"})
    assert bad.status_code == 200 and len(bad.context["page"].object_list) == 3
    assert "State: invalid value “lost”; choose one of: Active, Expired, Revoked." in bad.content.decode()


def test_issuing_for_an_unknown_user_names_the_field(client_for, cast):
    response = _issue(client_for(cast.admin), username="ghost")
    assert response.status_code == 400
    assert response.json() == {"username": ["no user named 'ghost'"]}
    assert ApiToken.objects.count() == 0


def test_a_token_needs_a_name(client_for, cast):
    response = client_for(cast.admin).post(reverse("api-token-list"), {"username": "rita_author"}, content_type="application/json")
    assert response.status_code == 400 and list(response.json()) == ["name"]
    assert ApiToken.objects.count() == 0


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_manage_every_token(client_for, cast, who):
    issued = issue_token(user=cast.admin, name="admin's")
    client = client_for(getattr(cast, who))
    assert client.get(reverse("api-token-list")).status_code == 403
    assert _issue(client, username=who).status_code == 403
    assert client.delete(reverse("api-token-detail", args=[issued.token.pk])).status_code == 403
    assert client.get(reverse("tokens")).status_code == 403
    assert client.post(reverse("tokens-issue"), {"username": "erin_expert1", "name": "x", "days": 5}).status_code == 403
    assert client.post(reverse("tokens-revoke", args=[issued.token.pk])).status_code == 403
    assert ApiToken.objects.count() == 1 and ApiToken.objects.get().revoked_at is None


def test_the_token_page_issues_a_token_shown_once_and_revokes_it(client_for, cast):
    client = client_for(cast.admin)
    page = client.post(reverse("tokens-issue"), {"username": "erin_expert2", "name": "sync", "days": 30})
    assert page.status_code == 200
    token = ApiToken.objects.get(user=cast.experts[1])
    shown = page.context["issued"].text
    assert shown in page.content.decode() and token.prefix == shown[:10]
    assert (token.expires_at - token.created_at).days == 30
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]
    listing = client.get(reverse("tokens")).content.decode()
    assert token.prefix in listing and "sync" in listing and shown not in listing
    assert client.post(reverse("tokens-revoke", args=[token.pk])).status_code == 302
    token.refresh_from_db()
    assert token.revoked_by == cast.admin


def test_the_token_page_names_a_bad_field(client_for, cast):
    page = client_for(cast.admin).post(reverse("tokens-issue"), {"username": "ghost", "name": "", "days": 9999})
    assert page.status_code == 400
    errors = page.context["form"].errors
    assert set(errors) == {"username", "name", "days"}
    assert "No active user by that name." in page.content.decode()
    assert not ApiToken.objects.exists()


def test_admins_find_the_token_page_in_the_navigation(client_for, cast):
    page = client_for(cast.admin).get(reverse("tokens")).content.decode()
    assert f'href="{reverse("tokens")}"' in page
    assert f'href="{reverse("tokens")}"' not in client_for(cast.author).get(reverse("core:datasets")).content.decode()


def test_the_person_page_lists_their_tokens_for_an_admin_to_revoke(client_for, cast):
    issued = issue_token(user=cast.expert, name="phone", by=cast.admin)
    client = client_for(cast.admin)
    page = client.get(reverse("people:person", args=[cast.expert.pk])).content.decode()
    assert issued.token.prefix in page and "phone" in page and issued.text not in page
    assert reverse("tokens-revoke", args=[issued.token.pk]) in page
    back = reverse("people:person", args=[cast.expert.pk])
    response = client.post(reverse("tokens-revoke", args=[issued.token.pk]), {"next": back})
    assert response.status_code == 302 and response["Location"] == back
    issued.token.refresh_from_db()
    assert issued.token.revoked_at is not None
