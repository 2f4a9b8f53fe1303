"""Streaming exports of a campaign's judgments and golden labels: constant memory, the first rows at once.

The rows are read a few hundred campaign responses at a time, in the order of their ids (a
keyset over the primary key), so no query sorts the whole campaign before the first row and no
batch holds more than a few thousand rows. A batch of judgments is read with single-table
lookups on indexes (the entries' assignments, then those assignments' judgments) and joined
here with the responses, criteria and experts, each read once; joining in one query made the
planner scan whole tables for every batch. Lines are sent in chunks of about 64 KB, not one per
row; the CSV cells are written as Python's csv module writes them through `SafeWriter`.

On PostgreSQL the judgments' CSV comes from the database itself: one `COPY (SELECT …) TO STDOUT
(FORMAT csv)` per batch of entries (a range of ids: the statement does not grow with the batch,
and each entry's rows are sorted on their own), read row by row through psycopg and sent on in
chunks. The
query writes each cell as `SafeWriter` would (the formula guard of `heartbench_core.csvsafe`, the
hit as True/False, the time as `isoformat` writes it, an empty text as NULL so COPY leaves it
unquoted); COPY quotes exactly the cells the csv module quotes, and its line ends (LF) become the
csv module's CRLF here, one row at a time, so a line break inside a rationale stays as it was.

`JudgmentFilter` narrows the judgments' export to what a pipeline asks for: assignments submitted
in a time window (an incremental export: everything since the last one) and responses of some
models. Only the entries that have such rows are read and recorded as shown.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
from heartbench_core.blindness import record_exposures
from heartbench_core.bulk import pieces
from heartbench_core.csvsafe import FORMULA_TRIGGERS, SafeWriter
from heartbench_core.models import Criterion, Item, LanguageModel, ModelResponse, StaffExposure, User
from validation.blindness import hidden_entry_ids
from validation.filters import ExportFilters
from validation.models import GoldenLabel
from validation.selectors import golden_values

Row: TypeAlias = tuple[Any, ...]

CHUNK_CHARS = 64 * 1024
ENTRIES_PER_BATCH = 500
FIRST_BATCH = 20
LINES_PER_PIECE = 200  # lines handed to `chunks` at once
COPY_ENTRIES_PER_BATCH = 2000  # entries per COPY statement on PostgreSQL (no Python work per row but the line end)

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


@dataclass(frozen=True)
class JudgmentFilter:
    """Which judgments an export holds: those of assignments submitted in [since, until), of responses by `models` (all when empty)."""

    since: datetime | None = None
    until: datetime | None = None
    models: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.since is not None or self.until is not None or bool(self.models)

    def submitted(self) -> Q:
        """The assignments this filter keeps (submitted ones, in the window)."""
        q = Q(status=Assignment.Status.SUBMITTED)
        if self.since is not None:
            q &= Q(submitted_at__gte=self.since)
        if self.until is not None:
            q &= Q(submitted_at__lt=self.until)
        return q

    def entries(self) -> Q:
        """The campaign entries that have judgments this filter keeps."""
        q = Q()
        if self.models:
            q &= Q(response__model__name__in=self.models)
        if self.since is not None or self.until is not None:
            q &= Q(Exists(Assignment.objects.filter(self.submitted(), campaign_response_id=OuterRef("pk"))))
        return q


NO_FILTER = JudgmentFilter()


class BadFilter(ValueError):
    """A filter parameter that cannot be read (its message says which and why, for the person who sent it)."""


def judgment_filter(params: Mapping[str, Any]) -> JudgmentFilter:
    """The filter a request's query asks for (`since`, `until`: ISO 8601; `model`: a model's name, repeatable:
    `validation.filters.ExportFilters`), else BadFilter saying each bad value."""
    asked = ExportFilters(params)
    if not asked.form.is_valid():
        raise BadFilter(" ".join(asked.problems))
    wanted = asked.values
    return JudgmentFilter(since=wanted.get("since"), until=wanted.get("until"), models=tuple(wanted.get("model", ())))


def export_chunks(
    user: User, campaign: Campaign, what: str, fmt: str, *, only: JudgmentFilter = NO_FILTER
) -> Iterator[str] | Iterator[bytes]:
    """The campaign's judgments or golden labels as CSV or JSON Lines, in chunks, without the entries the user must not see.

    Each batch of entries is recorded as shown to the user (`StaffExposure`) just before its rows
    are sent, so an export cut short records what it showed. `only` narrows the judgments' export.
    """
    via = f"export-{what}"
    hidden = hidden_entry_ids(user, campaign)
    if what != "judgments":
        only = NO_FILTER
    if what == "judgments" and fmt == "csv" and connection.vendor == "postgresql":
        ranges = entry_ranges(campaign, hidden, user=user, via=via, size=COPY_ENTRIES_PER_BATCH, only=only)
        return copied_judgment_csv(campaign, ranges, only)
    batches = entry_batches(campaign, hidden, user=user, via=via, only=only)
    if fmt == "csv":
        if what == "judgments":
            return chunks(_judgment_csv_lines(campaign, batches, only))
        return chunks(csv_lines(export_rows(campaign, what, batches)))
    rows = export_rows(campaign, what, batches, only)
    header = next(rows)
    return chunks(json.dumps(dict(zip(header, row)), ensure_ascii=False, default=str) + "\n" for row in rows)


def entry_batches(campaign: Campaign, hidden: set[int], **how: Any) -> Iterator[list[int]]:
    """The ids of the entries shown, a batch at a time (`_entry_pages`)."""
    return (shown for _, shown in _entry_pages(campaign, hidden, **how))


@dataclass(frozen=True)
class EntryRange:
    """A batch of entries as the COPY reads it: the campaign's entries with ids from `first` to `last`, but those `left_out`."""

    first: int
    last: int
    left_out: list[int]


