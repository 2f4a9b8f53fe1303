"""A database guard: judgments of a submitted assignment cannot be inserted or changed.

The workspace service already refuses such writes; the trigger makes the rule hold for any
other code path too. The one exception is an admin-accepted correction, which the service
applies while its CorrectionRequest is in the transient 'applying' status.
"""

from django.db import migrations

SQLITE_FORWARD = [
    """
    CREATE TRIGGER annotation_judgment_immutable_insert
    BEFORE INSERT ON annotation_judgment
    FOR EACH ROW
    WHEN (SELECT status FROM annotation_assignment WHERE id = NEW.assignment_id) = 'submitted'
     AND NOT EXISTS (SELECT 1 FROM annotation_correctionrequest
                     WHERE assignment_id = NEW.assignment_id AND status = 'applying')
    BEGIN
      SELECT RAISE(ABORT, 'judgments of a submitted assignment are immutable');
    END;
    """,
    """
    CREATE TRIGGER annotation_judgment_immutable_update
    BEFORE UPDATE ON annotation_judgment
    FOR EACH ROW
    WHEN ((SELECT status FROM annotation_assignment WHERE id = OLD.assignment_id) = 'submitted'
          OR (SELECT status FROM annotation_assignment WHERE id = NEW.assignment_id) = 'submitted')
     AND NOT EXISTS (SELECT 1 FROM annotation_correctionrequest
                     WHERE assignment_id = OLD.assignment_id AND status = 'applying')
    BEGIN
      SELECT RAISE(ABORT, 'judgments of a submitted assignment are immutable');
    END;
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS annotation_judgment_immutable_insert;",
    "DROP TRIGGER IF EXISTS annotation_judgment_immutable_update;",
]

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION annotation_judgment_immutable() RETURNS trigger AS $$
    DECLARE
      target bigint := NEW.assignment_id;
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.assignment_id <> NEW.assignment_id THEN
        target := OLD.assignment_id;
      END IF;
      IF EXISTS (SELECT 1 FROM annotation_assignment
                 WHERE id IN (target, NEW.assignment_id) AND status = 'submitted')
         AND NOT EXISTS (SELECT 1 FROM annotation_correctionrequest
                         WHERE assignment_id = target AND status = 'applying') THEN
        RAISE EXCEPTION 'judgments of a submitted assignment are immutable'
          USING ERRCODE = 'integrity_constraint_violation';
      END IF;
      RETURN NEW;
    END
    $$ LANGUAGE plpgsql;
    """,
    """
    CREATE TRIGGER annotation_judgment_immutable
    BEFORE INSERT OR UPDATE ON annotation_judgment
    FOR EACH ROW EXECUTE FUNCTION annotation_judgment_immutable();
    """,
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS annotation_judgment_immutable ON annotation_judgment;",
    "DROP FUNCTION IF EXISTS annotation_judgment_immutable();",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("annotation", "0002_add_corrections_and_discussion")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        )
    ]
