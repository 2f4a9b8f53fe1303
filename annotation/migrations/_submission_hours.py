"""The triggers that keep `annotation_submissionhour` true on every write, on PostgreSQL and on SQLite (migration 0013).

One row per campaign and hour (UTC): how many of its real responses' assignments (gold checks
left out) were submitted in that hour. A campaign's pace (submissions per day over the last week)
and the first submission's hour are read from these rows, a few hundred at most per campaign,
instead of from every submitted assignment. As in `_tallies`, counting in the database makes
every path count (the services, COPY, cascades, raw SQL), and `recount_sql` rebuilds the rows.

An assignment counts where it is submitted with a submission time; moving it in or out of that
state, changing its time or its response adds and takes away. A campaign response's gold flag
changing moves its submitted assignments in or out (its campaign cannot change once it has
assignments: `_tallies` refuses it).
"""

from django.db import migrations

from annotation.migrations import _tallies

SUBMITTED = "status = 'submitted' AND {row}.submitted_at IS NOT NULL"


def hour_of(column: str, vendor: str) -> str:
    """The hour (UTC) a timestamp falls in, as the column stores it: whatever the session's time zone on PostgreSQL."""
    if vendor == "postgresql":
        return f"(date_trunc('hour', {column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')"
    return f"strftime('%Y-%m-%d %H:00:00', {column})"


# --- PostgreSQL ---------------------------------------------------------------------------------

# The statement's rows with a sign, as the other tallies read them (`_tallies._signed`): an update gives
# the changed rows twice, as they were (-1) and as they are (+1).
_COLUMNS = "id, campaign_response_id, status, submitted_at"
_CHANGED = "o.status <> n.status OR o.submitted_at IS DISTINCT FROM n.submitted_at OR o.campaign_response_id <> n.campaign_response_id"


def _pg_add(parts: str) -> str:
    """Add `parts` (rows of campaign_id, hour, submitted, adds) to the hour rows: one change per row, new rows inserted."""
    key = "t.campaign_id = d.campaign_id AND t.hour = d.hour"
    return f"""
      WITH d AS MATERIALIZED (SELECT * FROM ({parts}) p WHERE p.submitted <> 0),
      updated AS (
        UPDATE annotation_submissionhour t SET submitted = t.submitted + d.submitted FROM d WHERE {key} RETURNING t.campaign_id, t.hour
      )
      INSERT INTO annotation_submissionhour AS t (campaign_id, hour, submitted)
      SELECT d.campaign_id, d.hour, d.submitted FROM d
      WHERE d.adds AND NOT EXISTS (SELECT 1 FROM updated t WHERE {key})
      ORDER BY d.campaign_id, d.hour
      ON CONFLICT (campaign_id, hour) DO UPDATE SET submitted = t.submitted + EXCLUDED.submitted;
    """


def _pg_assignment_statement(op: str, new_rows: str = "new_rows") -> str:
    """The statement's assignments' submissions, summed per campaign and hour, added to the hour rows."""
    return _pg_add(f"""
        SELECT cr.campaign_id, {hour_of("r.submitted_at", "postgresql")} AS hour, SUM(r.sign) AS submitted, BOOL_OR(r.sign > 0) AS adds
        FROM ({_tallies._signed(op, _COLUMNS, _CHANGED, new_rows)}) r JOIN annotation_campaignresponse cr ON cr.id = r.campaign_response_id
        WHERE r.{SUBMITTED.format(row="r")} AND NOT cr.is_gold
        GROUP BY 1, 2
    """)


_PG_GOLD_FLAG_CHANGED = _pg_add(f"""
    SELECT n.campaign_id, {hour_of("a.submitted_at", "postgresql")} AS hour,
           SUM(CASE WHEN n.is_gold THEN -1 ELSE 1 END) AS submitted, BOOL_OR(NOT n.is_gold) AS adds
    FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN annotation_assignment a ON a.campaign_response_id = n.id
    WHERE o.is_gold <> n.is_gold AND o.campaign_id = n.campaign_id AND a.{SUBMITTED.format(row="a")}
    GROUP BY 1, 2
""")

