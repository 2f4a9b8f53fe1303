"""`manage.py check --deploy` passes with the production settings."""

import os
import secrets
import subprocess
import sys

from django.conf import settings


def deploy_check(**env):
    full = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"}}
    full.update({"DJANGO_SETTINGS_MODULE": "heartbench_core.settings", **env})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--tag", "security"],
        cwd=settings.BASE_DIR,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check():
    result = deploy_check(PRODUCTION="1", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="validation.example.org")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "security.W" not in result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_development_settings_fail_the_deploy_check_so_the_check_has_teeth():
    result = deploy_check(PRODUCTION="0")
    assert "security.W004" in result.stdout + result.stderr  # no HSTS
    assert "security.W012" in result.stdout + result.stderr  # session cookie not secure


def test_production_refuses_to_start_without_a_secret_key():
    result = deploy_check(PRODUCTION="1", SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_settings_turn_on_https_cookies_and_hsts():
    snippet = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS >= 31536000, s.SECURE_REFERRER_POLICY)"
    )
    env = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECURE_SSL_REDIRECT"}}
    env.update(DJANGO_SETTINGS_MODULE="heartbench_core.settings", PRODUCTION="1", SECRET_KEY=secrets.token_urlsafe(50))
    result = subprocess.run([sys.executable, "-c", snippet], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True)
    assert result.stdout.split() == ["False", "True", "True", "True", "True", "same-origin"], result.stderr
