"""Database triggers: adjudications, agreement reports, release decisions and the policy history are not rewritten; a golden label agrees with its provenance.

Written for PostgreSQL and SQLite (validation/dbguard.py says what each refuses).
"""

from typing import Any

from django.db import migrations

from validation import dbguard


def create_triggers(apps: Any, schema_editor: Any) -> None:
    for sql in dbguard.create_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


def drop_triggers(apps: Any, schema_editor: Any) -> None:
    for sql in dbguard.drop_statements(schema_editor.connection.vendor):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("validation", "0006_drop_golden_label_indexes_covered_by_others")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
