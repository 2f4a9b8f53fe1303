"""Dropping a foreign key's own index when other indexes start with its column: one index less to write per row.

The model says `db_index=False` (a state operation); the database's index is dropped by the name
the database reports, so SQLite does not rebuild the table (a rebuild would drop its triggers).
"""

from django.db import migrations


def _single_column_indexes(schema_editor, table: str, column: str) -> list[str]:  # noqa: ANN001
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return [
        name
        for name, c in constraints.items()
        if c["index"] and not c["unique"] and not c["primary_key"] and c["columns"] == [column] and not c.get("foreign_key")
    ]


def drop_covered_indexes(covered: tuple[tuple[str, str], ...]) -> migrations.RunPython:
    """Drop the single-column index of each (table, column); going back creates it again."""

    def drop(apps, schema_editor):  # noqa: ANN001, ANN202
        for table, column in covered:
            for name in _single_column_indexes(schema_editor, table, column):
                schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")

    def create(apps, schema_editor):  # noqa: ANN001, ANN202
        for table, column in covered:
            if not _single_column_indexes(schema_editor, table, column):
                schema_editor.execute(f"CREATE INDEX {table}_{column}_covered ON {table} ({column})")

    return migrations.RunPython(drop, create)
