"""PostgreSQL: the guard on submitted judgments checks an INSERT once per statement, over its rows.

0003's guard ran a PL/pgSQL function and two lookups for every inserted judgment: importing a
blind test of 50,000 judgments as a role without `session_replication_role` spent about a third
of the database's time there. An insert is now checked once per statement, over the statement's
rows (a transition table), with the same rule and the same error: no judgment of a submitted
assignment, unless a correction of it is being applied. Updates keep the row-level check.
"""

from django.db import migrations

GUARD_ON_INSERT = "annotation_judgment_immutable_insert"

POSTGRES_FORWARD = [
    f"""
    CREATE OR REPLACE FUNCTION {GUARD_ON_INSERT}() RETURNS trigger AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM new_rows n JOIN annotation_assignment a ON a.id = n.assignment_id
                 WHERE a.status = 'submitted'
                   AND NOT EXISTS (SELECT 1 FROM annotation_correctionrequest c
                                   WHERE c.assignment_id = n.assignment_id AND c.status = 'applying')) THEN
        RAISE EXCEPTION 'judgments of a submitted assignment are immutable'
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NULL;
    END
    $$ LANGUAGE plpgsql;
    """,
    "DROP TRIGGER IF EXISTS annotation_judgment_immutable ON annotation_judgment;",
    """
    CREATE TRIGGER annotation_judgment_immutable
    BEFORE UPDATE ON annotation_judgment
    FOR EACH ROW EXECUTE FUNCTION annotation_judgment_immutable();
    """,
    f"""
    CREATE TRIGGER {GUARD_ON_INSERT}
    AFTER INSERT ON annotation_judgment REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {GUARD_ON_INSERT}();
    """,
]
POSTGRES_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {GUARD_ON_INSERT} ON annotation_judgment;",
    f"DROP FUNCTION IF EXISTS {GUARD_ON_INSERT}();",
    "DROP TRIGGER IF EXISTS annotation_judgment_immutable ON annotation_judgment;",
    """
    CREATE TRIGGER annotation_judgment_immutable
    BEFORE INSERT OR UPDATE ON annotation_judgment
    FOR EACH ROW EXECUTE FUNCTION annotation_judgment_immutable();
    """,
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("annotation", "0022_submission_hours_lowered_not_inserted_on_sqlite")]

    operations = [migrations.RunPython(_on_postgresql(POSTGRES_FORWARD), _on_postgresql(POSTGRES_BACKWARD))]
