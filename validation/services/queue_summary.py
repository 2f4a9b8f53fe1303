"""The dashboard's adjudication-queue figures, stored between views and recomputed after the writes that change them.

The queue (`validation.selectors.adjudication_units`) reads every judgment, verdict and vote of the
campaign: 1.4 s of a 1.6 s dashboard at ten HeartBench campaigns. The dashboard reads a
`QueueSummary` row instead (the count and the first entries). Writes that change the queue mark the
row stale and queue a background refresh (the golden-label refresh job, which recomputes it); the
first view of a campaign without a row computes it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

import numpy as np
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import Assignment, Campaign
from heartbench_core.blindness import blind_scope
from validation.models import QueueSummary, QueueUnit
from validation.selectors import QueueEntry, QueueOrder, queue_order

# Entries kept: the dashboard shows 10; a few more survive leaving out hidden entries.
HEAD = 20
VIEWS = ("needs_decision", "all")
_COLUMNS = (
    "summary_id",
    "position",
    "campaign_response_id",
    "criterion_id",
    "expert_hits",
    "expert_ratings",
    "judge_hit",
    "agreement",
    "triggers",
    "needs_decision",
    "decided",
    "judge_verdict_id",
    "discussion_changed",
)


def _view_counts(needs: Iterable[bool], triggers: Iterable[Iterable[str]]) -> dict[str, dict[str, int]]:
    """Units listed per view and trigger ('' for any reason)."""
    out = {view: Counter[str]() for view in VIEWS}
    for need, codes in zip(needs, triggers, strict=True):
        views = VIEWS if need else VIEWS[1:]
        for view in views:
            out[view][""] += 1
            for code in codes:
                out[view][code] += 1
    return {view: dict(c) for view, c in out.items()}


def _rows(summary_id: int, order: QueueOrder) -> Iterator[tuple[Any, ...]]:
    judge = order.judge.tolist()
    verdict = order.judge_verdict_id.tolist()
    columns = zip(
        order.cr_id.tolist(),
        order.criterion_id.tolist(),
        order.expert_hits.tolist(),
        order.expert_ratings.tolist(),
        order.agreement.tolist(),
        order.needs_decision.tolist(),
        order.decided.tolist(),
        order.discussion_changed.tolist(),
        strict=True,
    )
    for i, (cr, crit, hits, ratings, agreement, need, decided, changed) in enumerate(columns):
        yield (
            summary_id,
            i,
            cr,
            crit,
            hits,
            ratings,
            None if judge[i] < 0 else bool(judge[i]),
            agreement,
            ",".join(order.triggers(i)),
            need,
            decided,
            verdict[i] if verdict[i] >= 0 else None,
            changed,
        )


def _write_units(summary_id: int, order: QueueOrder) -> None:
    """Replace the summary's stored units (COPY on PostgreSQL: a blind test of 1.7 million units writes in seconds)."""
    QueueUnit.objects.filter(summary_id=summary_id)._raw_delete(connection.alias)  # no signals, no cascade to follow
    table = QueueUnit._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
                for row in _rows(summary_id, order):
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(_COLUMNS))
            rows = _rows(summary_id, order)
            while batch := [row for _, row in zip(range(5000), rows, strict=False)]:
                cursor.executemany(f"INSERT INTO {table} ({', '.join(_COLUMNS)}) VALUES ({marks})", batch)


def store_queue_summary(*, campaign: Campaign, order: QueueOrder | None = None) -> QueueSummary:
    """Compute the campaign's adjudication queue (unless given every compared unit in order) and store it: figures and units."""
    if order is None:
        order = queue_order(campaign)
    needing = np.flatnonzero(order.needs_decision)
    triggers = [order.triggers(i) for i in range(len(order))]
    figures = {
        "needs_decision": len(needing),
        "compared": len(order),
        "head": [dataclasses.asdict(order.entry(int(i))) for i in needing[:HEAD]],
        "counts": _view_counts(order.needs_decision.tolist(), triggers),
        "stale": False,
        "computed_at": timezone.now(),
    }
    with transaction.atomic():
        summary = QueueSummary.objects.select_for_update().filter(campaign=campaign).first()
        if summary is None:
            summary = QueueSummary.objects.create(campaign=campaign, **figures)
        else:
            for field, value in figures.items():
                setattr(summary, field, value)
            summary.save()
        _write_units(summary.pk, order)
    return summary


def queue_summary(campaign: Campaign) -> QueueSummary:
    """The stored summary (one query); computed now when the campaign has none yet."""
    summary = QueueSummary.objects.filter(campaign=campaign).first()
    return summary if summary is not None else store_queue_summary(campaign=campaign)


def _entry(unit: QueueUnit) -> QueueEntry:
    """A stored unit as the selectors give it: its columns are the entry's fields (the triggers stored as one text)."""
    values = {f.name: getattr(unit, f.name) for f in dataclasses.fields(QueueEntry)}
    return QueueEntry(**{**values, "triggers": tuple(t for t in unit.triggers.split(",") if t)})


def head_entries(summary: QueueSummary) -> list[QueueEntry]:
    """The stored first entries of the queue that need a decision, as the selectors give them (no query)."""
    return [QueueEntry(**{**e, "triggers": tuple(e["triggers"])}) for e in summary.head]