def entry_ranges(campaign: Campaign, hidden: set[int], **how: Any) -> Iterator[EntryRange]:
    """The batches of `entry_batches` (recorded as shown the same way) as id ranges, with the hidden entries inside each."""
    return (EntryRange(page[0], page[-1], [pk for pk in page if pk in hidden]) for page, _ in _entry_pages(campaign, hidden, **how))


def _entry_pages(
    campaign: Campaign,
    hidden: set[int],
    *,
    user: User | None = None,
    via: str = "",
    size: int | None = None,
    only: JudgmentFilter = NO_FILTER,
) -> Iterator[tuple[list[int], list[int]]]:
    """Per batch of the campaign's entries that `only` keeps, in id order, the ids of its entries and of those shown (not hidden).

    ENTRIES_PER_BATCH (`size`) at a time, the first batch smaller, so the first rows go out at once;
    only batches that show something. With a `user`, each batch's responses are recorded as shown
    to them (`via`) before it is given.
    """
    full = size or ENTRIES_PER_BATCH
    size = min(full, FIRST_BATCH)
    last = 0
    entries = CampaignResponse.objects.filter(campaign=campaign)
    if only:
        entries = entries.filter(only.entries())
    while True:
        batch = list(entries.filter(pk__gt=last).order_by("pk").values_list("pk", "response_id")[:size])
        if not batch:
            return
        last, size = batch[-1][0], full
        shown = [(pk, response) for pk, response in batch if pk not in hidden]
        if not shown:
            continue
        if user is not None:
            _record_exposures(user, [response for _, response in shown], via)
        yield [pk for pk, _ in batch], [pk for pk, _ in shown]


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


def export_rows(campaign: Campaign, what: str, batches: Iterable[list[int]], only: JudgmentFilter = NO_FILTER) -> Iterator[Row]:
    """The header, then every row of the judgments ("judgments") or golden labels ("golden") of the batches of entries."""
    if what == "judgments":
        yield JUDGMENT_HEADER
        yield from _judgment_rows(campaign, batches, only)
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


def _criterion_cells(criteria: QuerySet[Criterion]) -> dict[int, tuple[int, str, int]]:
    """Per criterion, the cells a judgment row shows of it: position, key (its lineage) and revision."""
    rows = criteria.values_list("pk", "position", "lineage_id", "revision")
    return {pk: (position, str(lineage), revision) for pk, position, lineage, revision in rows}


class _Lookups:
    """What a judgment row shows besides the judgment: read once per export (criteria, items) or per batch (responses, experts)."""

    def __init__(self, campaign: Campaign) -> None:
        version = campaign.version_id
        self.criteria = _criterion_cells(Criterion.objects.filter(item__version_id=version))
        self.position = {pk: c[0] for pk, c in self.criteria.items()}
        self.questions = dict(Item.objects.filter(version_id=version).values_list("pk", "question_id"))
        self.experts: dict[int, str] = {}

    def question(self, item: int) -> str:
        if item not in self.questions:
            self.questions[item] = Item.objects.get(pk=item).question_id
        return self.questions[item]

    def criterion(self, pk: int) -> tuple[int, str, int]:
        if pk not in self.criteria:  # a judgment made against another version's criterion (not made by the platform)
            self.criteria.update(_criterion_cells(Criterion.objects.filter(pk=pk)))
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


