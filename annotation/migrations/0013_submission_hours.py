"""Submissions per campaign and hour, kept by triggers (`_submission_hours`): a campaign's pace without reading its assignments.

The pace (submissions per day over the last week) read every submitted assignment of the
campaign: 2 ms at 100× HeartBench for one campaign, and a list of campaigns paid it for each.
The rows are counted from what is there when the triggers are created.
"""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

hours = import_module("annotation.migrations._submission_hours")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0012_drop_foreign_key_indexes_covered_by_others")]

    operations = [
        migrations.CreateModel(
            name="SubmissionHour",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("hour", models.DateTimeField()),
                ("submitted", models.IntegerField(default=0)),
                (
                    "campaign",
                    models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="annotation.campaign"),
                ),
            ],
            options={"constraints": [models.UniqueConstraint(fields=("campaign", "hour"), name="uniq_submission_hour")]},
        ),
        hours.create_triggers(),
    ]