class StoredQueue(Sequence[QueueEntry]):
    """A campaign's stored queue as a sequence the paginators read: its length from the stored counts, a page per query.

    `show` is "needs_decision" or "all"; `trigger` and `criterion` narrow it; the responses the
    reviewer rated are left out (their units counted out of the figures too), and everything when
    the campaign is closed to the viewer. Work per page is bounded by the page, not by the campaign.
    """

    def __init__(
        self,
        summary: QueueSummary,
        *,
        viewer: Any,
        reviewer: Any = None,
        show: str = "needs_decision",
        trigger: str = "",
        criterion: int | None = None,
    ) -> None:
        self.summary, self.show, self.trigger, self.criterion = summary, show, trigger, criterion
        self.hidden = blind_scope(viewer).hides_campaign(summary.campaign_id)
        own = (
            Assignment.objects.filter(campaign_response__campaign_id=summary.campaign_id, expert=reviewer).values("campaign_response_id")
            if reviewer is not None
            else None
        )
        units = QueueUnit.objects.filter(summary=summary)
        self._own = units.filter(campaign_response_id__in=own) if own is not None else units.none()
        self._listed = units.exclude(campaign_response_id__in=own) if own is not None else units
        if show != "all":
            self._listed = self._listed.filter(needs_decision=True)
        if trigger:
            self._listed = self._listed.filter(
                Q(triggers=trigger) | Q(triggers__startswith=f"{trigger},") | Q(triggers__contains=f",{trigger}")
            )
        if criterion is not None:
            self._listed = self._listed.filter(criterion_id=criterion)
        self._length: int | None = None
        self._own_counts: dict[tuple[bool, str], int] | None = None

    def _own_tally(self) -> dict[tuple[bool, str], int]:
        """How many of the reviewer's own units each (needs a decision, triggers) pair holds (one query, over their responses only)."""
        if self._own_counts is None:
            rows = self._own.values_list("needs_decision", "triggers").annotate(n=Count("pk")).order_by()
            self._own_counts = {(need, codes): n for need, codes, n in rows}
        return self._own_counts

    def _stored_count(self, view: str, trigger: str) -> int:
        total = int(self.summary.counts.get(view, {}).get(trigger, 0))
        for (need, codes), n in self._own_tally().items():
            if (view == "all" or need) and (not trigger or trigger in codes.split(",")):
                total -= n
        return total

    def counts(self) -> tuple[int, int]:
        """(needs a decision, compared) over everything the viewer may see."""
        if self.hidden:
            return 0, 0
        return self._stored_count("needs_decision", ""), self._stored_count("all", "")

    def __len__(self) -> int:
        if self._length is None:
            if self.hidden:
                self._length = 0
            elif self.criterion is not None:  # one criterion's units: a count over its own index entries
                self._length = self._listed.count()
            else:
                self._length = self._stored_count(self.show, self.trigger)
        return self._length

    @overload
    def __getitem__(self, index: int) -> QueueEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[QueueEntry]: ...
    def __getitem__(self, index: int | slice) -> QueueEntry | list[QueueEntry]:
        if self.hidden:
            if isinstance(index, int):
                raise IndexError(index)
            return []
        units = self._listed.order_by("position")
        if isinstance(index, int):
            return _entry(units[index])
        if self._contiguous() and index.step is None:
            # Every compared unit, nothing left out: the i-th is at position i, so a deep page is a range, not an OFFSET.
            start, stop = index.start or 0, index.stop
            units = units.filter(position__gte=start, **({"position__lt": stop} if stop is not None else {}))
            return [_entry(u) for u in units]
        return [_entry(u) for u in units[index]]

    def _contiguous(self) -> bool:
        return self.show == "all" and not self.trigger and self.criterion is None and not self._own_tally()


def stored_queue(
    campaign: Campaign, *, viewer: Any, reviewer: Any = None, show: str = "needs_decision", trigger: str = "", criterion: int | None = None
) -> StoredQueue:
    """The campaign's queue read from its stored units (computed and stored first when it has none)."""
    return StoredQueue(queue_summary(campaign), viewer=viewer, reviewer=reviewer, show=show, trigger=trigger, criterion=criterion)


def record_decision(*, campaign_id: int, campaign_response_id: int, criterion_id: int) -> None:
    """Bring the stored queue up to date with a decision on one unit (it needs none any more): three small writes."""
    summary = QueueSummary.objects.select_for_update().filter(campaign_id=campaign_id).first()
    if summary is None:
        return
    units = QueueUnit.objects.filter(summary=summary, campaign_response_id=campaign_response_id, criterion_id=criterion_id)
    unit = units.first()
    if unit is None:
        return
    if unit.needs_decision:
        counts = summary.counts.get("needs_decision", {})
        for code in ("", *(t for t in unit.triggers.split(",") if t)):
            counts[code] = max(0, int(counts.get(code, 0)) - 1)
        summary.needs_decision = max(0, summary.needs_decision - 1)
        summary.head = [e for e in summary.head if (e["campaign_response_id"], e["criterion_id"]) != (campaign_response_id, criterion_id)]
        summary.save(update_fields=["needs_decision", "counts", "head"])
    units.update(decided=True, needs_decision=False)


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
