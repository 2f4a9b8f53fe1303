"""An admin invites someone by e-mail: confirm, then a user without a password and a one-time link to set one."""

from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.core import mail

from annotation.models import ExpertProfile
from heartbench_core.models import User
from heartbench_core.people.tokens import InviteTokenGenerator
from heartbench_core.roles import Role, roles_of

from .helpers import last_link

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-and-unusual-passphrase-42"


def invite(client, *, confirm=True, **fields):
    data = {"email": "nora@example.org", "roles": ["expert"], **fields}
    if confirm:
        data["confirm"] = "1"
    return client.post("/people/invite/", data)


def test_the_first_post_asks_to_confirm_and_creates_nobody(client_for, cast):
    response = invite(client_for(cast.admin), confirm=False)
    assert response.status_code == 200
    assert b"Invite nora@example.org?" in response.content
    assert b'name="confirm"' in response.content
    assert not User.objects.filter(email="nora@example.org").exists()
    assert mail.outbox == []


def test_confirming_creates_an_invited_expert_and_sends_the_link(client_for, cast):
    response = invite(client_for(cast.admin))
    user = User.objects.get(email="nora@example.org")
    assert response.status_code == 302 and response["Location"] == f"/people/{user.pk}/"
    assert user.username == "nora@example.org"  # no username given: the e-mail address
    assert not user.has_usable_password() and user.is_active and user.last_login is None
    assert roles_of(user) == {Role.EXPERT}
    assert ExpertProfile.objects.filter(user=user).exists()  # the expert role brings the profile
    [message] = mail.outbox
    assert message.to == ["nora@example.org"]
    assert "/accounts/invite/" in message.body and "alice_admin" in message.body
    assert message.alternatives and "/accounts/invite/" in message.alternatives[0][0]
    page = client_for(cast.admin).get(f"/people/{user.pk}/")
    assert b"Invitation sent to nora@example.org" in page.content
    assert b"Invited, not yet accepted" in page.content
    assert LogEntry.objects.filter(object_id=str(user.pk), user=cast.admin, change_message__startswith="people.invite").exists()


