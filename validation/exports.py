"""Streaming exports of a campaign's judgments and golden labels: constant memory, the first rows at once.

The rows are read a few hundred campaign responses at a time, in the order of their ids (a
keyset over the primary key), so no query sorts the whole campaign before the first row and no
batch holds more than a few thousand rows. A batch of judgments is read with single-table
lookups on indexes (the entries' assignments, then those assignments' judgments) and joined
here with the responses, criteria and experts, each read once; joining in one query made the
planner scan whole tables for every batch. Lines are sent in chunks of about 64 KB, not one per
row; the CSV cells are written as Python's csv module writes them through `SafeWriter`.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

from django.db import connection
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
from heartbench_core.blindness import record_exposures
from heartbench_core.bulk import pieces
from heartbench_core.csvsafe import FORMULA_TRIGGERS, SafeWriter
from heartbench_core.models import Criterion, Item, LanguageModel, ModelResponse, StaffExposure, User
from validation.blindness import hidden_entry_ids
from validation.models import GoldenLabel
from validation.selectors import golden_values

Row: TypeAlias = tuple[Any, ...]

CHUNK_CHARS = 64 * 1024
ENTRIES_PER_BATCH = 500
FIRST_BATCH = 20
LINES_PER_PIECE = 200  # lines handed to `chunks` at once

JUDGMENT_HEADER: Row = (
    "response",
    "question_id",
    "model",
    "expert",
    "criterion_position",
    "criterion_key",
    "criterion_revision",
    "hit",
    "rationale",
    "submitted_at",
)
GOLDEN_HEADER: Row = (
    "response",
    "question_id",
    "model",
    "criterion_position",
    "criterion_key",
    "criterion_revision",
    "hit",
    "provenance",
    "expert_hits",
    "expert_ratings",
    "adjudicated_by",
    "adjudicated_at",
    "cause",
    "why",
)


def export_chunks(user: User, campaign: Campaign, what: str, fmt: str) -> Iterator[str]:
    """The campaign's judgments or golden labels as CSV or JSON Lines, in chunks, without the entries the user must not see.

    Each batch of entries is recorded as shown to the user (`StaffExposure`) just before its rows
    are sent, so an export cut short records what it showed.
    """
    batches = entry_batches(campaign, hidden_entry_ids(user, campaign), user=user, via=f"export-{what}")
    if fmt == "csv":
        if what == "judgments":
            return chunks(_judgment_csv_lines(campaign, batches))
        return chunks(csv_lines(export_rows(campaign, what, batches)))
    rows = export_rows(campaign, what, batches)
    header = next(rows)
    return chunks(json.dumps(dict(zip(header, row)), ensure_ascii=False, default=str) + "\n" for row in rows)


def entry_batches(
    campaign: Campaign, hidden: set[int], *, user: User | None = None, via: str = "", size: int | None = None
) -> Iterator[list[int]]:
    """The ids of the campaign's entries (but the hidden ones), in id order, ENTRIES_PER_BATCH at a time.

    The first batch is smaller, so the first rows go out at once. With a `user`, each batch's
    responses are recorded as shown to them (`via`) before it is given.
    """
    full = size or ENTRIES_PER_BATCH
    size = min(full, FIRST_BATCH)
    last = 0
    while True:
        batch = list(CampaignResponse.objects.filter(campaign=campaign, pk__gt=last).order_by("pk").values_list("pk", "response_id")[:size])
        if not batch:
            return
        last, size = batch[-1][0], full
        shown = [(pk, response) for pk, response in batch if pk not in hidden]
        if not shown:
            continue
        if user is not None:
            _record_exposures(user, [response for _, response in shown], via)
        yield [pk for pk, _ in shown]


def _record_exposures(user: User, response_ids: list[int], via: str) -> None:
    """Record responses as shown to the user; on PostgreSQL in one statement, skipping those already recorded."""
    if connection.vendor != "postgresql":
        record_exposures(user=user, response_ids=response_ids, via=via)
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(StaffExposure)} (user_id, response_id, via, first_seen_at)"
            " SELECT %s, r, %s, %s FROM unnest(%s::bigint[]) AS r ON CONFLICT DO NOTHING",
            [user.pk, via[:64], timezone.now(), response_ids],
        )


def export_rows(campaign: Campaign, what: str, batches: Iterable[list[int]]) -> Iterator[Row]:
    """The header, then every row of the judgments ("judgments") or golden labels ("golden") of the batches of entries."""
    if what == "judgments":
        yield JUDGMENT_HEADER
        yield from _judgment_rows(campaign, batches)
        return
    yield GOLDEN_HEADER
    for batch in batches:
        for row in golden_values(GoldenLabel.objects.filter(campaign_response_id__in=batch)):
            yield tuple(_cell(v) for v in row)


def _cell(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if value.__class__.__name__ == "UUID":
        return str(value)
    return value


class _Lookups:
    """What a judgment row shows besides the judgment: read once per export (criteria, items) or per batch (responses, experts)."""

    def __init__(self, campaign: Campaign) -> None:
        version = campaign.version_id
        self.criteria = {
            pk: (position, str(lineage), revision)
            for pk, position, lineage, revision in Criterion.objects.filter(item__version_id=version).values_list(
                "pk", "position", "lineage_id", "revision"
            )
        }
        self.position = {pk: c[0] for pk, c in self.criteria.items()}
        self.questions = dict(Item.objects.filter(version_id=version).values_list("pk", "question_id"))
        self.experts: dict[int, str] = {}

    def question(self, item: int) -> str:
        if item not in self.questions:
            self.questions[item] = Item.objects.get(pk=item).question_id
        return self.questions[item]

    def criterion(self, pk: int) -> tuple[int, str, int]:
        if pk not in self.criteria:  # a judgment made against another version's criterion (not made by the platform)
            self.criteria.update(
                (c, (position, str(lineage), revision))
                for c, position, lineage, revision in Criterion.objects.filter(pk=pk).values_list(
                    "pk", "position", "lineage_id", "revision"
                )
            )
        return self.criteria[pk]

    def expert_names(self, ids: set[int]) -> dict[int, str]:
        missing = ids - self.experts.keys()
        if missing:
            self.experts.update(User.objects.filter(pk__in=missing).values_list("pk", "username"))
        return self.experts


@dataclass
class _JudgmentBatch:
    """The submitted judgments of a batch of entries, in the export's order (entry, criterion position, expert), and what they show."""

    entries: dict[int, tuple[str, str, str]]  # entry → (response public id, question_id, model)
    assignments: dict[int, tuple[int, str, datetime | None]]  # assignment → (entry, expert's username, submitted_at)
    judgments: list[tuple[int, int, bool | None, str]]  # (assignment, criterion, hit, rationale)


