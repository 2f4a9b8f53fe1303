"""The summary rows of campaigns, responses and experts' work (`CampaignTally`, `ResponseTally`, `ExpertCampaignTally`, `SubmissionHour`).

Database triggers keep them true on every write (`annotation/migrations/_tallies.py`,
`_submission_hours.py`): the
services, COPY, imports, restores, deletes and raw SQL alike, so no code path has to remember
them. `recount` rebuilds them from the rows themselves: a repair for a database whose triggers
were lost (a table rebuilt by hand), and the reference the tests compare the triggers with.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib import import_module
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet, Sum

from annotation.models import (
    Assignment,
    Campaign,
    CampaignResponse,
    CampaignTally,
    ExpertCampaignTally,
    ProgressMove,
    ResponseTally,
    SubmissionHour,
)

_sql = import_module("annotation.migrations._tallies")
_hours = import_module("annotation.migrations._submission_hours")
_window = import_module("annotation.migrations._pull_window")
_moves = import_module("annotation.migrations._progress_moves")


def recount(*, campaign_ids: Iterable[int] | None = None) -> None:
    """Rebuild the tallies from the assignments and campaign responses (of the given campaigns, or of all)."""
    ids = None if campaign_ids is None else ", ".join(str(int(pk)) for pk in campaign_ids) or "NULL"
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in [*_sql.recount_sql(ids), *_hours.recount_sql(ids, connection.vendor), *_moves.recount_sql(ids)]:
            cursor.execute(statement)


# A state of a campaign's responses: (campaign id, is gold, submitted assignments, any reserved).
ProgressState = tuple[int, bool, int, bool]


def progress(campaign_ids: Iterable[int]) -> dict[ProgressState, int]:
    """How many responses of these campaigns are in each state (states with none left out): the sums of their moves."""
    sums = (
        ProgressMove.objects.filter(campaign_id__in=list(campaign_ids))
        .values("campaign_id", "is_gold", "submitted", "reserving")
        .annotate(n=Sum("responses"))
        .order_by()
        .values_list("campaign_id", "is_gold", "submitted", "reserving", "n")
    )
    return {(c, bool(g), s, bool(r)): n for c, g, s, r, n in sums if n}


def fold_progress(*, campaign_ids: Iterable[int] | None = None) -> int:
    """Fold each campaign's progress moves into one row per state (the sweep runs it); moves of deleted campaigns go.

    The moves are deleted and returned by one statement, so a move inserted meanwhile stays for the
    next fold. Returns the rows folded.
    """
    only = "" if campaign_ids is None else " WHERE campaign_id IN (%s)" % (", ".join(str(int(pk)) for pk in campaign_ids) or "NULL")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM annotation_progressmove{only} RETURNING campaign_id, is_gold, submitted, reserving, responses")
        gone = cursor.fetchall()
        sums: dict[ProgressState, int] = {}
        for c, g, s, r, n in gone:
            sums[(c, bool(g), s, bool(r))] = sums.get((c, bool(g), s, bool(r)), 0) + n
        alive = set(Campaign.objects.filter(pk__in={key[0] for key in sums}).values_list("pk", flat=True))
        ProgressMove.objects.bulk_create(
            ProgressMove(campaign_id=c, is_gold=g, submitted=s, reserving=r, responses=n)
            for (c, g, s, r), n in sorted(sums.items())
            if n and c in alive
        )
    return len(gone)


# The triggers whose work `count_inserted` does for rows written without them (the pull window's on campaign
# responses acts on updates only: inserted without it, they miss nothing).
REPLACED_BY_COUNTING = _sql.POSTGRES_TRIGGERS | _hours.POSTGRES_TRIGGERS | _window.POSTGRES_TRIGGERS


def count_inserted(*, campaign_response_ids: list[int], assignment_ids: list[int]) -> None:
    """PostgreSQL: count rows inserted without their triggers (`heartbench_core.bulk.skipped_row_triggers`), as the triggers would have.

    Set-based: each counter changes once, whatever the number of rows.
    """
    with connection.cursor() as cursor:
        for statement in [*_sql.count_inserted_sql(), *_hours.count_inserted_sql()]:
            cursor.execute(statement, {"responses": campaign_response_ids, "assignments": assignment_ids})


def tallies_as_counted(*, campaign_ids: Iterable[int] | None = None) -> dict[str, set[tuple]]:
    """The tallies as stored, without zero rows, in comparable form (`recount` makes what they should be)."""
    ids = None if campaign_ids is None else list(campaign_ids)

    def scoped(qs: QuerySet[Any], field: str = "campaign_id") -> QuerySet[Any]:
        return qs if ids is None else qs.filter(**{f"{field}__in": ids})

    return {
        "campaigns": {
            row for row in scoped(CampaignTally.objects.all()).values_list("campaign_id", "responses", "gold_responses") if row[1]
        },
        "responses": set(
            scoped(ResponseTally.objects.all()).values_list(
                "campaign_response_id", "campaign_id", "is_gold", "submitted", "reserved", "order_key", "extra_raters"
            )
        ),
        "experts": {
            row
            for row in scoped(ExpertCampaignTally.objects.all()).values_list(
                "expert_id",
                "campaign_id",
                "reserved",
                "preassigned",
                "submitted",
                "expired",
                "released",
                "active_seconds",
                "submitted_seconds",
                "submitted_while_paused",
            )
            if any(row[2:])
        },
        "hours": {row for row in scoped(SubmissionHour.objects.all()).values_list("campaign_id", "hour", "submitted") if row[2]},
        "progress": set(
            progress(ids if ids is not None else ProgressMove.objects.values_list("campaign_id", flat=True).distinct()).items()
        ),
    }


def tallies_from_rows(*, campaign_ids: Iterable[int] | None = None) -> dict[str, set[tuple]]:
    """What `tallies_as_counted` should hold, counted in Python from the rows (for tests and checks; reads every row)."""
    ids = None if campaign_ids is None else list(campaign_ids)
    responses = CampaignResponse.objects.all() if ids is None else CampaignResponse.objects.filter(campaign_id__in=ids)
    per_campaign: dict[int, list[int]] = {}
    per_response: dict[int, list] = {}
    for pk, campaign_id, is_gold, order_key, extra_raters in responses.values_list(
        "pk", "campaign_id", "is_gold", "order_key", "extra_raters"
    ):
        per_campaign.setdefault(campaign_id, [0, 0])
        per_campaign[campaign_id][0] += 1
        per_campaign[campaign_id][1] += is_gold
        per_response[pk] = [campaign_id, is_gold, 0, 0, order_key, extra_raters]
    per_expert: dict[tuple[int, int], list[int]] = {}
    per_hour: dict[tuple[int, datetime], int] = {}
    for cr_id, campaign_id, expert_id, status, expires_at, seconds, paused, submitted_at in Assignment.objects.filter(
        campaign_response_id__in=list(per_response)
    ).values_list(
        "campaign_response_id",
        "campaign_response__campaign_id",
        "expert_id",
        "status",
        "expires_at",
        "active_seconds",
        "submitted_while_paused",
        "submitted_at",
    ):
        if status == Assignment.Status.SUBMITTED and submitted_at is not None and not per_response[cr_id][1]:
            hour = submitted_at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
            per_hour[(campaign_id, hour)] = per_hour.get((campaign_id, hour), 0) + 1
        per_response[cr_id][2] += status == Assignment.Status.SUBMITTED
        per_response[cr_id][3] += status == Assignment.Status.RESERVED
        counts = per_expert.setdefault((expert_id, campaign_id), [0] * 8)
        counts[0] += status == Assignment.Status.RESERVED
        counts[1] += status == Assignment.Status.RESERVED and expires_at is None
        counts[2] += status == Assignment.Status.SUBMITTED
        counts[3] += status == Assignment.Status.EXPIRED
        counts[4] += status == Assignment.Status.RELEASED
        counts[5] += seconds
        counts[6] += seconds if status == Assignment.Status.SUBMITTED else 0
        counts[7] += status == Assignment.Status.SUBMITTED and paused
    return {
        "campaigns": {(c, n, g) for c, (n, g) in per_campaign.items()},
        "responses": {(pk, c, bool(g), s, r, key, extra) for pk, (c, g, s, r, key, extra) in per_response.items()},
        "experts": {(e, c, *counts) for (e, c), counts in per_expert.items() if any(counts)},
        "hours": {(c, hour, n) for (c, hour), n in per_hour.items()},
        "progress": set(Counter((c, bool(g), s, r > 0) for c, g, s, r, _key, _extra in per_response.values()).items()),
    }