def test_the_invitee_sets_a_password_signs_in_and_the_link_dies(client, client_for, cast):
    invite(client_for(cast.admin), username="nora")
    client.logout()
    link = last_link()
    page = client.get(link, follow=True)
    assert page.status_code == 200 and b"Choose a password for <strong>nora</strong>" in page.content
    done = client.post(page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/"
    user = User.objects.get(username="nora")
    assert user.check_password(NEW_PASSWORD)
    assert client.get("/work/").status_code == 200  # signed in, as an expert
    client.logout()
    again = client.get(link, follow=True)
    assert b"This invitation link does not work" in again.content


def test_a_password_the_validators_refuse_is_an_error_on_the_field(client, client_for, cast):
    invite(client_for(cast.admin))
    client.logout()
    page = client.get(last_link(), follow=True)
    response = client.post(page.redirect_chain[-1][0], {"new_password1": "123", "new_password2": "123"})
    assert response.status_code == 200 and b'role="alert"' in response.content
    assert not User.objects.get(email="nora@example.org").has_usable_password()


def test_a_re_sent_invitation_replaces_the_earlier_link(client, client_for, cast):
    admin = client_for(cast.admin)
    invite(admin)
    first = last_link()
    user = User.objects.get(email="nora@example.org")
    confirm = admin.post(f"/people/{user.pk}/resend-invite/")
    assert b"Send a new invitation to" in confirm.content and len(mail.outbox) == 1
    admin.post(f"/people/{user.pk}/resend-invite/", {"confirm": "1"})
    assert len(mail.outbox) == 2
    second = last_link()
    client.logout()
    assert b"This invitation link does not work" in client.get(first, follow=True).content
    assert b"Choose a password" in client.get(second, follow=True).content


def test_an_expired_link_does_not_work(client, client_for, cast, settings):
    invite(client_for(cast.admin))
    client.logout()
    later = InviteTokenGenerator()._num_seconds(InviteTokenGenerator()._now()) + settings.INVITE_LINK_TIMEOUT + 60
    with mock.patch.object(InviteTokenGenerator, "_num_seconds", return_value=later):
        assert b"This invitation link does not work" in client.get(last_link(), follow=True).content


def test_the_link_lives_as_long_as_the_setting_says_not_djangos_reset_timeout(client, client_for, cast, settings):
    settings.PASSWORD_RESET_TIMEOUT = 60
    settings.INVITE_LINK_TIMEOUT = int(timedelta(days=7).total_seconds())
    invite(client_for(cast.admin))
    client.logout()
    later = InviteTokenGenerator()._num_seconds(InviteTokenGenerator()._now()) + 3 * 86400
    with mock.patch.object(InviteTokenGenerator, "_num_seconds", return_value=later):
        assert b"Choose a password" in client.get(last_link(), follow=True).content


def test_deactivating_the_invitee_kills_the_link_even_after_reactivation(client, client_for, cast):
    admin = client_for(cast.admin)
    invite(admin)
    link = last_link()
    user = User.objects.get(email="nora@example.org")
    admin.post(f"/people/{user.pk}/deactivate/", {"confirm": "1"})
    admin.post(f"/people/{user.pk}/reactivate/", {"confirm": "1"})
    client.logout()
    assert b"This invitation link does not work" in client.get(link, follow=True).content


def test_the_email_is_in_the_language_chosen_for_the_invitee(client_for, cast):
    invite(client_for(cast.admin), language="zh-hans")
    user = User.objects.get(email="nora@example.org")
    assert user.language == "zh-hans"
    assert 'lang="zh-hans"' in mail.outbox[-1].alternatives[0][0]


def test_without_a_chosen_language_the_email_follows_the_inviter(client_for, cast):
    cast.admin.language = "zh-hans"
    cast.admin.save()
    invite(client_for(cast.admin))
    assert User.objects.get(email="nora@example.org").language == ""
    assert 'lang="zh-hans"' in mail.outbox[-1].alternatives[0][0]


@pytest.mark.parametrize(
    "fields, field, message",
    [
        ({"email": "not-an-address"}, "email", b"Enter a valid email address."),
        ({"email": "ERIN_EXPERT1@example.org"}, "email", b"already exists"),
        ({"username": "erin_expert1"}, "username", b"A user named erin_expert1 already exists."),
        ({"username": "no spaces allowed"}, "username", b"Enter a valid username"),
        ({"roles": ["wizard"]}, "roles", b"Select a valid choice"),
    ],
)
def test_bad_input_is_an_error_naming_the_field(client_for, cast, fields, field, message):
    response = invite(client_for(cast.admin), **fields)
    assert response.status_code == 400
    assert message in response.content
    assert mail.outbox == []
    assert User.objects.count() == len(cast.everyone)


def test_a_mail_server_that_fails_leaves_nobody_behind(client_for, cast):
    with mock.patch("django.core.mail.EmailMultiAlternatives.send", side_effect=OSError("connection refused")):
        response = invite(client_for(cast.admin))
    assert response.status_code == 400
    assert b"The invitation could not be sent (connection refused)" in response.content
    assert not User.objects.filter(email="nora@example.org").exists()


@pytest.mark.parametrize("who", ["author", "reviewer", "expert", "outsider"])
def test_only_admins_invite(client_for, cast, who):
    assert invite(client_for(getattr(cast, who))).status_code == 403
    assert client_for(getattr(cast, who)).get("/people/invite/").status_code == 403
    assert not User.objects.filter(email="nora@example.org").exists()


def test_a_username_taken_at_the_same_moment_is_an_error_on_the_field_not_a_500(cast):
    from django.core.exceptions import ValidationError

    from heartbench_core.people import services

    real_new_user = services._new_user

    def checked_before_the_other_request_saved(**kwargs):
        user = real_new_user(**kwargs)
        User.objects.create(username=user.username, email="other@example.org")  # the other request wins the race
        return user

    with (
        mock.patch.object(services, "_new_user", side_effect=checked_before_the_other_request_saved),
        pytest.raises(ValidationError) as failure,
    ):
        services.invite_user(email="nora@example.org", roles=["expert"], by=cast.admin, base_url="http://testserver/")
    assert "already exists" in failure.value.message_dict["username"][0]
    assert mail.outbox == []
