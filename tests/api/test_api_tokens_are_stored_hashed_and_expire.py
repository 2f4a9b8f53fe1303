"""API tokens are stored only as a SHA-256 digest, expire (90 days unless chosen otherwise), and an expired or revoked one answers 401 saying why."""

import hashlib
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from heartbench_core.models import ApiToken
from heartbench_core.services.api_tokens import LAST_USED_EVERY, issue_token, revoke_token

pytestmark = pytest.mark.django_db

URL = "/api/v1/datasets/"


def _get(client, token: str):
    client.logout()
    return client.get(URL, HTTP_AUTHORIZATION=f"Token {token}")


def test_the_database_holds_the_digest_and_a_prefix_never_the_token(cast):
    issued = issue_token(user=cast.author, name="import")
    token = issued.token
    assert token.digest == hashlib.sha256(issued.text.encode()).hexdigest()
    assert token.prefix == issued.text[:10] and len(token.prefix) < len(issued.text) // 4
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {ApiToken._meta.db_table}")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert issued.text not in stored


def test_a_token_lives_ninety_days_unless_its_creator_chooses(cast):
    default = issue_token(user=cast.author, name="default").token
    assert default.expires_at - default.created_at == timedelta(days=90)
    chosen = issue_token(user=cast.author, name="short", days=7).token
    assert chosen.expires_at - chosen.created_at == timedelta(days=7)
    with override_settings(API_TOKEN_DAYS=30):
        assert (lambda t: t.expires_at - t.created_at)(issue_token(user=cast.author, name="setting").token) == timedelta(days=30)


@pytest.mark.parametrize("days", [0, 366])
def test_a_lifetime_outside_the_limits_is_refused_naming_days(cast, client_for, days):
    with pytest.raises(ValidationError) as caught:
        issue_token(user=cast.author, name="x", days=days)
    assert list(caught.value.message_dict) == ["days"]
    response = client_for(cast.admin).post(
        reverse("api-token-list"), {"username": "rita_author", "name": "x", "days": days}, content_type="application/json"
    )
    assert response.status_code == 400 and list(response.json()) == ["days"]
    assert not ApiToken.objects.exists()


def test_an_expired_token_answers_401_saying_it_expired(cast, client):
    issued = issue_token(user=cast.author, name="import", days=1)
    past = timezone.now() - timedelta(days=1, minutes=1)
    ApiToken.objects.filter(pk=issued.token.pk).update(created_at=past, expires_at=past + timedelta(days=1))
    response = _get(client, issued.text)
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert "expired" in response.json()["detail"]


def test_a_revoked_token_answers_401_saying_it_was_revoked(cast, client):
    issued = issue_token(user=cast.author, name="import")
    revoke_token(token=issued.token, by=cast.admin)
    response = _get(client, issued.text)
    assert response.status_code == 401 and "revoked" in response.json()["detail"]


def test_an_unknown_token_answers_401_and_no_header_still_403(cast, client):
    response = _get(client, "hb_" + "x" * 43)
    assert response.status_code == 401 and response.json() == {"detail": "Invalid token."}
    assert client.get(URL).status_code == 403  # not signed in, no token: refused as before


def test_the_token_of_an_inactive_user_authenticates_nobody(cast, client):
    issued = issue_token(user=cast.author, name="import")
    cast.author.is_active = False
    cast.author.save()
    assert _get(client, issued.text).status_code == 401


def test_last_use_is_written_at_most_once_an_hour(cast, client):
    issued = issue_token(user=cast.author, name="import")
    assert _get(client, issued.text).status_code == 200
    issued.token.refresh_from_db()
    first = issued.token.last_used_at
    assert first is not None
    assert _get(client, issued.text).status_code == 200
    issued.token.refresh_from_db()
    assert issued.token.last_used_at == first  # within the hour: no write
    ApiToken.objects.filter(pk=issued.token.pk).update(last_used_at=first - LAST_USED_EVERY)
    assert _get(client, issued.text).status_code == 200
    issued.token.refresh_from_db()
    assert issued.token.last_used_at > first
