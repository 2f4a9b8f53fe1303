"""A campaign's assignments, newest first, are one range of an index: the admins' list reads a deep page from it.

The campaign becomes required. On PostgreSQL the column says so (SET NOT NULL); on SQLite a column
cannot change without rebuilding the table, which the tallies' and submission hours' triggers on
other tables name, so the column stays nullable there and the writers fill it (`Assignment.save`,
`AssignmentQuerySet.bulk_create`, the bulk pre-assignment and the judgment import).
"""

import django.db.models.deletion
from django.db import migrations, models


def required(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE annotation_assignment ALTER COLUMN campaign_id SET NOT NULL")


def optional(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE annotation_assignment ALTER COLUMN campaign_id DROP NOT NULL")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0023_assignments_carry_their_campaign"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="assignment",
                    name="campaign",
                    field=models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="annotation.campaign"
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(required, optional, elidable=False)],
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(fields=["campaign", "-reserved_at", "-id"], name="annotation_assign_campaign"),
        ),
    ]
