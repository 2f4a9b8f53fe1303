"""Reports, golden-label refreshes and endpoint runs are durable by one mechanism (heartbench_core/services/leases.py).

Both kinds of row share the queryset that says which rows a worker may take and which the sweep
sends again, and the statuses that queryset reads; neither service writes its own claim or sweep.
"""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from heartbench_core.judging.models import EndpointRun
from heartbench_core.models import LEASE_PENDING, LEASE_RUNNING, LeasedQuerySet
from tests.validation.builders import blind_test
from validation.models import BackgroundJob

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("model", [BackgroundJob, EndpointRun])
def test_every_durable_row_is_leased_the_same_way(model):
    assert isinstance(model.objects.all(), LeasedQuerySet)
    assert (model.Status.PENDING, model.Status.RUNNING) == (LEASE_PENDING, LEASE_RUNNING)


@pytest.mark.parametrize("path", ["validation/services/jobs.py", "heartbench_core/judging/services/runs.py"])
def test_no_service_writes_its_own_claim_or_sweep(path):
    source = (ROOT / path).read_text(encoding="utf-8")
    assert "skip_locked" not in source
    assert "async_task" not in source


def test_due_rows_are_the_unsent_the_long_unsent_and_the_dead_leases(cast):
    now = timezone.now()
    lease = timedelta(minutes=10)
    campaign = blind_test(cast)
    rows = {
        "never sent": {"status": "pending", "enqueued_at": None},
        "sent long ago": {"status": "pending", "enqueued_at": now - timedelta(minutes=11)},
        "dead lease": {"status": "running", "locked_until": now - timedelta(seconds=1)},
    }
    kept = {
        "just sent": {"status": "pending", "enqueued_at": now - timedelta(minutes=1)},
        "live lease": {"status": "running", "locked_until": now + timedelta(minutes=1)},
        "done": {"status": "done"},
    }
    ids = {}
    for name, fields in {**rows, **kept}.items():
        ids[name] = BackgroundJob.objects.create(kind="agreement_report", campaign=campaign, **fields).pk
    due = set(BackgroundJob.objects.due(now, lease).values_list("pk", flat=True))
    assert due == {ids[name] for name in rows}
    claimable = set(BackgroundJob.objects.claimable(now).values_list("pk", flat=True))
    assert claimable == {ids["never sent"], ids["sent long ago"], ids["just sent"], ids["dead lease"]}