_ASSIGNMENT_FUNCTION = "annotation_submission_hours"
_RESPONSE_FUNCTION = "annotation_submission_hours_gold"

POSTGRES_FORWARD = [
    _tallies._pg_function(_ASSIGNMENT_FUNCTION, {op: _pg_assignment_statement(op) for op in _tallies._TRANSITIONS}),
    *_tallies._pg_triggers("annotation_assignment", _ASSIGNMENT_FUNCTION),
    _tallies._pg_function(_RESPONSE_FUNCTION, {"UPDATE": _PG_GOLD_FLAG_CHANGED}),
    f"""
    DROP TRIGGER IF EXISTS {_RESPONSE_FUNCTION}_update ON annotation_campaignresponse;
    CREATE TRIGGER {_RESPONSE_FUNCTION}_update AFTER UPDATE ON annotation_campaignresponse REFERENCING {_tallies._TRANSITIONS["UPDATE"]}
    FOR EACH STATEMENT EXECUTE FUNCTION {_RESPONSE_FUNCTION}();
    """,
]
POSTGRES_TRIGGERS = frozenset(
    {("annotation_assignment", f"{_ASSIGNMENT_FUNCTION}_{op.lower()}") for op in _tallies._TRANSITIONS}
    | {("annotation_campaignresponse", f"{_RESPONSE_FUNCTION}_update")}
)
POSTGRES_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {name} ON {table};" for table, name in sorted(POSTGRES_TRIGGERS)),
    f"DROP FUNCTION IF EXISTS {_ASSIGNMENT_FUNCTION}();",
    f"DROP FUNCTION IF EXISTS {_RESPONSE_FUNCTION}();",
]


def count_inserted_sql() -> list[str]:
    """PostgreSQL: what the insert trigger does, for assignments written without it (`%(assignments)s`: their ids)."""
    # Joined to the ids, not filtered by `id = ANY(...)`: with tens of thousands of ids PostgreSQL may scan the table
    # and compare each row with every id (2.4 s for the 49,560 assignments of a 10x import).
    return [
        _pg_assignment_statement(
            "INSERT", "(SELECT a.* FROM unnest(%(assignments)s::bigint[]) AS i(id) JOIN annotation_assignment a ON a.id = i.id)"
        )
    ]


# --- SQLite -------------------------------------------------------------------------------------


def _sq_change(row: str, sign: str) -> str:
    """Add (sign "+") or take away ("-") one assignment row's submission (`NEW` or `OLD`).

    Taking away only lowers a row that is there (its submission made it), as on PostgreSQL: a row
    inserted while a campaign is being deleted (its hour rows gone first, its assignments after,
    as Django's flush may order them) would name a campaign that no longer exists.
    """
    if sign == "-":
        return f"""
      UPDATE annotation_submissionhour SET submitted = submitted - 1
      WHERE {row}.{SUBMITTED.format(row=row)} AND hour = {hour_of(f"{row}.submitted_at", "sqlite")}
        AND campaign_id = (SELECT cr.campaign_id FROM annotation_campaignresponse cr WHERE cr.id = {row}.campaign_response_id AND NOT cr.is_gold);
    """
    return f"""
      INSERT INTO annotation_submissionhour (campaign_id, hour, submitted)
      SELECT cr.campaign_id, {hour_of(f"{row}.submitted_at", "sqlite")}, {sign}1 FROM annotation_campaignresponse cr
      WHERE cr.id = {row}.campaign_response_id AND NOT cr.is_gold AND {row}.{SUBMITTED.format(row=row)}
      ON CONFLICT (campaign_id, hour) DO UPDATE SET submitted = submitted + excluded.submitted;
    """


_SQ_CHANGED = "OLD.status <> NEW.status OR OLD.submitted_at IS NOT NEW.submitted_at OR OLD.campaign_response_id <> NEW.campaign_response_id"