def _judgment_batches(campaign: Campaign, batches: Iterable[list[int]], lookups: _Lookups) -> Iterator[_JudgmentBatch]:
    """Per batch of entries, its submitted judgments: three single-table reads on indexes, joined and ordered here."""
    for batch in batches:
        entries = {pk: (public_id, lookups.question(item), model) for pk, public_id, item, model in _entries(batch)}
        rows = _submitted_assignments(batch)
        names = lookups.expert_names({expert for _, _, expert, _ in rows})
        assignments = {pk: (entry, names[expert], submitted) for pk, entry, expert, submitted in rows}
        judgments = _judgments_of(list(assignments))
        position = lookups.position
        for _, criterion, _, _ in judgments:
            if criterion not in position:
                lookups.criterion(criterion)
        judgments.sort(key=lambda j: (assignments[j[0]][0], position[j[1]], assignments[j[0]][1]))
        yield _JudgmentBatch(entries, assignments, judgments)


# On PostgreSQL the batch's ids go as one array parameter (`= ANY(%s)`): a placeholder per id costs
# more to format and parse than the rows cost to read.


def _entries(batch: list[int]) -> list[Row]:
    """(entry, response public id, item, model name) of each entry of the batch."""
    if connection.vendor != "postgresql":
        return list(
            CampaignResponse.objects.filter(pk__in=batch).values_list("pk", "response__public_id", "item_id", "response__model__name")
        )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.id, r.public_id, e.item_id, m.name FROM {_table(CampaignResponse)} e"
            f" JOIN {_table(ModelResponse)} r ON r.id = e.response_id JOIN {_table(LanguageModel)} m ON m.id = r.model_id"
            " WHERE e.id = ANY(%s)",
            [batch],
        )
        return cursor.fetchall()


