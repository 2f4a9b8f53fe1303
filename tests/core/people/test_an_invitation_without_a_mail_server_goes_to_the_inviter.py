"""Without a mail server (EMAIL_URL unset, "none" or console://) an invitation says so, and its link goes to the inviting admin once.

The pages never claim an e-mail was sent; the link is in the one answer to the admin who made the
invitation (page, API or command), never in a list, a later page, the session or a message.
"""

import io
import re

import pytest
from django.contrib.admin.models import LogEntry
from django.core import mail
from django.core.management import call_command

from heartbench_core.models import User

pytestmark = pytest.mark.django_db

NONE = "django.core.mail.backends.dummy.EmailBackend"
CONSOLE = "django.core.mail.backends.console.EmailBackend"
LINK = re.compile(r"https?://[^/\s\"<]+(/accounts/invite/[^\s\"<]+/)")
NEW_PASSWORD = "a-long-and-unusual-passphrase-42"


@pytest.fixture(params=[NONE, CONSOLE], ids=["none", "console"])
def no_mail_server(request, settings):
    settings.EMAIL_BACKEND = request.param
    return request.param


def invite(client, *, confirm=True):
    data = {"email": "nora@example.org", "username": "nora", "roles": ["expert"]}
    if confirm:
        data["confirm"] = "1"
    return client.post("/people/invite/", data)


def the_link(response) -> str:
    found = LINK.search(response.content.decode())
    assert found, response.content.decode()
    return found.group(1)


def test_the_invite_page_and_its_confirmation_say_no_e_mail_will_be_sent(client_for, cast, no_mail_server):
    admin = client_for(cast.admin)
    form = admin.get("/people/invite/")
    assert b"No mail server is configured, so no e-mail will be sent." in form.content
    assert b"They get an e-mail" not in form.content
    confirm = invite(admin, confirm=False)
    assert b"no e-mail is sent: the next page shows the one-time link" in confirm.content
    assert b"Make the invitation" in confirm.content and b"Send the invitation" not in confirm.content


def test_confirming_shows_the_link_to_the_inviter_once_and_it_lets_them_set_a_password(client, client_for, cast, no_mail_server, capsys):
    admin = client_for(cast.admin)
    response = invite(admin)
    user = User.objects.get(username="nora")
    assert response.status_code == 200  # the answer itself, not a redirect: the link is in no URL
    assert b"No e-mail was sent: give them this link yourself" in response.content
    assert b"Invitation sent" not in response.content
    assert "no-store" in response["Cache-Control"]
    link = the_link(response)
    token = link.rstrip("/").rsplit("/", 1)[-1]
    # Nowhere else: not on the person's page later, the list, the API, the session, a cookie or the change log.
    for later in [
        admin.get(f"/people/{user.pk}/"),
        admin.get("/people/"),
        admin.get("/api/v1/people/"),
        admin.get(f"/api/v1/people/{user.pk}/"),
    ]:
        assert later.status_code == 200 and token.encode() not in later.content
    assert b"Invitation sent" not in admin.get(f"/people/{user.pk}/").content
    assert token not in str(dict(admin.session)) and token not in str(admin.cookies)
    assert not LogEntry.objects.filter(change_message__contains=token).exists()
    entry = LogEntry.objects.get(object_id=str(user.pk), change_message__startswith="people.invite:")
    assert "not e-mailed (no mail server): the link was shown to the inviter" in entry.change_message
    printed = capsys.readouterr().out
    assert (token in printed) == (no_mail_server == CONSOLE)  # console:// prints messages, for development; none drops them
    assert mail.outbox == []
    client.logout()
    page = client.get(link, follow=True)
    assert b"Choose a password for <strong>nora</strong>" in page.content
    done = client.post(page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and User.objects.get(username="nora").check_password(NEW_PASSWORD)


def test_a_new_link_is_shown_to_the_admin_who_asks_and_the_earlier_one_dies(client, client_for, cast, no_mail_server):
    admin = client_for(cast.admin)
    first = the_link(invite(admin))
    user = User.objects.get(username="nora")
    page = admin.get(f"/people/{user.pk}/")
    assert b"Make a new invitation link" in page.content and b"Send a new invitation" not in page.content
    confirm = admin.post(f"/people/{user.pk}/resend-invite/")
    assert b"Make a new invitation link for nora?" in confirm.content
    response = admin.post(f"/people/{user.pk}/resend-invite/", {"confirm": "1"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    assert b"A new invitation was sent" not in response.content
    second = the_link(response)
    assert second != first
    client.logout()
    assert b"This invitation link does not work" in client.get(first, follow=True).content
    assert b"Choose a password" in client.get(second, follow=True).content


def test_the_api_answers_the_link_to_the_inviting_call_only(client_for, cast, no_mail_server):
    admin = client_for(cast.admin)
    response = admin.post("/api/v1/people/", {"email": "nora@example.org", "roles": ["expert"]}, content_type="application/json")
    assert response.status_code == 201 and "no-store" in response["Cache-Control"]
    link = response.json()["invite_link"]
    assert LINK.match(link)
    token = link.rstrip("/").rsplit("/", 1)[-1]
    user_id = response.json()["id"]
    assert token not in admin.get("/api/v1/people/").content.decode()
    assert token not in admin.get(f"/api/v1/people/{user_id}/").content.decode()
    again = admin.post(f"/api/v1/people/{user_id}/resend-invite/")
    assert again.status_code == 200 and LINK.match(again.json()["invite_link"]) and again.json()["invite_link"] != link


def test_with_a_mail_server_the_api_answers_no_link(client_for, cast):
    # The test settings' outbox stands for a mail server.
    response = client_for(cast.admin).post(
        "/api/v1/people/", {"email": "nora@example.org", "roles": ["expert"]}, content_type="application/json"
    )
    assert response.status_code == 201 and response.json()["invite_link"] == ""
    assert len(mail.outbox) == 1


def test_the_command_prints_the_link_for_the_operator(no_mail_server, capsys):
    out = io.StringIO()
    call_command("create_user", "nora", "--email", "nora@example.org", "--invite", "--site-url", "https://hb.example.org", stdout=out)
    text = out.getvalue()
    assert "No mail server is configured (EMAIL_URL), so no e-mail was sent" in text
    assert "sent an invitation" not in text
    assert re.search(r"^https://hb\.example\.org/accounts/invite/\S+/$", text, re.MULTILINE)
