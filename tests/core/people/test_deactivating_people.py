"""Deactivating a person: they cannot sign in, their sessions end and their tokens are revoked, their open work goes back to the pool."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.test import Client

from annotation.models import Assignment
from heartbench_core.models import ApiToken, User
from heartbench_core.services.api_tokens import issue_token
from tests.conftest import PASSWORD

from .helpers import campaign_with_open_work

pytestmark = pytest.mark.django_db


def test_the_first_post_says_what_will_happen_and_does_nothing(client_for, cast):
    response = client_for(cast.admin).post(f"/people/{cast.expert.pk}/deactivate/")
    assert response.status_code == 200
    assert b"Deactivate erin_expert1?" in response.content and b"released" in response.content
    cast.expert.refresh_from_db()
    assert cast.expert.is_active


def test_deactivating_releases_open_work_ends_sessions_and_the_token(client_for, cast):
    _campaign, open_work, expired, others = campaign_with_open_work(cast)
    session = Client()
    assert session.login(username=cast.expert.username, password=PASSWORD)
    issued = [issue_token(user=cast.expert, name=f"pipeline {n}") for n in (1, 2)]
    assert Session.objects.count() >= 1

    response = client_for(cast.admin).post(f"/people/{cast.expert.pk}/deactivate/", {"confirm": "1"}, follow=True)

    assert b"erin_expert1 is deactivated; 2 open assignments were released." in response.content
    cast.expert.refresh_from_db()
    assert not cast.expert.is_active
    assert {a.status for a in Assignment.objects.filter(pk__in=[a.pk for a in open_work])} == {Assignment.Status.RELEASED}
    expired.refresh_from_db()
    others.refresh_from_db()
    assert expired.status == Assignment.Status.RESERVED  # past its expiry: already back in the pool, left to the sweep
    assert others.status == Assignment.Status.RESERVED  # another expert's work is untouched
    assert not ApiToken.objects.filter(user=cast.expert, revoked_at__isnull=True).exists()
    assert set(ApiToken.objects.filter(user=cast.expert).values_list("revoked_by", flat=True)) == {cast.admin.pk}
    assert Client().get("/api/v1/datasets/", HTTP_AUTHORIZATION=f"Token {issued[0].text}").status_code == 401
    assert session.get("/work/").status_code == 302  # their session is gone: back to the login page
    assert not Client().login(username=cast.expert.username, password=PASSWORD)
    entry = LogEntry.objects.get(object_id=str(cast.expert.pk), change_message__startswith="people.deactivate")
    assert entry.user == cast.admin and "2 API tokens revoked, 2 open assignments released" in entry.change_message


def test_an_admin_cannot_deactivate_themself(client_for, cast):
    response = client_for(cast.admin).post(f"/people/{cast.admin.pk}/deactivate/", {"confirm": "1"}, follow=True)
    assert b"You cannot deactivate yourself" in response.content
    cast.admin.refresh_from_db()
    assert cast.admin.is_active


def test_deactivating_twice_says_so(client_for, cast):
    client = client_for(cast.admin)
    client.post(f"/people/{cast.expert.pk}/deactivate/", {"confirm": "1"})
    response = client.post(f"/people/{cast.expert.pk}/deactivate/", {"confirm": "1"}, follow=True)
    assert b"erin_expert1 is already inactive." in response.content


def test_reactivating_lets_them_sign_in_again_with_their_roles(client_for, cast):
    client = client_for(cast.admin)
    client.post(f"/people/{cast.expert.pk}/deactivate/", {"confirm": "1"})
    confirm = client.post(f"/people/{cast.expert.pk}/reactivate/")
    assert b"Reactivate erin_expert1?" in confirm.content
    response = client.post(f"/people/{cast.expert.pk}/reactivate/", {"confirm": "1"}, follow=True)
    assert b"erin_expert1 can sign in again." in response.content
    assert Client().login(username=cast.expert.username, password=PASSWORD)
    assert User.objects.get(pk=cast.expert.pk).groups.filter(name="expert").exists()


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_deactivate(client_for, cast, who):
    assert client_for(getattr(cast, who)).post(f"/people/{cast.experts[1].pk}/deactivate/", {"confirm": "1"}).status_code == 403
    cast.experts[1].refresh_from_db()
    assert cast.experts[1].is_active
