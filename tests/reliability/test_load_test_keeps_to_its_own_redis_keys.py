"""The load test shares Redis with whatever else runs there: it writes under a prefix of its own and
deletes only those keys, never flushing a database."""

import importlib.util
import uuid

from django.conf import settings

LOAD_TEST = settings.BASE_DIR / "benchmarks" / "load_test.py"


def load_test_module():
    spec = importlib.util.spec_from_file_location("load_test", LOAD_TEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_load_test_never_flushes_redis():
    source = LOAD_TEST.read_text().lower()
    assert "flushdb" not in source and "flushall" not in source
    assert "6379/15" not in source


def test_the_load_test_deletes_its_own_queue_and_cache_keys_and_nothing_else(redis_db):
    url, client = redis_db
    prefix, other = f"hbload-{uuid.uuid4().hex[:8]}", f"someone-else-{uuid.uuid4().hex[:8]}"
    ours = [f"django_q:{prefix}:q", f"django_q:{prefix}:cluster:abc", f"{prefix}:1:throttle_user_7"]
    theirs = [f"django_q:{other}:q", f"{other}:1:session", f"{prefix}x:1:not-ours"]
    try:
        for key in ours + theirs:
            client.set(key, "1", ex=300)
        assert load_test_module().delete_own_keys(url, prefix) == len(ours)
        assert [client.exists(k) for k in ours] == [0] * len(ours)
        assert [client.exists(k) for k in theirs] == [1] * len(theirs)
    finally:
        client.delete(*ours, *theirs)
