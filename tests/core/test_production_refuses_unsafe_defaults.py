"""PRODUCTION=1 refuses what only a development machine may have: no or a weak SECRET_KEY (whatever DEBUG says), and the demo seed."""

import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import override_settings

from heartbench_core.models import Dataset, User

SNIPPET = "import django; django.setup(); print('started')"


def start(**env):
    full = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "PRODUCTION")}
    full.update(DJANGO_SETTINGS_MODULE="heartbench_core.settings", **env)
    return subprocess.run([sys.executable, "-c", SNIPPET], cwd=settings.BASE_DIR, env=full, capture_output=True, text=True)


@pytest.mark.parametrize("debug", ["0", "1"])
def test_production_without_a_secret_key_refuses_to_start_whatever_debug_says(debug):
    result = start(PRODUCTION="1", DEBUG=debug)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be set when PRODUCTION=1." in result.stderr


@pytest.mark.parametrize(
    "key",
    [settings.DEVELOPMENT_SECRET_KEY, "short-key", "a" * 60, "django-insecure-" + secrets.token_urlsafe(50)],
    ids=["the public development key", "too short", "too few characters", "django's insecure prefix"],
)
def test_production_with_a_weak_secret_key_refuses_to_start(key):
    result = start(PRODUCTION="1", SECRET_KEY=key, DEBUG="1")
    assert result.returncode != 0
    assert "SECRET_KEY is too weak for PRODUCTION=1" in result.stderr


def test_production_with_a_strong_secret_key_starts():
    result = start(PRODUCTION="1", SECRET_KEY=secrets.token_urlsafe(50))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "started"


@pytest.mark.django_db
def test_seed_demo_refuses_under_production_and_creates_no_superuser():
    with override_settings(PRODUCTION=True), pytest.raises(CommandError, match="refuses to run with PRODUCTION=1"):
        call_command("seed_demo")
    assert not User.objects.filter(username="admin").exists()
    assert not Dataset.objects.exists()
