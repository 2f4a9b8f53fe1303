"""Each assignment carries its response's campaign (filled here; made required and indexed in the next migration: PostgreSQL
will not alter a table with the fill's deferred checks pending)."""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

from annotation.migrations import _judgment_guard as guard
from annotation.migrations import _tallies as tallies

hours = import_module("annotation.migrations._submission_hours")

# A response with assignments never moves to another campaign (the tallies' trigger refuses it), so the copy stays true.
FILL = {
    "postgresql": (
        "UPDATE annotation_assignment a SET campaign_id = cr.campaign_id"
        " FROM annotation_campaignresponse cr WHERE cr.id = a.campaign_response_id AND a.campaign_id IS NULL"
    ),
    "sqlite": (
        "UPDATE annotation_assignment SET campaign_id ="
        " (SELECT cr.campaign_id FROM annotation_campaignresponse cr WHERE cr.id = annotation_assignment.campaign_response_id)"
        " WHERE campaign_id IS NULL"
    ),
}


def fill(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(FILL.get(connection.vendor, FILL["sqlite"]))


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0023_judgment_guard_once_per_insert_statement"),
    ]

    # On SQLite the triggers on assignments are lifted meanwhile (the fill fires none of them; taking the column
    # away again rebuilds the table, which their names would break) and recreated, with a recount, afterwards.
    operations = [
        guard.drop_on_sqlite(),
        tallies.drop_on_sqlite(),
        hours.drop_on_sqlite(),
        migrations.AddField(
            model_name="assignment",
            name="campaign",
            field=models.ForeignKey(
                null=True, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="annotation.campaign"
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=False),
        hours.create_on_sqlite(),
        tallies.create_on_sqlite(),
        guard.create_on_sqlite(),
    ]
