"""The triggers that keep the tally tables of 0010 true on every write, on PostgreSQL and on SQLite.

Counting in the database, not in the services, is what makes every path count: the ORM, the
bulk pre-assignment's COPY, `import_campaign`'s COPY, the judgment imports, cascading deletes,
an admin moving work to another expert, a raw SQL repair. Each trigger adds its statement's part
(PostgreSQL: summed over the statement's rows; SQLite: a row's) to the counters it touches (a row
lock each, taken for the rest of the transaction), so concurrent writers serialise on the
counters they share and never lose an update.

- `annotation_campaigntally`: responses of a campaign (and how many are gold checks);
- `annotation_responsetally`: per campaign response, its submitted and reserved assignments;
- `annotation_expertcampaigntally`: per expert and campaign, their assignments by status, their
  time on task, and what payments read (time on submitted work, work submitted while paused).

A decrement never inserts: a row a cascading delete removed first stays removed. A later
migration that makes SQLite rebuild one of these tables must drop the triggers before and
recreate them after (`drop_on_sqlite` / `create_on_sqlite`, as `_judgment_guard` does).
"""

from django.db import migrations

_STATUSES = ("reserved", "submitted", "expired", "released")


def _assignment_terms(row: str, cast: str) -> dict[str, str]:
    """Each counter's part of one assignment row (`NEW` or `OLD`), as SQL integers."""

    def flag(condition: str) -> str:
        return f"({condition}){cast}"

    return {
        "reserved": flag(f"{row}.status = 'reserved'"),
        "preassigned": flag(f"{row}.status = 'reserved' AND {row}.expires_at IS NULL"),
        "submitted": flag(f"{row}.status = 'submitted'"),
        "expired": flag(f"{row}.status = 'expired'"),
        "released": flag(f"{row}.status = 'released'"),
        "active_seconds": f"{row}.active_seconds",
        "submitted_seconds": f"CASE WHEN {row}.status = 'submitted' THEN {row}.active_seconds ELSE 0 END",
        "submitted_while_paused": flag(f"{row}.status = 'submitted' AND {row}.submitted_while_paused"),
    }


def _expert_subtract(cast: str, campaign: str) -> str:
    terms = _assignment_terms("OLD", cast)
    sets = ", ".join(f"{name} = {name} - {term}" for name, term in terms.items())
    return f"UPDATE annotation_expertcampaigntally SET {sets} WHERE expert_id = OLD.expert_id AND campaign_id = {campaign};"


def _response_change(row: str, sign: str, cast: str) -> str:
    terms = _assignment_terms(row, cast)
    return (
        f"UPDATE annotation_responsetally SET submitted = submitted {sign} {terms['submitted']}, "
        f"reserved = reserved {sign} {terms['reserved']} WHERE campaign_response_id = {row}.campaign_response_id;"
    )


_COUNTERS = ("reserved", "preassigned", "submitted", "expired", "released", "active_seconds", "submitted_seconds", "submitted_while_paused")
_TALLY_COLUMNS = "expert_id, campaign_id, " + ", ".join(_COUNTERS)


def _assignment_changed(old: str = "OLD", new: str = "NEW") -> str:
    return (
        f"{old}.status <> {new}.status OR ({old}.expires_at IS NULL) <> ({new}.expires_at IS NULL)"
        f" OR {old}.expert_id <> {new}.expert_id OR {old}.campaign_response_id <> {new}.campaign_response_id"
        f" OR {old}.active_seconds <> {new}.active_seconds OR {old}.submitted_while_paused <> {new}.submitted_while_paused"
    )


# --- PostgreSQL ---------------------------------------------------------------------------------
# Statement-level triggers over transition tables: one statement's rows (a COPY of 50,000
# assignments, a cascading delete, one submission) are summed per counter row first, and each
# counter row is then changed once. Row-level triggers changed a shared counter once per row,
# and each change of a row already changed in the same transaction walks its chain of versions:
# writing n rows of one campaign cost O(n²).

_PG_CAST = "::int"
_ASSIGNMENT_COLUMNS = "id, expert_id, campaign_response_id, status, expires_at, active_seconds, submitted_while_paused"


