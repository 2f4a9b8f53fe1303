"""Importing a file while another process imports the same file duplicates nothing (PostgreSQL)."""

import threading

import pytest
from django.db import connection

from heartbench_core.models import DatasetVersion, Item, ModelResponse
from heartbench_core.services.datasets import import_heartbench
from heartbench_core.services.responses import import_responses
from tests.conftest import postgres_only
from tests.factories import DEMO_ITEMS, FIXTURES

pytestmark = [postgres_only(), pytest.mark.django_db(transaction=True)]


def race(target, n=2):
    """Run target n times at once, each in its own thread with its own database connection."""
    barrier = threading.Barrier(n)
    outcomes, errors = [], []

    def run():
        try:
            barrier.wait()
            outcomes.append(target())
        except Exception as exc:  # recorded, asserted on below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return outcomes, errors


def test_two_simultaneous_imports_of_one_file_create_one_version():
    outcomes, errors = race(lambda: import_heartbench(source=DEMO_ITEMS, dataset_name="race"), n=3)
    assert not errors, errors
    assert sorted(o.created for o in outcomes) == [False, False, True]
    assert DatasetVersion.objects.filter(dataset__name="race").count() == 1
    lines = sum(1 for line in DEMO_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip())
    assert Item.objects.filter(version__dataset__name="race").count() == lines


def test_two_simultaneous_imports_of_one_answer_file_store_each_answer_once():
    import_heartbench(source=DEMO_ITEMS, dataset_name="race")
    path = FIXTURES / "responses" / "demo-model-aurora.jsonl"
    outcomes, errors = race(lambda: import_responses(source=path, dataset_name="race", model_name="demo-model-aurora"), n=3)
    assert not errors, errors
    lines = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    assert ModelResponse.objects.filter(dataset__name="race").count() == lines
    assert sum(o.created for o in outcomes) == lines
