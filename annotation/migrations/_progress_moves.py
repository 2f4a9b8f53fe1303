"""The triggers that record a campaign's progress as moves between states (`annotation_progressmove`), on PostgreSQL and on
SQLite (migration 0029).

A response's state is its gold flag, its number of submitted assignments and whether any is
reserved. The response tallies change on every write of an assignment (`_tallies`); these triggers
insert a move out of the old state (-1) and into the new one (+1), summed per statement on
PostgreSQL. Only inserts: no row is shared by concurrent writers, so none waits for another and
none can deadlock on a campaign-wide row. The sweep folds a campaign's moves into one row per
state (`annotation.services.tallies.fold_progress`), so its histogram is a sum over a few rows.

A move of a campaign that no longer exists (its deletion cascading to its responses) is not
recorded. `recount_sql` rebuilds the rows from the tallies. A later migration that makes SQLite
rebuild `annotation_responsetally` drops these triggers and must recreate them (`SQLITE_FORWARD`).
"""

from django.db import migrations

from annotation.migrations._tallies import _run

_KEY = "campaign_id, is_gold, submitted, reserving"
_STATE = "{t}.campaign_id, {t}.is_gold, {t}.submitted, {t}.reserved > 0"
_CHANGED = "{o}.campaign_id <> {n}.campaign_id OR {o}.is_gold <> {n}.is_gold OR {o}.submitted <> {n}.submitted OR ({o}.reserved > 0) <> ({n}.reserved > 0)"
_LIVE_CAMPAIGN = "EXISTS (SELECT 1 FROM annotation_campaign c WHERE c.id = {t}.campaign_id)"


def _signed(op: str) -> str:
    """The statement's tally rows as (sign, state): +1 where a response now is, -1 where it was (an update gives both)."""
    new = f"SELECT 1 AS sign, {_STATE.format(t='n')} AS reserving FROM new_rows n"
    old = f"SELECT -1 AS sign, {_STATE.format(t='o')} AS reserving FROM old_rows o"
    if op == "INSERT":
        return new
    if op == "DELETE":
        return old
    pairs = f" JOIN new_rows n ON n.campaign_response_id = o.campaign_response_id WHERE {_CHANGED.format(o='o', n='n')}"
    return f"{old.replace('FROM old_rows o', 'FROM old_rows o' + pairs)} UNION ALL {new.replace('FROM new_rows n', 'FROM old_rows o' + pairs)}"


def _pg_statement(op: str) -> str:
    return f"""
      INSERT INTO annotation_progressmove ({_KEY}, responses)
      SELECT {_KEY}, SUM(sign) FROM ({_signed(op)}) r WHERE {_LIVE_CAMPAIGN.format(t="r")}
      GROUP BY {_KEY} HAVING SUM(sign) <> 0;
    """


_FUNCTION = "annotation_progress_moves"
_TRANSITIONS = {"INSERT": "NEW TABLE AS new_rows", "DELETE": "OLD TABLE AS old_rows", "UPDATE": "OLD TABLE AS old_rows NEW TABLE AS new_rows"}
_BRANCHES = "\n      ELS".join(f"IF TG_OP = '{op}' THEN {_pg_statement(op)}" for op in _TRANSITIONS)

POSTGRES_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION {_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      {_BRANCHES}
      END IF;
      RETURN NULL;
    END $$;
    """,
    *(
        f"""
        DROP TRIGGER IF EXISTS {_FUNCTION}_{op.lower()} ON annotation_responsetally;
        CREATE TRIGGER {_FUNCTION}_{op.lower()} AFTER {op} ON annotation_responsetally REFERENCING {transition}
        FOR EACH STATEMENT EXECUTE FUNCTION {_FUNCTION}();
        """
        for op, transition in _TRANSITIONS.items()
    ),
]
POSTGRES_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {_FUNCTION}_{op.lower()} ON annotation_responsetally;" for op in _TRANSITIONS),
    f"DROP FUNCTION IF EXISTS {_FUNCTION}();",
]


def _sq_move(row: str, sign: str) -> str:
    return (
        f"INSERT INTO annotation_progressmove ({_KEY}, responses) SELECT {_STATE.format(t=row)}, {sign}1"
        f" WHERE {_LIVE_CAMPAIGN.format(t=row)};"
    )


SQLITE_FORWARD = [
    f"CREATE TRIGGER {_FUNCTION}_insert AFTER INSERT ON annotation_responsetally FOR EACH ROW BEGIN {_sq_move('NEW', '')} END;",
    f"CREATE TRIGGER {_FUNCTION}_delete AFTER DELETE ON annotation_responsetally FOR EACH ROW BEGIN {_sq_move('OLD', '-')} END;",
    f"""
    CREATE TRIGGER {_FUNCTION}_update AFTER UPDATE ON annotation_responsetally FOR EACH ROW
    WHEN {_CHANGED.format(o="OLD", n="NEW")}
    BEGIN {_sq_move("OLD", "-")} {_sq_move("NEW", "")} END;
    """,
]
SQLITE_BACKWARD = [f"DROP TRIGGER IF EXISTS {_FUNCTION}_{op};" for op in ("insert", "delete", "update")]


def recount_sql(campaign_ids: str | None = None) -> list[str]:
    """Statements that delete and rebuild the moves (of the campaigns in the SQL list `campaign_ids`, or of all) from the tallies:
    one row per state."""
    only = f" WHERE campaign_id IN ({campaign_ids})" if campaign_ids is not None else ""
    return [
        f"DELETE FROM annotation_progressmove{only};",
        f"""INSERT INTO annotation_progressmove ({_KEY}, responses)
            SELECT campaign_id, is_gold, submitted, reserved > 0, COUNT(*) FROM annotation_responsetally{only}
            GROUP BY campaign_id, is_gold, submitted, reserved > 0;""",
    ]


def create_triggers() -> migrations.RunPython:
    """Create the triggers (either database) and count what is already there."""
    forward = {"postgresql": [*POSTGRES_FORWARD, *recount_sql()], "sqlite": [*SQLITE_FORWARD, *recount_sql()]}
    return migrations.RunPython(_run(forward), _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}))
