"""Running a platform command as a process of its own, on the test's database (SQLite file or PostgreSQL)."""

import os
import time

import pytest
from django.conf import settings


def command_environment(queue_name: str) -> dict:
    """The test's own database, a queue of its own (the ORM broker) and the fake chat server's address allowed."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.postgresql":
        url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    else:
        url = f"sqlite:///{db['NAME']}"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "Q_SYNC", "Q_CLUSTER_NAME")}
    return {**env, "DATABASE_URL": url, "Q_NAME": queue_name, "ENDPOINT_ALLOWED_HOSTS": "127.0.0.1", "HEARTBENCH_LANGUAGE": "en"}


def wait_for(condition, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")
