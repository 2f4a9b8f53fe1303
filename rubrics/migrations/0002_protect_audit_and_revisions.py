"""Database triggers: audit entries are append-only; revision content is immutable.

Written for PostgreSQL and SQLite (see rubrics/dbguard.py for the one exception: a full flush).
"""

from django.db import migrations

from rubrics import dbguard

# Frozen here on purpose: the columns as they are at this migration.
CONTENT_COLUMNS = (
    "lineage_id", "number", "parent_id", "dataset_id", "question_id", "edited_from_version_id", "edited_from_id",
    "text", "ability", "weight", "catastrophic", "change_kind", "meaning_changed", "reason", "author_id", "created_at",
)


def create_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = dbguard.postgresql_statements(CONTENT_COLUMNS)
    elif vendor == "sqlite":
        statements = dbguard.sqlite_statements(CONTENT_COLUMNS)
    else:
        return
    for sql in statements:
        schema_editor.execute(sql, params=None)


def drop_triggers(apps, schema_editor):
    for sql in dbguard.drop_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("rubrics", "0001_add_revisions_reviews_audit")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
