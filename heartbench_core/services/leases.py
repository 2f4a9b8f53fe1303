"""Work that survives a killed worker, whatever django-q2's broker: one mechanism for every durable job.

A piece of background work is a database row first: an agreement report or a golden-label refresh
(validation's `BackgroundJob`), a judge run or an answer run (`EndpointRun`). Its model's queryset
is a `LeasedQuerySet`, and the same four steps hold for each:

1. **Recorded, then sent.** The row is written in the request's transaction; the broker carries
   only its id, handed over once that transaction commits (`send_after_commit`). A broker that is
   down does not turn a committed request into an error: the row waits for the sweep.
2. **Taken under a lease.** A worker takes a row by locking it (`take`: `select_for_update` with
   `skip_locked`) when it is waiting, or running under a lease that ran out, and writes a new lease
   (`locked_until`). The work's own service decides what a taking counts (attempts, stalls) and
   how long the lease is.
3. **Finished once.** The work's service commits its result with the row's completion; a row
   already done is not claimable, so an id delivered twice does the work once.
4. **Swept.** A django-q2 schedule (every minute) hands to the broker again every row that is due
   (`sweep`): waiting with no message sent, or one sent longer than a lease ago (lost with a
   worker), or running under a lease that ran out (its worker died).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from django.db import transaction
from django.utils import timezone

from heartbench_core.models import LeasedQuerySet


class Leased(Protocol):
    pk: Any


RowT = TypeVar("RowT", bound=Leased)


def send_after_commit(queryset: LeasedQuerySet[Any], pk: int, *, task: str, task_name: str) -> None:
    """Hand the row's id to the broker once the current transaction commits (the sweep sends it again if this is lost)."""
    from django_q.tasks import async_task

    def send() -> None:
        queryset.filter(pk=pk).update(enqueued_at=timezone.now())
        async_task(task, pk, task_name=task_name)

    # robust: a broker that is down must not turn a committed request into an error; the row waits for the sweep.
    transaction.on_commit(send, robust=True)


def take(queryset: LeasedQuerySet[Any], pk: int, now: datetime) -> Any:
    """The row, locked for the caller's transaction, when a worker may take it now; None when done or held by a live worker."""
    return queryset.select_for_update(skip_locked=True).claimable(now).filter(pk=pk).first()


def sweep(queryset: LeasedQuerySet[Any], *, task: str, lease: timedelta, task_name: Callable[[int], str]) -> list[int]:
    """Send again every row a worker should be running but is not; returns their ids."""
    from django_q.tasks import async_task

    now = timezone.now()
    ids = list(queryset.due(now, lease).values_list("pk", flat=True).order_by("pk"))
    queryset.filter(pk__in=ids).update(enqueued_at=now)
    for pk in ids:
        async_task(task, pk, task_name=task_name(pk))
    return ids
