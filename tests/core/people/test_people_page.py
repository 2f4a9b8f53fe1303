"""The People page: every user with roles, status and last login, filtered by role or status, paginated, for admins only."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from heartbench_core.models import User
from heartbench_core.people.views import PAGE_SIZE
from heartbench_core.roles import Role
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def rows(response) -> list[str]:
    return [p.user.username for p in response.context["rows"]]


def test_it_lists_everyone_with_roles_status_and_last_login(client_for, cast):
    cast.reviewer.last_login = timezone.now()
    cast.reviewer.save()
    invited = User.objects.create(username="ivy_invited", email="ivy@example.org")
    invited.set_unusable_password()
    invited.save()
    gone = make_user("gus_gone", is_active=False)
    response = client_for(cast.admin).get("/people/")
    assert response.status_code == 200
    assert set(rows(response)) == {u.username for u in [*cast.everyone, invited, gone]}
    by_name = {p.user.username: p for p in response.context["rows"]}
    assert by_name["ivy_invited"].status == "invited" and by_name["gus_gone"].status == "inactive"
    assert by_name["alice_admin"].status == "active"
    text = response.content.decode()
    assert "Rubric author" in text and "Senior reviewer" in text and "Inactive" in text and "No password yet" in text
    assert "never" in text


def test_it_filters_by_role(client_for, cast):
    root = make_user("root", is_superuser=True)
    client = client_for(cast.admin)
    assert set(rows(client.get("/people/?role=expert"))) == {e.username for e in cast.experts} | {root.username}
    assert set(rows(client.get("/people/?role=senior_reviewer"))) == {r.username for r in cast.reviewers} | {root.username}
    assert rows(client.get("/people/?role=none")) == [cast.outsider.username]


def test_it_filters_by_status(client_for, cast):
    make_user("gus_gone", is_active=False)
    assert rows(client_for(cast.admin).get("/people/?status=inactive")) == ["gus_gone"]


def test_an_unknown_filter_value_is_a_400_naming_it(client_for, cast):
    response = client_for(cast.admin).get("/people/?role=wizard")
    assert response.status_code == 400
    assert b"Role: Select a valid choice" in response.content


def test_it_is_paginated(client_for, cast):
    User.objects.bulk_create([User(username=f"zz_person{i:03d}", email=f"p{i}@example.org") for i in range(PAGE_SIZE + 5)])
    client = client_for(cast.admin)
    first = client.get("/people/")
    assert len(rows(first)) == PAGE_SIZE and b"page=2" in first.content
    second = client.get("/people/?page=2")
    assert len(rows(second)) == len(cast.everyone) + 5


def test_the_list_takes_a_fixed_number_of_queries(client_for, cast):
    client = client_for(cast.admin)
    client.get("/people/")

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/people/").status_code == 200
        return len(queries)

    before = count()
    User.objects.bulk_create([User(username=f"zz_person{i:03d}") for i in range(30)])
    # The page's own: count, page of users (with their last invitation), their role groups; none per user.
    assert count() == before


def test_an_htmx_request_gets_the_table_only(client_for, cast):
    response = client_for(cast.admin).get("/people/?role=expert", headers={"HX-Request": "true"})
    assert response.status_code == 200 and b"<html" not in response.content and b"erin_expert1" in response.content


def test_a_person_page_shows_their_roles_and_actions(client_for, cast):
    response = client_for(cast.admin).get(f"/people/{cast.expert.pk}/")
    assert response.status_code == 200
    text = response.content.decode()
    assert f'action="/people/{cast.expert.pk}/deactivate/"' in text
    assert 'value="expert" id="id_roles_3" checked' in text or 'value="expert" checked' in text or "checked" in text


def test_on_their_own_page_an_admin_is_told_what_they_cannot_do(client_for, cast):
    text = client_for(cast.admin).get(f"/people/{cast.admin.pk}/").content.decode()
    assert "You cannot deactivate yourself." in text and "/deactivate/" not in text


def test_the_admin_navigation_links_the_page(client_for, cast):
    assert b'href="/people/"' in client_for(cast.admin).get("/datasets/").content
    assert b'href="/people/"' not in client_for(cast.author).get("/datasets/").content


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_it_is_closed_to_everyone_but_admins(client_for, cast, who):
    client = client_for(getattr(cast, who))
    assert client.get("/people/").status_code == 403
    assert client.get(f"/people/{cast.admin.pk}/").status_code == 403


def test_anonymous_visitors_go_to_the_login_page(client):
    response = client.get("/people/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_admin_who_is_also_an_expert_sees_people_but_nothing_of_any_campaign(client_for, cast):
    from .helpers import campaign_with_open_work

    campaign, _open, _expired, _others = campaign_with_open_work(cast)
    both = make_user("dana_dual", Role.ADMIN, Role.EXPERT, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
    client = client_for(both)
    for path in ("/people/", f"/people/{cast.expert.pk}/", f"/people/{both.pk}/", "/api/v1/people/"):
        response = client.get(path)
        assert response.status_code == 200, path
        text = response.content.decode().lower()
        assert campaign.name.lower() not in text and "demo-model" not in text and "gold" not in text, path
