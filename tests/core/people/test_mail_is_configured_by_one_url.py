"""Mail is configured by one variable, EMAIL_URL: unset sends nothing, smtp:// names a server; a bad value stops the process.

The password never appears in an error, and the variables EMAIL_URL replaced stop the process
instead of being silently ignored.
"""

import os
import subprocess
import sys

import pytest
from django.conf import settings

FIELDS = [
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
]
# The settings alone (what EMAIL_URL configures): reading one loads the settings module, not the apps.
SNIPPET = (
    "from django.conf import settings as s; "
    f"print(*[getattr(s, n) for n in {FIELDS!r}], s.DEFAULT_FROM_EMAIL, s.INVITE_LINK_TIMEOUT, sep='|')"
)
SMTP = "django.core.mail.backends.smtp.EmailBackend"


def run(**env):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("EMAIL_", "DEFAULT_FROM_EMAIL", "INVITE_LINK_DAYS"))}
    full.update(DJANGO_SETTINGS_MODULE="heartbench_core.settings", **env)
    return subprocess.run([sys.executable, "-c", SNIPPET], cwd=settings.BASE_DIR, env=full, capture_output=True, text=True)


def read(**env) -> dict[str, str]:
    result = run(**env)
    assert result.returncode == 0, result.stderr
    values = result.stdout.strip().split("|")
    return dict(zip([*FIELDS, "DEFAULT_FROM_EMAIL", "INVITE_LINK_TIMEOUT"], values, strict=True))


@pytest.mark.parametrize("value", [None, "", "none", "NONE"])
def test_without_a_mail_url_nothing_is_sent(value):
    got = read(**({} if value is None else {"EMAIL_URL": value}))
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.dummy.EmailBackend" and got["EMAIL_HOST"] == ""
    assert got["DEFAULT_FROM_EMAIL"] == "HeartBench <noreply@localhost>" and got["INVITE_LINK_TIMEOUT"] == str(7 * 86400)


def test_console_prints_messages():
    assert read(EMAIL_URL="console://")["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "smtp://mailer:s3cret@smtp.example.org:587?tls=1",
            {"EMAIL_HOST": "smtp.example.org", "EMAIL_PORT": "587", "EMAIL_HOST_USER": "mailer", "EMAIL_HOST_PASSWORD": "s3cret"}
            | {"EMAIL_USE_TLS": "True", "EMAIL_USE_SSL": "False", "EMAIL_TIMEOUT": "30"},
        ),
        ("smtp://relay.internal", {"EMAIL_HOST": "relay.internal", "EMAIL_PORT": "25", "EMAIL_HOST_USER": "", "EMAIL_USE_TLS": "False"}),
        ("smtp+tls://relay.internal?timeout=10", {"EMAIL_PORT": "587", "EMAIL_USE_TLS": "True", "EMAIL_TIMEOUT": "10"}),
        ("smtp+ssl://mail.example.org", {"EMAIL_PORT": "465", "EMAIL_USE_SSL": "True", "EMAIL_USE_TLS": "False"}),
    ],
)
def test_an_smtp_server_is_read_from_one_url(url, expected):
    got = read(EMAIL_URL=url, DEFAULT_FROM_EMAIL="HeartBench <hb@example.org>", INVITE_LINK_DAYS="3")
    assert got["EMAIL_BACKEND"] == SMTP
    assert {k: got[k] for k in expected} == expected
    assert got["DEFAULT_FROM_EMAIL"] == "HeartBench <hb@example.org>" and got["INVITE_LINK_TIMEOUT"] == str(3 * 86400)


def test_a_user_and_password_are_percent_decoded():
    got = read(EMAIL_URL="smtp+ssl://a%40b.org:p%40ss%3Aw%2Fd@mail.example.org")
    assert (got["EMAIL_HOST_USER"], got["EMAIL_HOST_PASSWORD"], got["EMAIL_HOST"]) == ("a@b.org", "p@ss:w/d", "mail.example.org")


@pytest.mark.parametrize(
    "env, message",
    [
        ({"EMAIL_URL": "smtps://u:hunter2@mail.example.org"}, "EMAIL_URL='smtps://u:***@mail.example.org' is not a mail URL"),
        ({"EMAIL_URL": "smtp://u:hunter2@mail.example.org:port"}, "the port is not a number"),
        ({"EMAIL_URL": "smtp://u:hunter2@:25"}, "names no mail server"),
        ({"EMAIL_URL": "smtp://u:hunter2@mail.example.org?tls=maybe"}, "tls='maybe' is not a boolean"),
        ({"EMAIL_URL": "smtp://u:hunter2@mail.example.org?ssl=1"}, "unknown option 'ssl'"),
        ({"EMAIL_URL": "smtp+ssl://u:hunter2@mail.example.org?tls=1"}, "exclude each other"),
        ({"EMAIL_URL": "smtp://u:hunter2@mail.example.org?timeout=soon"}, "timeout='soon' is not a number of seconds"),
        ({"EMAIL_URL": "console://u:hunter2@mail.example.org"}, "is not a mail URL"),
        ({"EMAIL_URL": "u:hunter2@mail.example.org"}, "EMAIL_URL='u:***@mail.example.org' is not a mail URL"),
        ({"EMAIL_URL": "smtp://u:hunt/er2@mail.example.org"}, "EMAIL_URL='smtp://u:***@mail.example.org'"),
        ({"EMAIL_HOST": "smtp.example.org"}, "EMAIL_HOST is no longer read: set EMAIL_URL instead"),
        ({"EMAIL_HOST_PASSWORD": "hunter2"}, "EMAIL_HOST_PASSWORD is no longer read"),
        ({"DEFAULT_FROM_EMAIL": "HeartBench"}, "DEFAULT_FROM_EMAIL='HeartBench' is not an e-mail address"),
        ({"INVITE_LINK_DAYS": "a week"}, "INVITE_LINK_DAYS='a week' is not an integer"),
        ({"SITE_URL": "ftp://example.org"}, "SITE_URL='ftp://example.org' has scheme 'ftp'"),
    ],
)
def test_a_bad_value_stops_the_process_naming_the_variable_and_never_the_password(env, message):
    result = run(**env)
    assert result.returncode != 0 and "ImproperlyConfigured" in result.stderr
    assert message in result.stderr
    assert "hunter2" not in result.stderr + result.stdout


def test_no_endpoint_may_name_the_mail_url_as_its_key_variable():
    result = run(ENDPOINT_KEY_VARIABLES="EMAIL_URL")
    assert result.returncode != 0 and "EMAIL_URL is the platform's own secret" in result.stderr
