"""Database-level protection of the audit log and of revision content.

PostgreSQL and SQLite triggers (migration 0002) refuse UPDATE and DELETE of audit entries and
any change to a revision's content. Wiping the whole database is the one exception: Django's
`flush` (used between transactional tests) deletes every row, and PostgreSQL's TRUNCATE does not
fire row triggers anyway. On SQLite the DELETE triggers ask `rubrics_rows_locked()`, a function
registered on each connection that answers 0 only inside `flush`; a connection without it (any
other client) gets "no such function" and the delete is refused as well.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.db.backends.signals import connection_created

if TYPE_CHECKING:
    from types import FrameType

    from django.db.backends.base.base import BaseDatabaseWrapper

FLUSH_MODULE = "django/core/management/commands/flush.py"


def rows_locked() -> int:
    """1 unless the call comes from Django's flush command (a full database wipe)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.replace("\\", "/").endswith(FLUSH_MODULE):
            return 0
        frame = frame.f_back
    return 1


def register_sqlite_function(sender: type[BaseDatabaseWrapper], connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_function("rubrics_rows_locked", 0, rows_locked)


def connect() -> None:
    connection_created.connect(register_sqlite_function, dispatch_uid="rubrics_rows_locked")


AUDIT_TABLE = "rubrics_auditentry"
REVISION_TABLE = "rubrics_criterionrevision"


def sqlite_statements(content_columns: Iterable[str]) -> list[str]:
    changed = " OR ".join(f'OLD."{c}" IS NOT NEW."{c}"' for c in content_columns)
    return [
        f"""CREATE TRIGGER {AUDIT_TABLE}_no_update BEFORE UPDATE ON {AUDIT_TABLE}
            BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: UPDATE refused'); END""",
        f"""CREATE TRIGGER {AUDIT_TABLE}_no_delete BEFORE DELETE ON {AUDIT_TABLE} WHEN rubrics_rows_locked()
            BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: DELETE refused'); END""",
        f"""CREATE TRIGGER {REVISION_TABLE}_no_update BEFORE UPDATE ON {REVISION_TABLE} WHEN {changed}
            BEGIN SELECT RAISE(ABORT, 'criterion revisions are immutable: content UPDATE refused'); END""",
        f"""CREATE TRIGGER {REVISION_TABLE}_no_delete BEFORE DELETE ON {REVISION_TABLE} WHEN rubrics_rows_locked()
            BEGIN SELECT RAISE(ABORT, 'criterion revisions are immutable: DELETE refused'); END""",
    ]


def postgresql_statements(content_columns: Iterable[str]) -> list[str]:
    changed = " OR ".join(f'OLD."{c}" IS DISTINCT FROM NEW."{c}"' for c in content_columns)
    return [
        f"""CREATE OR REPLACE FUNCTION {AUDIT_TABLE}_refuse() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP; END; $$ LANGUAGE plpgsql""",
        f"""CREATE TRIGGER {AUDIT_TABLE}_append_only BEFORE UPDATE OR DELETE ON {AUDIT_TABLE}
            FOR EACH ROW EXECUTE FUNCTION {AUDIT_TABLE}_refuse()""",
        f"""CREATE OR REPLACE FUNCTION {REVISION_TABLE}_refuse() RETURNS trigger AS $$
            BEGIN
              IF TG_OP = 'DELETE' THEN
                RAISE EXCEPTION 'criterion revisions are immutable: DELETE refused';
              END IF;
              IF {changed} THEN
                RAISE EXCEPTION 'criterion revisions are immutable: content UPDATE refused';
              END IF;
              RETURN NEW;
            END; $$ LANGUAGE plpgsql""",
        f"""CREATE TRIGGER {REVISION_TABLE}_immutable BEFORE UPDATE OR DELETE ON {REVISION_TABLE}
            FOR EACH ROW EXECUTE FUNCTION {REVISION_TABLE}_refuse()""",
    ]


def drop_statements(vendor: str) -> list[str]:
    if vendor == "postgresql":
        return [
            f"DROP TRIGGER IF EXISTS {AUDIT_TABLE}_append_only ON {AUDIT_TABLE}",
            f"DROP TRIGGER IF EXISTS {REVISION_TABLE}_immutable ON {REVISION_TABLE}",
            f"DROP FUNCTION IF EXISTS {AUDIT_TABLE}_refuse()",
            f"DROP FUNCTION IF EXISTS {REVISION_TABLE}_refuse()",
        ]
    if vendor == "sqlite":
        return [
            f"DROP TRIGGER IF EXISTS {t}"
            for t in (
                f"{AUDIT_TABLE}_no_update",
                f"{AUDIT_TABLE}_no_delete",
                f"{REVISION_TABLE}_no_update",
                f"{REVISION_TABLE}_no_delete",
            )
        ]
    return []
