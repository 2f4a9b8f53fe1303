"""E-mail is printed on the console by default and goes through SMTP when EMAIL_HOST is set; bad values stop the process."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

SNIPPET = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS, s.EMAIL_HOST_USER, s.DEFAULT_FROM_EMAIL, s.INVITE_LINK_TIMEOUT, sep='|')"
)


def run(**env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("EMAIL_", "DEFAULT_FROM_EMAIL", "INVITE_LINK_DAYS"))}
    full.update(DJANGO_SETTINGS_MODULE="heartbench_core.settings", **env)
    return subprocess.run([sys.executable, "-c", SNIPPET], cwd=settings.BASE_DIR, env=full, capture_output=True, text=True)


def test_without_a_mail_server_messages_go_to_the_console():
    result = run()
    assert result.returncode == 0, result.stderr
    backend, host, port, tls, _user, sender, lifetime = result.stdout.strip().split("|")
    assert backend == "django.core.mail.backends.console.EmailBackend" and host == ""
    assert (port, tls) == ("25", "False")
    assert sender == "HeartBench <noreply@localhost>" and lifetime == str(7 * 86400)


def test_an_smtp_server_is_read_from_the_environment():
    result = run(
        EMAIL_HOST="smtp.example.org",
        EMAIL_USE_TLS="1",
        EMAIL_HOST_USER="mailer",
        EMAIL_HOST_PASSWORD="s3cret",
        DEFAULT_FROM_EMAIL="HeartBench <hb@example.org>",
        INVITE_LINK_DAYS="3",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|") == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.org",
        "587",
        "True",
        "mailer",
        "HeartBench <hb@example.org>",
        str(3 * 86400),
    ]


@pytest.mark.parametrize(
    "env, message",
    [
        ({"EMAIL_PORT": "smtp"}, "EMAIL_PORT='smtp' is not an integer"),
        ({"EMAIL_USE_TLS": "maybe"}, "EMAIL_USE_TLS='maybe' is not a boolean"),
        ({"DEFAULT_FROM_EMAIL": "HeartBench"}, "DEFAULT_FROM_EMAIL='HeartBench' is not an e-mail address"),
        ({"INVITE_LINK_DAYS": "a week"}, "INVITE_LINK_DAYS='a week' is not an integer"),
        ({"SITE_URL": "ftp://example.org"}, "SITE_URL='ftp://example.org' has scheme 'ftp'"),
    ],
)
def test_a_bad_value_stops_the_process_naming_the_variable(env, message):
    result = run(**env)
    assert result.returncode != 0 and "ImproperlyConfigured" in result.stderr
    assert message in result.stderr
