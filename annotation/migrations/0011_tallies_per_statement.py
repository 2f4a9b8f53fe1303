"""The tally triggers of 0010 on PostgreSQL, per statement instead of per row (`_tallies`).

A COPY of 50,000 assignments changed each shared counter 50,000 times, each change walking the
versions the earlier ones left in the same transaction (quadratic); per statement, the rows are
summed first and each counter changes once. The counts themselves are unchanged: nothing is
recounted. SQLite keeps its row triggers (it has no others). Going back leaves these triggers,
which count the same.
"""

from importlib import import_module

from django.db import migrations

tallies = import_module("annotation.migrations._tallies")


def per_statement(apps, schema_editor):  # noqa: ANN001, ANN201
    if schema_editor.connection.vendor == "postgresql":
        for sql in tallies.POSTGRES_FORWARD:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0010_tallies_and_indexes_for_flat_pages")]

    operations = [migrations.RunPython(per_statement, migrations.RunPython.noop)]
