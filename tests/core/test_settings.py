"""A bad environment value stops the process with a message naming the variable."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

SNIPPET = "import django; django.setup(); from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"


def run(**env):
    full = {**os.environ, "DJANGO_SETTINGS_MODULE": "heartbench_core.settings", **env}
    return subprocess.run([sys.executable, "-c", SNIPPET], cwd=settings.BASE_DIR, env=full, capture_output=True, text=True)


@pytest.mark.parametrize(
    "env,message",
    [
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"DATABASE_URL": "mysql://x/y"}, "unsupported database scheme 'mysql'"),
        ({"REDIS_URL": "http://localhost"}, "REDIS_URL='http://localhost' has scheme 'http'"),
        ({"Q_WORKERS": "two"}, "Q_WORKERS='two' is not an integer"),
        ({"PRODUCTION": "1", "SECRET_KEY": ""}, "SECRET_KEY must be set"),
    ],
)
def test_a_bad_value_raises_improperly_configured(env, message):
    result = run(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_the_defaults_give_a_working_sqlite_install(tmp_path):
    result = run(DATABASE_URL="", VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.db.backends.sqlite3"


def test_postgres_urls_are_accepted():
    result = run(DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.db.backends.postgresql"


def test_redis_url_switches_the_broker_and_cache():
    snippet = "import django; django.setup(); from django.conf import settings; print(sorted(settings.Q_CLUSTER)); print(settings.CACHES['default']['BACKEND'])"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "heartbench_core.settings", "REDIS_URL": "redis://127.0.0.1:6379/0"}
    result = subprocess.run([sys.executable, "-c", snippet], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True)
    assert "'redis'" in result.stdout and "RedisCache" in result.stdout
    env.pop("REDIS_URL")
    result = subprocess.run([sys.executable, "-c", snippet], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True)
    assert "'orm'" in result.stdout
