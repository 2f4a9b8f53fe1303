"""Users restored from a campaign archive have no usable password; the admin gets a reset link per user to send."""

import csv
import io

import pytest
from django.core.management import call_command

from heartbench_core.models import User
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("archive_key")]


@pytest.fixture
def restored(cast, tmp_path):
    build_world(cast)
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    User.objects.create_user("erin_expert2", password="kept-password-1")  # already here before the restore
    out = io.StringIO()
    links = tmp_path / "links.csv"
    call_command(
        "import_campaign",
        str(archive),
        "--site-url",
        "https://hb.example.org/",
        "--reset-links",
        str(links),
        "--map-user",
        "erin_expert2=erin_expert2",  # the operator confirms it is the same person
        stdout=out,
        verbosity=0,
    )
    return out.getvalue(), list(csv.DictReader(links.open(encoding="utf-8")))


def test_new_users_get_an_unusable_password_and_mapped_ones_keep_theirs(restored):
    assert not User.objects.get(username="erin_expert1").has_usable_password()
    assert User.objects.get(username="erin_expert2").check_password("kept-password-1")


def test_the_command_prints_and_writes_one_link_per_new_user(restored):
    printed, rows = restored
    names = {row["username"] for row in rows}
    assert "erin_expert1" in names and "erin_expert2" not in names
    for row in rows:
        assert row["reset_link"].startswith("https://hb.example.org/accounts/reset/")
        assert row["reset_link"] in printed
    assert (
        "Attached to existing accounts, as you confirmed (their password, roles and expert profile unchanged): erin_expert2 → erin_expert2"
        in printed
    )


def test_a_link_sets_the_password_and_the_user_signs_in(restored, client):
    _, rows = restored
    link = next(r["reset_link"] for r in rows if r["username"] == "erin_expert1").removeprefix("https://hb.example.org")
    form = client.get(link, follow=True)
    assert form.status_code == 200
    assert b"Set your password" in form.content
    set_password_url = form.redirect_chain[-1][0]
    done = client.post(set_password_url, {"new_password1": "A-new-passphrase-77", "new_password2": "A-new-passphrase-77"})
    assert done.status_code == 302
    assert User.objects.get(username="erin_expert1").check_password("A-new-passphrase-77")
    assert client.login(username="erin_expert1", password="A-new-passphrase-77")
    # The link was for one use: it no longer opens the form.
    client.logout()
    again = client.get(link, follow=True)
    assert b"new_password1" not in again.content and b"This link does not work" in again.content