def _signed(op: str, columns: str, changed: str, new_rows: str = "new_rows") -> str:
    """The statement's rows with a sign: +1 for a row that is now there, -1 for one that was (an update gives both, changed rows only)."""
    prefixed = ", ".join(f"{{t}}.{c.strip()}" for c in columns.split(","))
    new, old = prefixed.format(t="n"), prefixed.format(t="o")
    if op == "INSERT":
        return f"SELECT 1 AS sign, {new} FROM {new_rows} n"
    if op == "DELETE":
        return f"SELECT -1 AS sign, {old} FROM old_rows o"
    pairs = f"FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE {changed}"
    return f"SELECT -1 AS sign, {old} {pairs} UNION ALL SELECT 1 AS sign, {new} {pairs}"


def _pg_assignment_statement(op: str, new_rows: str = "new_rows") -> str:
    """One statement that moves the statement's assignments' parts into the response and expert tallies."""
    terms = _assignment_terms("r", _PG_CAST)
    sums = ", ".join(f"SUM(r.sign * {terms[name]}) AS {name}" for name in _COUNTERS)
    nonzero = " OR ".join(f"{name} <> 0" for name in _COUNTERS)
    key = "t.expert_id = d.expert_id AND t.campaign_id = d.campaign_id"
    return f"""
      WITH r AS MATERIALIZED ({_signed(op, _ASSIGNMENT_COLUMNS, _assignment_changed("o", "n"), new_rows)}),
      per_response AS (
        SELECT r.campaign_response_id, SUM(r.sign * {terms["submitted"]}) AS submitted, SUM(r.sign * {terms["reserved"]}) AS reserved
        FROM r GROUP BY r.campaign_response_id
      ),
      responses AS (
        UPDATE annotation_responsetally t SET submitted = t.submitted + p.submitted, reserved = t.reserved + p.reserved
        FROM per_response p WHERE t.campaign_response_id = p.campaign_response_id AND (p.submitted <> 0 OR p.reserved <> 0)
      ),
      d AS (
        SELECT * FROM (
          SELECT r.expert_id, cr.campaign_id, {sums}, BOOL_OR(r.sign > 0) AS adds
          FROM r JOIN annotation_campaignresponse cr ON cr.id = r.campaign_response_id
          GROUP BY r.expert_id, cr.campaign_id
        ) s WHERE {nonzero}
      ),
      updated AS (
        UPDATE annotation_expertcampaigntally t SET {", ".join(f"{n} = t.{n} + d.{n}" for n in _COUNTERS)}
        FROM d WHERE {key} RETURNING t.expert_id, t.campaign_id
      )
      INSERT INTO annotation_expertcampaigntally AS t ({_TALLY_COLUMNS})
      SELECT d.expert_id, d.campaign_id, {", ".join(f"d.{n}" for n in _COUNTERS)} FROM d
      WHERE d.adds AND NOT EXISTS (SELECT 1 FROM updated t WHERE {key})
      ORDER BY d.expert_id, d.campaign_id
      ON CONFLICT (expert_id, campaign_id) DO UPDATE SET {", ".join(f"{n} = t.{n} + EXCLUDED.{n}" for n in _COUNTERS)};
    """


_CR_CHANGED = "o.is_gold <> n.is_gold OR o.campaign_id <> n.campaign_id"


def _pg_campaign_statement(op: str, new_rows: str = "new_rows") -> str:
    """One statement that moves the statement's campaign responses' parts into the campaign tallies."""
    key = "t.campaign_id = d.campaign_id"
    return f"""
      WITH r AS MATERIALIZED ({_signed(op, "id, campaign_id, is_gold", _CR_CHANGED, new_rows)}),
      d AS (
        SELECT * FROM (
          SELECT r.campaign_id, SUM(r.sign) AS responses, SUM(r.sign * r.is_gold::int) AS gold_responses, BOOL_OR(r.sign > 0) AS adds
          FROM r GROUP BY r.campaign_id
        ) s WHERE responses <> 0 OR gold_responses <> 0
      ),
      updated AS (
        UPDATE annotation_campaigntally t SET responses = t.responses + d.responses, gold_responses = t.gold_responses + d.gold_responses
        FROM d WHERE {key} RETURNING t.campaign_id
      )
      INSERT INTO annotation_campaigntally AS t (campaign_id, responses, gold_responses)
      SELECT d.campaign_id, d.responses, d.gold_responses FROM d
      WHERE d.adds AND NOT EXISTS (SELECT 1 FROM updated t WHERE {key})
      ORDER BY d.campaign_id
      ON CONFLICT (campaign_id) DO UPDATE SET responses = t.responses + EXCLUDED.responses, gold_responses = t.gold_responses + EXCLUDED.gold_responses;
    """


