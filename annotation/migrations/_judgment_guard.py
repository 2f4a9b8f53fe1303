"""The SQLite judgment-guard triggers of 0003, for migrations that rebuild tables they refer to."""

from importlib import import_module

from django.db import migrations

_sql = import_module("annotation.migrations.0003_guard_submitted_judgments")


def _sqlite(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            for sql in statements:
                schema_editor.execute(sql)

    return run


def drop_on_sqlite() -> migrations.RunPython:
    """Drop the triggers before a table rebuild (recreated afterwards by `create_on_sqlite`)."""
    return migrations.RunPython(_sqlite(_sql.SQLITE_BACKWARD), _sqlite(_sql.SQLITE_FORWARD))


def create_on_sqlite() -> migrations.RunPython:
    """Recreate the triggers after a table rebuild."""
    return migrations.RunPython(_sqlite(_sql.SQLITE_FORWARD), _sqlite(_sql.SQLITE_BACKWARD))
