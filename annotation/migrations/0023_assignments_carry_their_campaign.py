"""Each assignment carries its response's campaign (filled here; made required and indexed in the next migration: PostgreSQL
will not alter a table with the fill's deferred checks pending)."""

import django.db.models.deletion
from django.db import migrations, models

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
        ("annotation", "0022_submission_hours_lowered_not_inserted_on_sqlite"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="campaign",
            field=models.ForeignKey(
                null=True, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="annotation.campaign"
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=False),
    ]