def _judgment_batches(
    campaign: Campaign, batches: Iterable[list[int]], lookups: _Lookups, only: JudgmentFilter = NO_FILTER
) -> Iterator[_JudgmentBatch]:
    """Per batch of entries, its submitted judgments: three single-table reads on indexes, joined and ordered here."""
    for batch in batches:
        entries = {pk: (public_id, lookups.question(item), model) for pk, public_id, item, model in _entries(batch)}
        rows = _submitted_assignments(batch, only)
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


def _submitted_assignments(batch: list[int], only: JudgmentFilter = NO_FILTER) -> list[Row]:
    """(assignment, entry, expert, submitted_at) of the submitted assignments of the batch's entries (in `only`'s window)."""
    if connection.vendor != "postgresql" or only.since is not None or only.until is not None:
        return list(
            Assignment.objects.filter(only.submitted(), campaign_response_id__in=batch).values_list(
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


def _judgment_rows(campaign: Campaign, batches: Iterable[list[int]], only: JudgmentFilter = NO_FILTER) -> Iterator[Row]:
    lookups = _Lookups(campaign)
    for batch in _judgment_batches(campaign, batches, lookups, only):
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


def _judgment_csv_lines(campaign: Campaign, batches: Iterable[list[int]], only: JudgmentFilter = NO_FILTER) -> Iterator[str]:
    """The judgments' CSV lines, header first, as csv.writer(SafeWriter) writes them, one string per batch.

    What repeats is written once: the response and expert cells and the time per assignment, the
    criterion's cells per criterion; per judgment only the hit and the rationale.
    """
    yield from csv_lines([JUDGMENT_HEADER])
    lookups = _Lookups(campaign)
    criteria: dict[int, str] = {}
    hits = {True: "True", False: "False", None: ""}
    cell, needs_quotes, triggers = _csv_cell, _NEEDS_QUOTES.search, FORMULA_TRIGGERS
    for batch in _judgment_batches(campaign, batches, lookups, only):
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


def python_judgment_csv(campaign: Campaign, only: JudgmentFilter = NO_FILTER) -> str:
    """The judgments' CSV through csv.writer(SafeWriter), row by row (what the lines written here must equal)."""
    return "".join(csv_lines(export_rows(campaign, "judgments", entry_batches(campaign, set(), only=only), only)))


def judgment_csv(campaign: Campaign, only: JudgmentFilter = NO_FILTER) -> str:
    """The judgments' CSV as the export writes it in Python (the path SQLite takes)."""
    return "".join(_judgment_csv_lines(campaign, entry_batches(campaign, set(), only=only), only))


def copied_judgment_csv_text(campaign: Campaign, only: JudgmentFilter = NO_FILTER) -> str:
    """The judgments' CSV as PostgreSQL's COPY writes it (PostgreSQL only)."""
    ranges = entry_ranges(campaign, set(), size=COPY_ENTRIES_PER_BATCH, only=only)
    return b"".join(copied_judgment_csv(campaign, ranges, only)).decode("utf-8")


# --- PostgreSQL: the judgments' CSV written by COPY -----------------------------------------------------


def _sql_literal(text: str) -> str:
    """A short constant as an escaped SQL string (E'…')."""
    return "E'" + text.replace("\\", "\\\\").replace("'", "''").replace("\t", "\\t").replace("\r", "\\r") + "'"


def _sql_text_cell(column: str) -> str:
    """A text column as `SafeWriter` writes it: a leading quote before a formula trigger; "" as NULL (COPY leaves it unquoted).

    The first character is compared by its code (`ascii` gives it for any encoding): no string is made per cell.
    """
    codes = ", ".join(str(ord(t)) for t in FORMULA_TRIGGERS)
    return f"NULLIF(CASE WHEN ascii({column}) IN ({codes}) THEN {_sql_literal(chr(39))} || {column} ELSE {column} END, '')"


def _sql_isoformat(column: str) -> str:
    """A timestamptz as Python's `datetime.isoformat` writes it in UTC (microseconds only when there are some); NULL stays NULL."""
    utc = f"({column} AT TIME ZONE 'UTC')"
    return (
        f"to_char({utc}, 'YYYY-MM-DD\"T\"HH24:MI:SS')"
        f" || CASE WHEN date_trunc('second', {utc}) = {utc} THEN '' ELSE to_char({utc}, '.US') END || '+00:00'"
    )


def _copy_statement(campaign: Campaign, only: JudgmentFilter) -> tuple[str, Callable[[EntryRange], list[Any]]]:
    """The COPY of one range of entries' judgments in the export's order, and the parameters it takes for a range.

    The order is the query's own: entry id, then criterion position, expert (by code point, as
    Python sorts names) and judgment id. The entries are read in id order through their primary
    key, so PostgreSQL sorts only each entry's rows (an incremental sort whose presorted key is the
    entry: `_COPY_PLAN`), never the range's rows together, and no query reads more than its range
    (index lookups throughout, whatever the size of the tables). The cells of an entry are written
    once per entry and those of an assignment once per assignment (`OFFSET 0` keeps that subquery
    whole); the criterion's come from a lookup per judgment.
    """
    window = ["a.status = %s"]
    window_params: list[Any] = [Assignment.Status.SUBMITTED.value]
    if only.since is not None:
        window.append("a.submitted_at >= %s")
        window_params.append(only.since)
    if only.until is not None:
        window.append("a.submitted_at < %s")
        window_params.append(only.until)
    models = ""
    model_params: list[Any] = []
    if only.models:
        models = " AND m.name = ANY(%s)"
        model_params.append(list(only.models))
    entries = (
        f"SELECT e.id, {_sql_text_cell('r.public_id')} AS response, {_sql_text_cell('i.question_id')} AS question,"
        f" {_sql_text_cell('m.name')} AS model"
        f" FROM {_table(CampaignResponse)} e JOIN {_table(ModelResponse)} r ON r.id = e.response_id"
        f" JOIN {_table(LanguageModel)} m ON m.id = r.model_id JOIN {_table(Item)} i ON i.id = e.item_id"
        f" WHERE e.campaign_id = %s AND e.id BETWEEN %s AND %s AND e.id <> ALL(%s){models} ORDER BY e.id"
    )
    assignments = (
        f"SELECT a.id, u.username, {_sql_text_cell('u.username')} AS expert, {_sql_isoformat('a.submitted_at')} AS submitted"
        f" FROM {_table(Assignment)} a JOIN {_table(User)} u ON u.id = a.expert_id"
        f" WHERE a.campaign_response_id = e.id AND {' AND '.join(window)} OFFSET 0"
    )
    judgments = (
        "SELECT a.expert, a.username, j.id, c.position, c.lineage_id::text AS lineage, c.revision,"
        f" CASE WHEN j.hit THEN 'True' WHEN NOT j.hit THEN 'False' END AS hit, {_sql_text_cell('j.rationale')} AS rationale, a.submitted"
        f" FROM ({assignments}) a JOIN {_table(Judgment)} j ON j.assignment_id = a.id JOIN {_table(Criterion)} c ON c.id = j.criterion_id"
    )
    query = (
        "SELECT e.response, e.question, e.model, x.expert, x.position, x.lineage, x.revision, x.hit, x.rationale, x.submitted"
        f" FROM ({entries}) e CROSS JOIN LATERAL ({judgments}) x"
        ' ORDER BY e.id, x.position, x.username COLLATE "C", x.id'
    )

    def params(span: EntryRange) -> list[Any]:
        """In the order they appear: the entries' (the campaign, the range, the models), then the window's."""
        return [campaign.pk, span.first, span.last, span.left_out, *model_params, *window_params]

    return f"COPY ({query}) TO STDOUT (FORMAT csv)", params


# Nested loops only, in one process, without JIT compilation: a range's rows are found through indexes, in
# entry order, at a cost that does not depend on the size of the tables (a hash join would read whole
# tables), and the first rows go out at once. Without a full sort, the ORDER BY is met by sorting each
# entry's few rows (incremental sort), which needs no memory beyond one entry and never spills to disk.
_COPY_PLAN = (
    "SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off;"
    " SET LOCAL enable_sort = off; SET LOCAL jit = off"
)


def copied_judgment_csv(campaign: Campaign, ranges: Iterable[EntryRange], only: JudgmentFilter = NO_FILTER) -> Iterator[bytes]:
    """The judgments' CSV (header first) in chunks of about CHUNK_CHARS bytes, one COPY per range of entries.

    psycopg hands over one row per read (PostgreSQL sends a row per message), so each row's LF is
    replaced by CRLF without looking inside it (a line break in a rationale stays as it was), in a
    buffer that grows in place until it holds a chunk. Each COPY runs in a short transaction of its
    own (for its planner settings); a download cut short cancels it and rolls that back.
    """
    statement, params = _copy_statement(campaign, only)
    yield "".join(csv_lines([JUDGMENT_HEADER])).encode()
    limit, crlf = CHUNK_CHARS, b"\r\n"
    for span in ranges:
        chunk = bytearray()
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_COPY_PLAN)
            # psycopg's own cursor: Django's debug wrapper of `copy` takes no parameters (they are merged client-side here).
            with cursor.cursor.copy(statement, params(span)) as copy:
                for row in copy:
                    chunk += row
                    chunk[-1:] = crlf  # the row's LF: nothing inside the row is looked at
                    if len(chunk) >= limit:
                        yield bytes(chunk)
                        chunk = bytearray()
        if chunk:
            yield bytes(chunk)


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
