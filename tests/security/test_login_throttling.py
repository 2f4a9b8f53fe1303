"""Password guessing is throttled on the login page, the admin login and API tokens."""

import pytest
from django.test import override_settings
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def attempt(client, username, password, address="10.0.0.1", url=None):
    return client.post(url or reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


@override_settings(LOGIN_FAILURES_PER_USER=5)
def test_the_login_page_locks_a_username_after_five_wrong_passwords_even_for_the_right_one(client, cast):
    for _ in range(5):
        assert attempt(client, "erin_expert1", "wrong").status_code == 200
    response = attempt(client, "erin_expert1", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


@override_settings(LOGIN_FAILURES_PER_USER=5)
def test_four_wrong_passwords_still_let_the_right_one_in_and_reset_the_count(client, cast):
    for _ in range(4):
        attempt(client, "erin_expert1", "wrong")
    assert attempt(client, "erin_expert1", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        attempt(client, "erin_expert1", "wrong")
    assert attempt(client, "erin_expert1", PASSWORD).status_code == 302


@override_settings(LOGIN_FAILURES_PER_USER=5)
def test_a_lockout_from_one_address_does_not_lock_the_user_out_everywhere(client, cast):
    for _ in range(5):
        attempt(client, "erin_expert1", "wrong", address="10.0.0.66")
    assert attempt(client, "erin_expert1", PASSWORD, address="10.0.0.66").status_code == 429
    assert attempt(client, "erin_expert1", PASSWORD, address="10.0.0.7").status_code == 302


@override_settings(LOGIN_FAILURES_PER_USER=100, LOGIN_FAILURES_PER_ADDRESS=10)
def test_spraying_many_usernames_from_one_address_is_throttled(client, cast):
    for i in range(10):
        attempt(client, f"nobody{i}", "wrong", address="10.9.9.9")
    assert attempt(client, "erin_expert1", PASSWORD, address="10.9.9.9").status_code == 429


@override_settings(LOGIN_FAILURES_PER_USER=3)
def test_the_admin_login_shares_the_lockout(client, cast):
    url = reverse("admin:login")
    for _ in range(3):
        attempt(client, "alice_admin", "wrong", url=url)
    cast.admin.is_staff = True
    cast.admin.save()
    response = attempt(client, "alice_admin", PASSWORD, url=url)
    assert response.status_code == 200  # the form is shown again: not logged in
    assert "_auth_user_id" not in client.session


@override_settings(TOKEN_FAILURES_PER_ADDRESS=3)
def test_guessing_api_tokens_is_throttled_per_address(client, cast):
    from heartbench_core.services.api_tokens import issue_token

    good = issue_token(user=cast.admin, name="pipeline").text
    url = reverse("dataset-list")
    for i in range(3):
        assert client.get(url, HTTP_AUTHORIZATION=f"Token {i:040d}", REMOTE_ADDR="10.1.1.1").status_code in (401, 403)
    assert client.get(url, HTTP_AUTHORIZATION=f"Token {good}", REMOTE_ADDR="10.1.1.1").status_code == 429
    assert client.get(url, HTTP_AUTHORIZATION=f"Token {good}", REMOTE_ADDR="10.1.1.2").status_code == 200


def test_api_use_per_user_is_rate_limited(client, cast, monkeypatch):
    from rest_framework.throttling import UserRateThrottle

    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "3/min"})
    client.force_login(cast.admin)
    statuses = [client.get(reverse("dataset-list")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
