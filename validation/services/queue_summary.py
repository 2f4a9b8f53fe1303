"""The dashboard's adjudication-queue figures, stored between views and recomputed after the writes that change them.

The queue (`validation.selectors.adjudication_units`) reads every judgment, verdict and vote of the
campaign: 1.4 s of a 1.6 s dashboard at ten HeartBench campaigns. The dashboard reads a
`QueueSummary` row instead (the count and the first entries). Writes that change the queue mark the
row stale and queue a background refresh (the golden-label refresh job, which recomputes it); the
first view of a campaign without a row computes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import Campaign
from validation.models import QueueSummary
from validation.selectors import QueueEntry, adjudication_units

# Entries kept: the dashboard shows 10; a few more survive leaving out hidden entries.
HEAD = 20


def store_queue_summary(*, campaign: Campaign, units: list[QueueEntry] | None = None) -> QueueSummary:
    """Compute the campaign's adjudication queue (unless given every compared unit) and store its summary."""
    if units is None:
        units = adjudication_units(campaign)
    queue = [e for e in units if e.needs_decision]
    summary, _ = QueueSummary.objects.update_or_create(
        campaign=campaign,
        defaults={
            "needs_decision": len(queue),
            "compared": len(units),
            "head": [dataclasses.asdict(e) for e in queue[:HEAD]],
            "stale": False,
            "computed_at": timezone.now(),
        },
    )
    return summary


def queue_summary(campaign: Campaign) -> QueueSummary:
    """The stored summary (one query); computed now when the campaign has none yet."""
    summary = QueueSummary.objects.filter(campaign=campaign).first()
    return summary if summary is not None else store_queue_summary(campaign=campaign)


def head_entries(summary: QueueSummary) -> list[QueueEntry]:
    """The stored first entries of the queue, as the selectors give them."""
    return [QueueEntry(**{**e, "triggers": tuple(e["triggers"])}) for e in summary.head]


def queue_changed(*, campaign_ids: Iterable[int], trigger: str = "change") -> int:
    """Mark the stored summaries of these campaigns stale and queue their refresh (after commit); returns how many."""
    from validation.services.jobs import request_golden_refresh

    ids = set(campaign_ids)
    if not ids:
        return 0
    marked = QueueSummary.objects.filter(campaign_id__in=ids).update(stale=True)
    if marked:
        # Only campaigns whose dashboard has been opened have a summary to keep up to date.
        for campaign in Campaign.objects.filter(queue_summary__campaign_id__in=ids):
            with transaction.atomic():
                request_golden_refresh(campaign=campaign, trigger=trigger)
    return marked


# --- what changes the queue, heard from the models of the apps that write it ----------------------
# Receivers defer their work until the writing transaction commits, so the write's own request pays nothing.


def _after_commit(campaigns: Callable[[], Iterable[int]], trigger: str) -> None:
    transaction.on_commit(lambda: queue_changed(campaign_ids=campaigns(), trigger=trigger), robust=True)


def _summarised(**where: Any) -> list[int]:
    return list(QueueSummary.objects.filter(**where).values_list("campaign_id", flat=True))


def on_discussion_vote(sender: object, instance: Any, **kwargs: Any) -> None:
    """A vote can change a unit's majority after the discussion (the queue's discussion trigger)."""
    entry_id = instance.campaign_response_id
    _after_commit(lambda: _summarised(campaign__responses__pk=entry_id), "discussion")


def on_unclear_report(sender: object, instance: Any, **kwargs: Any) -> None:
    """An open report makes its criterion ambiguous in the campaign; resolving it ends that."""
    assignment_id = instance.assignment_id
    _after_commit(lambda: _summarised(campaign__responses__assignments__pk=assignment_id), "flag")


def on_criterion_flag(sender: object, instance: Any, **kwargs: Any) -> None:
    """An authors' flag makes the criterion ambiguous in every campaign on a version holding it."""
    lineage_id = instance.lineage_id

    def campaigns() -> list[int]:
        from heartbench_core.models import Criterion

        versions = Criterion.objects.filter(lineage_id=lineage_id).values("item__version_id")
        return _summarised(campaign__version_id__in=versions)

    _after_commit(campaigns, "flag")


def on_judge_run(sender: object, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """A new judge run's verdicts can contradict the experts (its verdicts are written in the same transaction)."""
    if created:
        version_id = instance.version_id
        _after_commit(lambda: _summarised(campaign__version_id=version_id), "judge-run")


def on_report(sender: object, instance: Any, created: bool = False, **kwargs: Any) -> None:
    """A new report refreshed the golden labels: bring the queue's figures to the same moment."""
    if created:
        campaign_id = instance.campaign_id
        _after_commit(lambda: [campaign_id], "report")
