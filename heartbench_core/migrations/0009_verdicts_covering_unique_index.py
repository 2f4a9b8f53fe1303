"""On PostgreSQL, `uniq_verdict_per_criterion` (run, criterion) also carries each verdict's response, hit and id.

A report reads every verdict of the judge's runs on the campaign's models: with these columns in
the index it reads the index alone (an index-only scan), not the verdicts' rows, which hold the
judge's rationale and output line (700 MB for two million verdicts). The constraint keeps its
name and columns, so the models' state is unchanged; SQLite has no covering indexes and keeps it
as it is.
"""

from django.db import migrations

TABLE = "heartbench_core_judgeverdict"
NAME = "uniq_verdict_per_criterion"


def _replace(schema_editor, include: str) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    # Built beside the old one, then swapped in: the table is never without its uniqueness.
    schema_editor.execute(f"ALTER TABLE {TABLE} ADD CONSTRAINT {NAME}_new UNIQUE (run_id, criterion_id){include}")
    schema_editor.execute(f"ALTER TABLE {TABLE} DROP CONSTRAINT {NAME}")
    schema_editor.execute(f"ALTER TABLE {TABLE} RENAME CONSTRAINT {NAME}_new TO {NAME}")


def forwards(apps, schema_editor):
    _replace(schema_editor, " INCLUDE (response_id, hit, id)")


def backwards(apps, schema_editor):
    _replace(schema_editor, "")


class Migration(migrations.Migration):
    dependencies = [("heartbench_core", "0008_drop_verdict_indexes_covered_by_others")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