def _submitted_assignments(batch: list[int]) -> list[Row]:
    """(assignment, entry, expert, submitted_at) of the submitted assignments of the batch's entries."""
    if connection.vendor != "postgresql":
        return list(
            Assignment.objects.filter(campaign_response_id__in=batch, status=Assignment.Status.SUBMITTED).values_list(
                "pk", "campaign_response_id", "expert_id", "submitted_at"
            )
        )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, campaign_response_id, expert_id, submitted_at FROM {_table(Assignment)}"
            " WHERE campaign_response_id = ANY(%s) AND status = %s",
            [batch, Assignment.Status.SUBMITTED],
        )
        return cursor.fetchall()


def _judgments_of(assignments: list[int]) -> list[Row]:
    """(assignment, criterion, hit, rationale) of every judgment of the assignments."""
    columns = f"SELECT assignment_id, criterion_id, hit, rationale FROM {_table(Judgment)}"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"{columns} WHERE assignment_id = ANY(%s)", [assignments])
        elif assignments:
            cursor.execute(f"{columns} WHERE assignment_id IN ({', '.join(['%s'] * len(assignments))})", assignments)
        else:
            return []
        return cursor.fetchall()


def _judgment_rows(campaign: Campaign, batches: Iterable[list[int]]) -> Iterator[Row]:
    lookups = _Lookups(campaign)
    for batch in _judgment_batches(campaign, batches, lookups):
        for assignment, criterion, hit, rationale in batch.judgments:
            entry, expert, submitted = batch.assignments[assignment]
            position, key, revision = lookups.criterion(criterion)
            yield (
                *batch.entries[entry],
                expert,
                position,
                key,
                revision,
                hit,
                rationale,
                None if submitted is None else submitted.isoformat(),
            )


_NEEDS_QUOTES = re.compile('[,"\r\n]')


def _csv_cell(value: str) -> str:
    """A text cell as `SafeWriter` writes it: a leading quote before a formula trigger, then quoted when the csv module would."""
    if value.startswith(FORMULA_TRIGGERS):
        value = "'" + value
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def _judgment_csv_lines(campaign: Campaign, batches: Iterable[list[int]]) -> Iterator[str]:
    """The judgments' CSV lines, header first, as csv.writer(SafeWriter) writes them, one string per batch.

    What repeats is written once: the response and expert cells and the time per assignment, the
    criterion's cells per criterion; per judgment only the hit and the rationale.
    """
    yield from csv_lines([JUDGMENT_HEADER])
    lookups = _Lookups(campaign)
    criteria: dict[int, str] = {}
    hits = {True: "True", False: "False", None: ""}
    cell, needs_quotes, triggers = _csv_cell, _NEEDS_QUOTES.search, FORMULA_TRIGGERS
    for batch in _judgment_batches(campaign, batches, lookups):
        heads, tails = {}, {}
        for pk, (entry, expert, submitted) in batch.assignments.items():
            heads[pk] = ",".join(map(cell, (*batch.entries[entry], expert))) + ","
            tails[pk] = "," + ("" if submitted is None else submitted.isoformat()) + "\r\n"
        out = []
        for assignment, criterion, hit, rationale in batch.judgments:
            crit = criteria.get(criterion)
            if crit is None:
                position, key, revision = lookups.criterion(criterion)
                crit = criteria[criterion] = f"{position},{cell(key)},{revision},"
            if rationale.startswith(triggers) or needs_quotes(rationale):
                rationale = cell(rationale)
            out.append(f"{heads[assignment]}{crit}{hits[hit]},{rationale}{tails[assignment]}")
        step = LINES_PER_PIECE
        for start in range(0, len(out), step):
            yield "".join(out[start : start + step])


def python_judgment_csv(campaign: Campaign) -> str:
    """The judgments' CSV through csv.writer(SafeWriter), row by row (what the lines written here must equal)."""
    return "".join(csv_lines(export_rows(campaign, "judgments", entry_batches(campaign, set()))))


def judgment_csv(campaign: Campaign) -> str:
    """The judgments' CSV as the export writes it."""
    return "".join(_judgment_csv_lines(campaign, entry_batches(campaign, set())))


def _table(model: type) -> str:
    return connection.ops.quote_name(model._meta.db_table)  # type: ignore[attr-defined]


def chunks(lines: Iterable[str], size: int | None = None) -> Iterator[str]:
    """Lines joined into pieces of about `size` (CHUNK_CHARS) characters (the last one shorter)."""
    return pieces(lines, size or CHUNK_CHARS)


def csv_lines(rows: Iterable[Row]) -> Iterator[str]:
    """Each row as the line `csv.writer(SafeWriter)` writes (formula cells defused)."""
    buffer = io.StringIO()
    writer = SafeWriter(buffer)
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