SQLITE_FORWARD = [
    f"CREATE TRIGGER {_ASSIGNMENT_FUNCTION}_insert AFTER INSERT ON annotation_assignment FOR EACH ROW BEGIN {_sq_change('NEW', '+')} END;",
    f"CREATE TRIGGER {_ASSIGNMENT_FUNCTION}_delete AFTER DELETE ON annotation_assignment FOR EACH ROW BEGIN {_sq_change('OLD', '-')} END;",
    f"""
    CREATE TRIGGER {_ASSIGNMENT_FUNCTION}_update AFTER UPDATE ON annotation_assignment FOR EACH ROW WHEN ({_SQ_CHANGED})
    BEGIN {_sq_change("OLD", "-")} {_sq_change("NEW", "+")} END;
    """,
    f"""
    CREATE TRIGGER {_RESPONSE_FUNCTION}_update AFTER UPDATE ON annotation_campaignresponse FOR EACH ROW
    WHEN OLD.is_gold <> NEW.is_gold AND OLD.campaign_id = NEW.campaign_id
    BEGIN
      INSERT INTO annotation_submissionhour (campaign_id, hour, submitted)
      SELECT NEW.campaign_id, {hour_of("a.submitted_at", "sqlite")}, SUM(CASE WHEN NEW.is_gold THEN -1 ELSE 1 END)
      FROM annotation_assignment a WHERE a.campaign_response_id = NEW.id AND a.{SUBMITTED.format(row="a")}
      GROUP BY 2
      ON CONFLICT (campaign_id, hour) DO UPDATE SET submitted = submitted + excluded.submitted;
    END;
    """,
]
SQLITE_BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {_ASSIGNMENT_FUNCTION}_{op};" for op in ("insert", "delete", "update")),
    f"DROP TRIGGER IF EXISTS {_RESPONSE_FUNCTION}_update;",
]


# --- the counts from scratch -----------------------------------------------------------------------


def recount_sql(campaign_ids: str | None, vendor: str) -> list[str]:
    """Statements that delete and rebuild the hour rows (of the campaigns in the SQL list `campaign_ids`, or of all)."""
    only = f" WHERE campaign_id IN ({campaign_ids})" if campaign_ids is not None else ""
    and_only = f" AND cr.campaign_id IN ({campaign_ids})" if campaign_ids is not None else ""
    return [
        f"DELETE FROM annotation_submissionhour{only};",
        f"""INSERT INTO annotation_submissionhour (campaign_id, hour, submitted)
            SELECT cr.campaign_id, {hour_of("a.submitted_at", vendor)}, COUNT(*)
            FROM annotation_assignment a JOIN annotation_campaignresponse cr ON cr.id = a.campaign_response_id
            WHERE a.{SUBMITTED.format(row="a")} AND NOT cr.is_gold{and_only}
            GROUP BY 1, 2;""",
    ]


def create_triggers() -> migrations.RunPython:
    """Create the triggers (either database) and count the submissions already there."""

    def run(forward: bool):  # noqa: ANN202
        def apply(apps, schema_editor):  # noqa: ANN001, ANN202
            vendor = schema_editor.connection.vendor
            if vendor == "postgresql":
                statements = [*POSTGRES_FORWARD, *recount_sql(None, vendor)] if forward else POSTGRES_BACKWARD
            elif vendor == "sqlite":
                statements = [*SQLITE_FORWARD, *recount_sql(None, vendor)] if forward else SQLITE_BACKWARD
            else:
                statements = []
            for sql in statements:
                schema_editor.execute(sql)

        return apply

    return migrations.RunPython(run(True), run(False))


def _on_sqlite(statements: list[str]):  # noqa: ANN202
    def run(apps, schema_editor):  # noqa: ANN001, ANN202
        if schema_editor.connection.vendor == "sqlite":
            for sql in statements:
                schema_editor.execute(sql)

    return run


def drop_on_sqlite() -> migrations.RunPython:
    """Drop the SQLite triggers before a table rebuild (recreated afterwards by `create_on_sqlite`)."""
    return migrations.RunPython(_on_sqlite(SQLITE_BACKWARD), _on_sqlite(SQLITE_FORWARD))


def create_on_sqlite() -> migrations.RunPython:
    """Recreate the SQLite triggers after a table rebuild, and recount what the rebuild may have missed."""
    return migrations.RunPython(_on_sqlite([*SQLITE_FORWARD, *recount_sql(None, "sqlite")]), _on_sqlite(SQLITE_BACKWARD))