_PG_NEW_RESPONSE_TALLIES = """
      INSERT INTO annotation_responsetally (campaign_response_id, campaign_id, is_gold, submitted, reserved)
      SELECT n.id, n.campaign_id, n.is_gold, 0, 0 FROM {new_rows} n ORDER BY n.id;
"""
_PG_RESPONSE_ROWS = {
    "INSERT": _PG_NEW_RESPONSE_TALLIES.format(new_rows="new_rows"),
    "DELETE": "DELETE FROM annotation_responsetally t USING old_rows o WHERE t.campaign_response_id = o.id;",
    "UPDATE": f"""
      IF EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
                 WHERE o.campaign_id <> n.campaign_id AND EXISTS (SELECT 1 FROM annotation_assignment a WHERE a.campaign_response_id = o.id)) THEN
        RAISE EXCEPTION 'a campaign response with assignments cannot move to another campaign';
      END IF;
      UPDATE annotation_responsetally t SET campaign_id = n.campaign_id, is_gold = n.is_gold
      FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE t.campaign_response_id = n.id AND ({_CR_CHANGED});
    """,
}

_TRANSITIONS = {"INSERT": "NEW TABLE AS new_rows", "DELETE": "OLD TABLE AS old_rows", "UPDATE": "OLD TABLE AS old_rows NEW TABLE AS new_rows"}


def _pg_function(name: str, bodies: dict[str, str]) -> str:
    branches = "\n      ELS".join(f"IF TG_OP = '{op}' THEN {body}" for op, body in bodies.items())
    return f"""
    CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      {branches}
      END IF;
      RETURN NULL;
    END $$;
    """


def _pg_triggers(table: str, function: str) -> list[str]:
    return [
        f"""
        DROP TRIGGER IF EXISTS {function}_{op.lower()} ON {table};
        CREATE TRIGGER {function}_{op.lower()} AFTER {op} ON {table} REFERENCING {_TRANSITIONS[op]}
        FOR EACH STATEMENT EXECUTE FUNCTION {function}();
        """
        for op in _TRANSITIONS
    ]


POSTGRES_FORWARD = [
    _pg_function("annotation_tally_assignment", {op: _pg_assignment_statement(op) for op in _TRANSITIONS}),
    *_pg_triggers("annotation_assignment", "annotation_tally_assignment"),
    _pg_function(
        "annotation_tally_campaignresponse",
        {op: (_PG_RESPONSE_ROWS[op] if op == "UPDATE" else "") + _pg_campaign_statement(op) + (_PG_RESPONSE_ROWS[op] if op != "UPDATE" else "") for op in _TRANSITIONS},
    ),
    *_pg_triggers("annotation_campaignresponse", "annotation_tally_campaignresponse"),
]
# The names of the triggers above, by table: what a writer that counts its own rows replaces (`count_inserted_sql`).
POSTGRES_TRIGGERS = frozenset(
    (table, f"{function}_{op.lower()}")
    for table, function in (
        ("annotation_assignment", "annotation_tally_assignment"),
        ("annotation_campaignresponse", "annotation_tally_campaignresponse"),
    )
    for op in _TRANSITIONS
)


def count_inserted_sql() -> list[str]:
    """PostgreSQL: what the insert triggers do, for rows written without them (`%(responses)s`, `%(assignments)s`: their ids).

    Campaign responses first (their response tallies are created), then assignments.
    """
    # Joined to the ids rather than filtered by `id = ANY(...)`, which PostgreSQL may evaluate against every id for every row.
    responses = "(SELECT r.* FROM unnest(%(responses)s::bigint[]) AS i(id) JOIN annotation_campaignresponse r ON r.id = i.id)"
    assignments = "(SELECT a.* FROM unnest(%(assignments)s::bigint[]) AS i(id) JOIN annotation_assignment a ON a.id = i.id)"
    return [
        _pg_campaign_statement("INSERT", responses),
        _PG_NEW_RESPONSE_TALLIES.format(new_rows=responses),
        _pg_assignment_statement("INSERT", assignments),
    ]


POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS annotation_tally_assignment_insert ON annotation_assignment;",
    "DROP TRIGGER IF EXISTS annotation_tally_assignment_delete ON annotation_assignment;",
    "DROP TRIGGER IF EXISTS annotation_tally_assignment_update ON annotation_assignment;",
    "DROP FUNCTION IF EXISTS annotation_tally_assignment();",
    "DROP TRIGGER IF EXISTS annotation_tally_campaignresponse_insert ON annotation_campaignresponse;",
    "DROP TRIGGER IF EXISTS annotation_tally_campaignresponse_delete ON annotation_campaignresponse;",
    "DROP TRIGGER IF EXISTS annotation_tally_campaignresponse_update ON annotation_campaignresponse;",
    "DROP FUNCTION IF EXISTS annotation_tally_campaignresponse();",
]

# --- SQLite -------------------------------------------------------------------------------------

_sq_new = _assignment_terms("NEW", "")
_SQ_CAMPAIGN_OF_OLD = "(SELECT campaign_id FROM annotation_campaignresponse WHERE id = OLD.campaign_response_id)"
_SQ_ADD_NEW = f"""
      INSERT INTO annotation_expertcampaigntally ({_TALLY_COLUMNS})
      SELECT NEW.expert_id, campaign_id, {", ".join(_sq_new[name] for name in _COUNTERS)}
      FROM annotation_campaignresponse WHERE id = NEW.campaign_response_id
      ON CONFLICT (expert_id, campaign_id) DO UPDATE SET {", ".join(f"{n} = {n} + excluded.{n}" for n in _COUNTERS)};
      {_response_change("NEW", "+", "")}
"""
_SQ_SUBTRACT_OLD = f"""
      {_expert_subtract("", _SQ_CAMPAIGN_OF_OLD)}
      {_response_change("OLD", "-", "")}
"""

SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER annotation_tally_assignment_insert AFTER INSERT ON annotation_assignment FOR EACH ROW
    BEGIN {_SQ_ADD_NEW} END;
    """,
    f"""
    CREATE TRIGGER annotation_tally_assignment_delete AFTER DELETE ON annotation_assignment FOR EACH ROW
    BEGIN {_SQ_SUBTRACT_OLD} END;
    """,
    f"""
    CREATE TRIGGER annotation_tally_assignment_update AFTER UPDATE ON annotation_assignment FOR EACH ROW
    WHEN ({_assignment_changed()})
    BEGIN {_SQ_SUBTRACT_OLD} {_SQ_ADD_NEW} END;
    """,
    """
    CREATE TRIGGER annotation_tally_campaignresponse_insert AFTER INSERT ON annotation_campaignresponse FOR EACH ROW
    BEGIN
      INSERT INTO annotation_campaigntally (campaign_id, responses, gold_responses) VALUES (NEW.campaign_id, 1, NEW.is_gold)
      ON CONFLICT (campaign_id) DO UPDATE SET responses = responses + 1, gold_responses = gold_responses + excluded.gold_responses;
      INSERT INTO annotation_responsetally (campaign_response_id, campaign_id, is_gold, submitted, reserved)
      VALUES (NEW.id, NEW.campaign_id, NEW.is_gold, 0, 0);
    END;
    """,
    """
    CREATE TRIGGER annotation_tally_campaignresponse_delete AFTER DELETE ON annotation_campaignresponse FOR EACH ROW
    BEGIN
      UPDATE annotation_campaigntally SET responses = responses - 1, gold_responses = gold_responses - OLD.is_gold
      WHERE campaign_id = OLD.campaign_id;
      DELETE FROM annotation_responsetally WHERE campaign_response_id = OLD.id;
    END;
    """,
    """
    CREATE TRIGGER annotation_tally_campaignresponse_update AFTER UPDATE ON annotation_campaignresponse FOR EACH ROW
    WHEN OLD.is_gold <> NEW.is_gold OR OLD.campaign_id <> NEW.campaign_id
    BEGIN
      SELECT RAISE(ABORT, 'a campaign response with assignments cannot move to another campaign')
      WHERE OLD.campaign_id <> NEW.campaign_id AND EXISTS (SELECT 1 FROM annotation_assignment WHERE campaign_response_id = OLD.id);
      UPDATE annotation_campaigntally SET responses = responses - 1, gold_responses = gold_responses - OLD.is_gold
      WHERE campaign_id = OLD.campaign_id;
      INSERT INTO annotation_campaigntally (campaign_id, responses, gold_responses) VALUES (NEW.campaign_id, 1, NEW.is_gold)
      ON CONFLICT (campaign_id) DO UPDATE SET responses = responses + 1, gold_responses = gold_responses + excluded.gold_responses;
      UPDATE annotation_responsetally SET campaign_id = NEW.campaign_id, is_gold = NEW.is_gold WHERE campaign_response_id = NEW.id;
    END;
    """,
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS annotation_tally_{table}_{op};" for table in ("assignment", "campaignresponse") for op in ("insert", "delete", "update")
]

# --- the counts from scratch (the migration's backfill, and `annotation.services.tallies.recount`) -------

_FLAG = "SUM(CASE WHEN {} THEN 1 ELSE 0 END)"


def recount_sql(campaign_ids: str | None = None) -> list[str]:
    """Statements that delete and rebuild the tallies (of the campaigns in the SQL list `campaign_ids`, or of all)."""
    only = f" WHERE campaign_id IN ({campaign_ids})" if campaign_ids is not None else ""
    only_cr = f" WHERE cr.campaign_id IN ({campaign_ids})" if campaign_ids is not None else ""
    return [
        f"DELETE FROM annotation_campaigntally{only};",
        f"DELETE FROM annotation_responsetally{only};",
        f"DELETE FROM annotation_expertcampaigntally{only};",
        f"""INSERT INTO annotation_campaigntally (campaign_id, responses, gold_responses)
            SELECT cr.campaign_id, COUNT(*), {_FLAG.format("cr.is_gold")} FROM annotation_campaignresponse cr{only_cr}
            GROUP BY cr.campaign_id;""",
        f"""INSERT INTO annotation_responsetally (campaign_response_id, campaign_id, is_gold, submitted, reserved)
            SELECT cr.id, cr.campaign_id, cr.is_gold,
                   COALESCE({_FLAG.format("a.status = 'submitted'")}, 0), COALESCE({_FLAG.format("a.status = 'reserved'")}, 0)
            FROM annotation_campaignresponse cr LEFT JOIN annotation_assignment a ON a.campaign_response_id = cr.id{only_cr}
            GROUP BY cr.id, cr.campaign_id, cr.is_gold;""",
        f"""INSERT INTO annotation_expertcampaigntally ({_TALLY_COLUMNS})
            SELECT a.expert_id, cr.campaign_id, {_FLAG.format("a.status = 'reserved'")},
                   {_FLAG.format("a.status = 'reserved' AND a.expires_at IS NULL")}, {_FLAG.format("a.status = 'submitted'")},
                   {_FLAG.format("a.status = 'expired'")}, {_FLAG.format("a.status = 'released'")}, SUM(a.active_seconds),
                   SUM(CASE WHEN a.status = 'submitted' THEN a.active_seconds ELSE 0 END),
                   {_FLAG.format("a.status = 'submitted' AND a.submitted_while_paused")}
            FROM annotation_assignment a JOIN annotation_campaignresponse cr ON cr.id = a.campaign_response_id{only_cr}
            GROUP BY a.expert_id, cr.campaign_id;""",
    ]


def _run(statements_for: dict[str, list[str]]):  # noqa: ANN202
    def run(apps, schema_editor):  # noqa: ANN001, ANN202
        for sql in statements_for.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


def create_triggers() -> migrations.RunPython:
    """Create the triggers (either database) and count what is already there."""
    forward = {"postgresql": [*POSTGRES_FORWARD, *recount_sql()], "sqlite": [*SQLITE_FORWARD, *recount_sql()]}
    backward = {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}
    return migrations.RunPython(_run(forward), _run(backward))


def drop_on_sqlite() -> migrations.RunPython:
    """Drop the SQLite triggers before a table rebuild (recreated afterwards by `create_on_sqlite`)."""
    return migrations.RunPython(_run({"sqlite": SQLITE_BACKWARD}), _run({"sqlite": SQLITE_FORWARD}))


def create_on_sqlite() -> migrations.RunPython:
    """Recreate the SQLite triggers after a table rebuild, and recount what the rebuild may have missed."""
    return migrations.RunPython(_run({"sqlite": [*SQLITE_FORWARD, *recount_sql()]}), _run({"sqlite": SQLITE_BACKWARD}))
