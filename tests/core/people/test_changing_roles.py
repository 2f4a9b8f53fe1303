"""An admin changes a person's roles (confirm first); nobody removes their own admin role; a new expert gets a profile."""

import pytest
from django.contrib.admin.models import LogEntry

from annotation.models import ExpertProfile
from heartbench_core.roles import Role, roles_of

pytestmark = pytest.mark.django_db


def fresh(user):
    user.refresh_from_db()
    user._hb_roles = None
    return user


def test_the_first_post_shows_the_change_and_changes_nothing(client_for, cast):
    response = client_for(cast.admin).post(f"/people/{cast.author.pk}/roles/", {"roles": ["rubric_author", "expert"]})
    assert response.status_code == 200
    text = response.content.decode()
    assert "Roles now: Rubric author" in text and "Roles after: Rubric author, Expert" in text
    assert "expert profile" in text
    assert roles_of(fresh(cast.author)) == {Role.RUBRIC_AUTHOR}


def test_confirming_sets_exactly_the_roles_and_records_it(client_for, cast):
    client = client_for(cast.admin)
    response = client.post(f"/people/{cast.author.pk}/roles/", {"roles": ["senior_reviewer", "expert"], "confirm": "1"})
    assert response.status_code == 302
    assert roles_of(fresh(cast.author)) == {Role.SENIOR_REVIEWER, Role.EXPERT}
    assert ExpertProfile.objects.filter(user=cast.author).exists()
    entry = LogEntry.objects.get(object_id=str(cast.author.pk), change_message__startswith="people.roles")
    assert entry.user == cast.admin and entry.change_message == "people.roles: rubric_author -> senior_reviewer,expert"
    page = client.get(response["Location"])
    assert b"The roles of rita_author are now: Senior reviewer, Expert." in page.content


def test_removing_every_role_leaves_a_user_without_access(client_for, cast):
    client_for(cast.admin).post(f"/people/{cast.expert.pk}/roles/", {"confirm": "1"})
    assert roles_of(fresh(cast.expert)) == frozenset()


def test_an_admin_cannot_remove_their_own_admin_role(client_for, cast):
    client = client_for(cast.admin)
    response = client.post(f"/people/{cast.admin.pk}/roles/", {"roles": ["expert"], "confirm": "1"}, follow=True)
    assert b"You cannot remove your own admin role; ask another admin to do it." in response.content
    assert roles_of(fresh(cast.admin)) == {Role.ADMIN}


def test_an_admin_may_add_roles_to_themself(client_for, cast):
    client_for(cast.admin).post(f"/people/{cast.admin.pk}/roles/", {"roles": ["admin", "expert"], "confirm": "1"})
    assert roles_of(fresh(cast.admin)) == {Role.ADMIN, Role.EXPERT}


def test_an_unknown_role_is_refused_naming_it(client_for, cast):
    response = client_for(cast.admin).post(f"/people/{cast.author.pk}/roles/", {"roles": ["wizard"], "confirm": "1"}, follow=True)
    assert b"wizard" in response.content
    assert roles_of(fresh(cast.author)) == {Role.RUBRIC_AUTHOR}


def test_an_unknown_user_is_a_404(client_for, cast):
    assert client_for(cast.admin).post("/people/999999/roles/", {"roles": ["expert"]}).status_code == 404


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_change_roles(client_for, cast, who):
    response = client_for(getattr(cast, who)).post(f"/people/{cast.outsider.pk}/roles/", {"roles": ["admin"], "confirm": "1"})
    assert response.status_code == 403
    assert roles_of(fresh(cast.outsider)) == frozenset()
