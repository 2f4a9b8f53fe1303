"""`manage.py create_user`: a user with roles for scripts, with a password from the environment or an invitation."""

import io

import pytest
from django.contrib.admin.models import LogEntry
from django.core import mail
from django.core.management import CommandError, call_command

from annotation.models import ExpertProfile
from heartbench_core.models import User
from heartbench_core.roles import Role, roles_of

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-and-unusual-passphrase-42"


def run(*args, **env):
    out = io.StringIO()
    call_command("create_user", *args, stdout=out)
    return out.getvalue()


def test_it_creates_a_user_with_roles_and_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("NEW_PASSWORD", PASSWORD)
    out = run("nora", "--email", "nora@example.org", "--role", "expert", "--role", "admin", "--password-from-env", "NEW_PASSWORD")
    user = User.objects.get(username="nora")
    assert user.check_password(PASSWORD) and user.email == "nora@example.org"
    assert roles_of(user) == {Role.EXPERT, Role.ADMIN}
    assert ExpertProfile.objects.filter(user=user).exists()
    assert "Created nora (admin, expert) with the password from NEW_PASSWORD." in out
    assert PASSWORD not in out
    assert LogEntry.objects.filter(object_id=str(user.pk), change_message__contains="from the command line").exists()


def test_invite_sends_the_link_in_the_chosen_language():
    out = run(
        "nora",
        "--email",
        "nora@example.org",
        "--role",
        "expert",
        "--invite",
        "--language",
        "zh-hans",
        "--site-url",
        "https://hb.example.org",
    )
    user = User.objects.get(username="nora")
    assert not user.has_usable_password() and user.language == "zh-hans"
    [message] = mail.outbox
    assert "https://hb.example.org/accounts/invite/" in message.body
    assert 'lang="zh-hans"' in message.alternatives[0][0]
    assert "sent an invitation to nora@example.org" in out


@pytest.mark.parametrize(
    "args, named",
    [
        (["nora", "--email", "nora@example.org", "--role", "wizard", "--invite"], "--role"),
        (["erin", "--email", "ERIN_EXPERT1@example.org", "--invite"], "--email"),
        (["erin_expert1", "--email", "new@example.org", "--invite"], "USERNAME"),
        (["nora", "--email", "not-an-address", "--invite"], "--email"),
        (["nora", "--email", "nora@example.org", "--invite", "--language", "fr"], "--language"),
        (["nora", "--email", "nora@example.org", "--password-from-env", "HB_TEST_UNSET_VARIABLE"], "--password-from-env"),
    ],
)
def test_bad_arguments_fail_naming_the_argument_and_write_nothing(cast, args, named):
    before = User.objects.count()
    with pytest.raises(CommandError) as failure:
        run(*args)
    assert named in str(failure.value)
    assert User.objects.count() == before and mail.outbox == []


def test_a_weak_password_is_refused(monkeypatch):
    monkeypatch.setenv("NEW_PASSWORD", "12345")
    with pytest.raises(CommandError, match="--password-from-env"):
        run("nora", "--email", "nora@example.org", "--password-from-env", "NEW_PASSWORD")
    assert not User.objects.filter(username="nora").exists()


def test_it_needs_a_password_or_an_invitation():
    with pytest.raises(CommandError, match="--password-from-env|--invite"):
        run("nora", "--email", "nora@example.org")


def test_an_error_exits_non_zero_from_the_shell(cast):
    import subprocess
    import sys

    from django.conf import settings

    result = subprocess.run(
        [sys.executable, "manage.py", "create_user", "x", "--email", "x@example.org", "--role", "wizard", "--invite"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "--role: unknown role 'wizard'" in result.stderr
