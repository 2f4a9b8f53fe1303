"""Fixtures of the reliability tests."""

import os
import random

import pytest


@pytest.fixture
def redis_db():
    """(url, client) of a local Redis database picked at random: skipped when Redis is unreachable, except on CI.

    Tests share the server with whatever else runs there: they write under a prefix of their own
    and delete only those keys, never flushing a database.
    """
    import redis

    base = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379").rstrip("/")
    url = f"{base}/{random.randint(1, 15)}"
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"Redis at {url} is unreachable on CI: {exc}")
        pytest.skip(f"Redis at {url} is unreachable: {exc}")
    return url, client
