"""Drop three foreign-key indexes that other indexes start with: one index less to write per row.

- judgments' assignment_id: the unique constraint on (assignment, criterion) starts with it;
- assignments' campaign_response_id: the unique constraint on (campaign_response, expert) and the
  index on (campaign_response, status) start with it;
- assignments' expert_id: the indexes on (expert, status) and the expert's list start with it.

An import writes millions of judgments and tens of thousands of assignments. The model state
says `db_index=False`; each index is dropped by name as the database reports it, without
rebuilding the table on SQLite (`heartbench_core.migrations._covered_indexes`).
"""

from importlib import import_module

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

covered_indexes = import_module("heartbench_core.migrations._covered_indexes")

COVERED = (("annotation_judgment", "assignment_id"), ("annotation_assignment", "campaign_response_id"), ("annotation_assignment", "expert_id"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0011_tallies_per_statement"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="judgment",
                    name="assignment",
                    field=models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="judgments", to="annotation.assignment"
                    ),
                ),
                migrations.AlterField(
                    model_name="assignment",
                    name="campaign_response",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="assignments",
                        to="annotation.campaignresponse",
                    ),
                ),
                migrations.AlterField(
                    model_name="assignment",
                    name="expert",
                    field=models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="assignments", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            database_operations=[covered_indexes.drop_covered_indexes(COVERED)],
        )
    ]
