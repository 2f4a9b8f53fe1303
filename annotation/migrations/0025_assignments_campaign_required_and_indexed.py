"""A campaign's assignments, newest first, are one range of an index: the admins' list reads a deep page from it.

The campaign becomes required (its own migration: PostgreSQL alters no table with the fill's deferred
checks pending). SQLite rebuilds the assignment table to make the column NOT NULL: the triggers on
it, and the judgment guard that reads it, are lifted meanwhile and recreated (with a recount) afterwards.
"""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

from annotation.migrations import _judgment_guard as guard
from annotation.migrations import _tallies as tallies

hours = import_module("annotation.migrations._submission_hours")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0024_assignments_carry_their_campaign"),
    ]

    operations = [
        guard.drop_on_sqlite(),
        tallies.drop_on_sqlite(),
        hours.drop_on_sqlite(),
        migrations.AlterField(
            model_name="assignment",
            name="campaign",
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="annotation.campaign"),
        ),
        hours.create_on_sqlite(),
        tallies.create_on_sqlite(),
        guard.create_on_sqlite(),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(fields=["campaign", "-reserved_at", "-id"], name="annotation_assign_campaign"),
        ),
    ]
