"""Login lockouts and throttles count in a cache every process shares, with or without Redis.

With a per-process cache and gunicorn's 4 workers, 6 wrong passwords and then the right one
logged in: each worker counted its own failures. Without `REDIS_URL` the project now uses
Django's database cache; two separate processes must see one count.
"""

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

RECORD = """
import sys, django
django.setup()
from django.core.management import call_command
from django.test import RequestFactory
from heartbench_core.throttling import login_locked, record_login_failure
call_command("createcachetable", verbosity=0)
request = RequestFactory().post("/accounts/login/", REMOTE_ADDR="10.9.8.7")
for _ in range(int(sys.argv[2])):
    record_login_failure(request, sys.argv[1])
print("locked" if login_locked(request, sys.argv[1]) else "open")
"""


def _environment(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PRODUCTION")}
    env["DJANGO_SETTINGS_MODULE"] = "heartbench_core.settings"
    if not env.get("DATABASE_URL", "").startswith("postgres"):
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    return env


def _python(env, *args) -> str:
    result = subprocess.run([sys.executable, *args], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_without_redis_the_default_cache_is_the_database_cache(tmp_path):
    env = _environment(tmp_path)
    out = _python(
        env, "-c", "import django; django.setup(); from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    )
    assert out == "django.core.cache.backends.db.DatabaseCache"


@pytest.mark.django_db(transaction=True)
def test_migrate_creates_the_cache_table_whatever_the_cache_of_the_moment():
    with connection.schema_editor() as editor:
        editor.execute(f"DROP TABLE {settings.CACHE_TABLE}")
    call_command("migrate", verbosity=0)
    assert settings.CACHE_TABLE in connection.introspection.table_names()


def test_two_processes_share_one_count_of_wrong_passwords(tmp_path):
    env = _environment(tmp_path)
    username = f"erin-{uuid.uuid4().hex[:8]}"
    limit = settings.LOGIN_FAILURES_PER_USER
    # The first process sees limit - 1 failures: not yet locked.
    assert _python(env, "-c", RECORD, username, str(limit - 1)) == "open"
    # A second process adds one failure and sees the lockout the two reached together.
    assert _python(env, "-c", RECORD, username, "1") == "locked"
