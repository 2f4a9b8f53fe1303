"""The copies of a campaign response's order key and extra raters on its `annotation_responsetally` row (migration 0028).

The next-response pull ranks a campaign's open responses by how near completion they are, then
by the campaign's random order (`annotation.services.assignment._ranked_ids`). Kept beside the
tally's counts, both sit in one index of the tally, so the pull reads the few responses it ranks
from that index instead of counting every response of the campaign.

- A tally row inserted by any path (the response trigger of `_tallies`, `count_inserted_sql`,
  `recount_sql`) takes its response's values from a trigger on the tally itself.
- A response's extra raters (a split extension) and order key changing are copied by a trigger on
  the response.

Neither acts on an inserted campaign response, so a writer that inserts responses without triggers
(`heartbench_core.bulk.skipped_row_triggers`) misses nothing: its tally rows are inserted afterwards.
A later migration that makes SQLite rebuild `annotation_responsetally` or `annotation_campaignresponse`
drops these triggers and must recreate them (`SQLITE_FORWARD`).
"""

from django.db import migrations

from annotation.migrations._tallies import _run

# --- PostgreSQL (per statement, over transition tables) -------------------------------------------

_PG_TALLY_FUNCTION = "annotation_tally_copy_response"
_PG_RESPONSE_FUNCTION = "annotation_response_copy_to_tally"

POSTGRES_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION {_PG_TALLY_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE annotation_responsetally t SET order_key = cr.order_key, extra_raters = cr.extra_raters
      FROM new_rows n JOIN annotation_campaignresponse cr ON cr.id = n.campaign_response_id
      WHERE t.campaign_response_id = n.campaign_response_id AND (t.order_key <> cr.order_key OR t.extra_raters <> cr.extra_raters);
      RETURN NULL;
    END $$;
    """,
    f"""
    DROP TRIGGER IF EXISTS {_PG_TALLY_FUNCTION}_insert ON annotation_responsetally;
    CREATE TRIGGER {_PG_TALLY_FUNCTION}_insert AFTER INSERT ON annotation_responsetally REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {_PG_TALLY_FUNCTION}();
    """,
    f"""
    CREATE OR REPLACE FUNCTION {_PG_RESPONSE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE annotation_responsetally t SET order_key = n.order_key, extra_raters = n.extra_raters
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE t.campaign_response_id = n.id AND (o.order_key <> n.order_key OR o.extra_raters <> n.extra_raters);
      RETURN NULL;
    END $$;
    """,
    f"""
    DROP TRIGGER IF EXISTS {_PG_RESPONSE_FUNCTION}_update ON annotation_campaignresponse;
    CREATE TRIGGER {_PG_RESPONSE_FUNCTION}_update AFTER UPDATE ON annotation_campaignresponse
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {_PG_RESPONSE_FUNCTION}();
    """,
]
# The trigger on campaign responses acts on updates only: a writer that inserts them without triggers replaces nothing it does.
POSTGRES_TRIGGERS = frozenset({("annotation_campaignresponse", f"{_PG_RESPONSE_FUNCTION}_update")})
POSTGRES_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {_PG_TALLY_FUNCTION}_insert ON annotation_responsetally;",
    f"DROP FUNCTION IF EXISTS {_PG_TALLY_FUNCTION}();",
    f"DROP TRIGGER IF EXISTS {_PG_RESPONSE_FUNCTION}_update ON annotation_campaignresponse;",
    f"DROP FUNCTION IF EXISTS {_PG_RESPONSE_FUNCTION}();",
]

# --- SQLite (per row) -----------------------------------------------------------------------------

SQLITE_FORWARD = [
    """
    CREATE TRIGGER annotation_tally_copy_response_insert AFTER INSERT ON annotation_responsetally FOR EACH ROW
    BEGIN
      UPDATE annotation_responsetally
      SET order_key = (SELECT order_key FROM annotation_campaignresponse WHERE id = NEW.campaign_response_id),
          extra_raters = (SELECT extra_raters FROM annotation_campaignresponse WHERE id = NEW.campaign_response_id)
      WHERE campaign_response_id = NEW.campaign_response_id;
    END;
    """,
    """
    CREATE TRIGGER annotation_response_copy_to_tally_update AFTER UPDATE OF order_key, extra_raters ON annotation_campaignresponse
    FOR EACH ROW WHEN OLD.order_key <> NEW.order_key OR OLD.extra_raters <> NEW.extra_raters
    BEGIN
      UPDATE annotation_responsetally SET order_key = NEW.order_key, extra_raters = NEW.extra_raters WHERE campaign_response_id = NEW.id;
    END;
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS annotation_tally_copy_response_insert;",
    "DROP TRIGGER IF EXISTS annotation_response_copy_to_tally_update;",
]

# What the rows already there hold: the copies, from their responses.
BACKFILL = {
    "postgresql": """
      UPDATE annotation_responsetally t SET order_key = cr.order_key, extra_raters = cr.extra_raters
      FROM annotation_campaignresponse cr WHERE cr.id = t.campaign_response_id;
    """,
    "sqlite": """
      UPDATE annotation_responsetally
      SET order_key = (SELECT order_key FROM annotation_campaignresponse cr WHERE cr.id = annotation_responsetally.campaign_response_id),
          extra_raters = (SELECT extra_raters FROM annotation_campaignresponse cr WHERE cr.id = annotation_responsetally.campaign_response_id);
    """,
}


def create_triggers() -> migrations.RunPython:
    """Create the triggers (either database) and copy what the rows already there lack."""
    forward = {"postgresql": [*POSTGRES_FORWARD, BACKFILL["postgresql"]], "sqlite": [*SQLITE_FORWARD, BACKFILL["sqlite"]]}
    return migrations.RunPython(_run(forward), _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}))
