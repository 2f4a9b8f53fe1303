"""An admin issues and revokes API tokens for pipelines, through the API and on a page."""

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def test_an_admin_issues_a_token_that_then_authenticates_a_pipeline(client_for, cast, client):
    response = client_for(cast.admin).post(reverse("api-token-list"), {"username": "rita_author"}, content_type="application/json")
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "rita_author" and len(body["key"]) == 40
    client.logout()
    assert client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {body['key']}").status_code == 200


def test_issuing_again_replaces_the_earlier_token(client_for, cast, client):
    admin = client_for(cast.admin)
    first = admin.post(reverse("api-token-list"), {"username": "rita_author"}, content_type="application/json").json()["key"]
    second = admin.post(reverse("api-token-list"), {"username": "rita_author"}, content_type="application/json").json()["key"]
    assert first != second
    assert list(Token.objects.filter(user=cast.author).values_list("key", flat=True)) == [second]
    client.logout()
    assert client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {first}").status_code in (401, 403)


def test_a_revoked_token_no_longer_authenticates(client_for, cast, client):
    token = Token.objects.create(user=cast.author)
    response = client_for(cast.admin).delete(reverse("api-token-detail", args=[cast.author.pk]))
    assert response.status_code == 204
    assert not Token.objects.filter(user=cast.author).exists()
    client.logout()
    assert client.get(reverse("dataset-list"), HTTP_AUTHORIZATION=f"Token {token.key}").status_code in (401, 403)


def test_the_token_list_shows_only_a_prefix_of_each_key(client_for, cast):
    token = Token.objects.create(user=cast.author)
    body = client_for(cast.admin).get(reverse("api-token-list")).json()
    assert body["count"] == 1
    row = body["results"][0]
    assert row["username"] == "rita_author" and row["key_prefix"] == token.key[:6]
    assert token.key not in str(body)


def test_the_token_list_filters_by_username(client_for, cast):
    Token.objects.create(user=cast.author)
    Token.objects.create(user=cast.reviewer)
    body = client_for(cast.admin).get(reverse("api-token-list"), {"username": "sam_reviewer1"}).json()
    assert [r["username"] for r in body["results"]] == ["sam_reviewer1"]


def test_issuing_for_an_unknown_user_names_the_field(client_for, cast):
    response = client_for(cast.admin).post(reverse("api-token-list"), {"username": "ghost"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"username": ["no user named 'ghost'"]}
    assert Token.objects.count() == 0


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_manage_tokens(client_for, cast, who):
    client = client_for(getattr(cast, who))
    assert client.get(reverse("api-token-list")).status_code == 403
    assert client.post(reverse("api-token-list"), {"username": who}, content_type="application/json").status_code == 403
    assert client.get(reverse("tokens")).status_code == 403
    assert client.post(reverse("tokens-issue"), {"username": "erin_expert1"}).status_code == 403
    assert Token.objects.count() == 0


def test_the_token_page_issues_a_token_shown_once_and_revokes_it(client_for, cast):
    client = client_for(cast.admin)
    page = client.post(reverse("tokens-issue"), {"username": "erin_expert2"})
    assert page.status_code == 200
    key = Token.objects.get(user=cast.experts[1]).key
    assert key in page.content.decode()
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]
    listing = client.get(reverse("tokens")).content.decode()
    assert key[:6] in listing and key not in listing
    assert client.post(reverse("tokens-revoke", args=[cast.experts[1].pk])).status_code == 302
    assert not Token.objects.exists()


def test_the_token_page_rejects_an_unknown_user(client_for, cast):
    page = client_for(cast.admin).post(reverse("tokens-issue"), {"username": "ghost"})
    assert page.status_code == 400
    assert "No active user named" in page.content.decode()


def test_admins_find_the_token_page_in_the_navigation(client_for, cast):
    page = client_for(cast.admin).get(reverse("tokens")).content.decode()
    assert f'href="{reverse("tokens")}"' in page
    assert f'href="{reverse("tokens")}"' not in client_for(cast.author).get(reverse("core:datasets")).content.decode()
