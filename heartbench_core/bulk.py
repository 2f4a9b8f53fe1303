"""Writing many rows at once: ids drawn ahead from a table's sequence and PostgreSQL's COPY.

`bulk_create` builds a model instance per row and sends parameters through the driver, about
20 µs a row; imports of hundreds of thousands of rows write COPY's text format instead, a few
µs a row. Callers format their rows with `copy_value`/`copy_text` and hand the lines to
`copy_lines`. PostgreSQL only: the callers keep `bulk_create` for the other databases.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from django.db import connection
from django.db.models import Model

# Characters COPY's text format gives a meaning to; NUL never reaches here (the readers refuse it).
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
CHUNK_BYTES = 1 << 20


def copy_text(value: str) -> str:
    """A string as one field of COPY's text format."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        return value.translate(_ESCAPES)
    return value


def copy_time(value: datetime) -> str:
    """A timestamp as one field of COPY's text format (ISO 8601 with its offset)."""
    return value.isoformat()


def next_ids(model: type[Model], count: int) -> list[int]:
    """Draw `count` primary keys from the model's identity sequence, as the inserts themselves would."""
    if count == 0:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)", [table, model._meta.pk.column, count])
        return [row[0] for row in cursor.fetchall()]


def pieces(lines: Iterable[str], size: int) -> Iterator[str]:
    """Lines joined into pieces of about `size` characters (the last one shorter): few large writes, not one per line."""
    buffer: list[str] = []
    length = 0
    for line in lines:
        buffer.append(line)
        length += len(line)
        if length >= size:
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


def copy_lines(model: type[Model], columns: Sequence[str], lines: Iterable[str]) -> None:
    """COPY rows (each a line of tab-separated fields ending in a newline) into the model's table, in chunks of about a megabyte.

    When there is more than one chunk they are sent by psycopg's writer thread (`QueuedLibpqWriter`),
    so this process formats the next chunk while PostgreSQL takes the last one; a single chunk (a
    file of a few thousand rows) is sent at once, without starting a thread.
    """
    from psycopg.copy import QueuedLibpqWriter  # PostgreSQL only, as this function

    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    chunks = pieces(lines, CHUNK_BYTES)
    first = next(chunks, "")
    second = next(chunks, None)
    with connection.cursor() as cursor:
        writer = None if second is None else QueuedLibpqWriter(cursor.cursor)
        with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN", writer=writer) as copy:
            if first:
                copy.write(first.encode())
            if second is not None:
                copy.write(second.encode())
                for piece in chunks:
                    copy.write(piece.encode())


def may_skip_row_triggers(tables: Sequence[str], replaced: frozenset[tuple[str, str]] = frozenset()) -> bool:
    """Whether this connection may write `tables` without their triggers (foreign-key checks included).

    True only on PostgreSQL, when the role may set `session_replication_role` (a superuser, or
    `GRANT SET ON PARAMETER session_replication_role` on PostgreSQL 15 and later) and the tables
    carry no user trigger but those the caller names in `replaced` ((table, trigger) pairs whose
    work it does itself, set-based). A trigger added later makes this False until the caller
    learns it.
    """
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('is_superuser') = 'on', current_setting('server_version_num')::int")
        superuser, version = cursor.fetchone()
        if not superuser:
            if version < 150000:
                return False
            cursor.execute("SELECT has_parameter_privilege('session_replication_role', 'SET')")
            if not cursor.fetchone()[0]:
                return False
        cursor.execute(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " WHERE NOT t.tgisinternal AND c.relname = ANY(%s)",
            [list(tables)],
        )
        return all(tuple(row) in replaced for row in cursor.fetchall())


@contextmanager
def skipped_row_triggers() -> Iterator[None]:
    """Turn off triggers, foreign-key checks included, for the writes inside the block (within the current transaction).

    The caller has checked `may_skip_row_triggers` for the tables it writes inside, checks every
    reference itself and locks the referenced rows (`lock_referenced`), as the foreign-key checks
    would have. Writes before and after the block go through every trigger.
    """
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
    yield
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = origin")


def references_hold(referenced: Iterable[tuple[type[Model], Iterable[int]]]) -> bool:
    """Lock every row of each (model, ids) as a foreign-key check would (`lock_referenced`); whether every one still exists.

    What a writer that skips the per-row checks (`skipped_row_triggers`) does in their place, before
    writing: when it is False, write nothing and tell the user the data changed meanwhile.
    """
    for model, ids in referenced:
        wanted = set(ids)
        if lock_referenced(model, wanted) != len(wanted):
            return False
    return True


def lock_referenced(model: type[Model], ids: Iterable[int]) -> int:
    """Lock the rows a new row will reference (FOR KEY SHARE, as a foreign-key check does); return how many exist."""
    wanted = sorted(set(ids))
    if not wanted:
        return 0
    table = connection.ops.quote_name(model._meta.db_table)
    pk = connection.ops.quote_name(model._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {pk} = ANY(%s) FOR KEY SHARE) AS locked", [wanted])
        return cursor.fetchone()[0]
