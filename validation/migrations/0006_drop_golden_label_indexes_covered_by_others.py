"""Drop two foreign-key indexes of the golden labels that other indexes start with: one index less each to write per label.

- campaign_response_id: the unique constraint on (campaign_response, criterion) starts with it;
- campaign_id: the index on (campaign, provenance) starts with it.

A campaign at 100× HeartBench writes 1.7 million labels on its first refresh. As in
`annotation.0012`, the model state says `db_index=False` and the indexes are dropped by name,
without rebuilding the table on SQLite.
"""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

covered_indexes = import_module("heartbench_core.migrations._covered_indexes")

COVERED = (("validation_goldenlabel", "campaign_response_id"), ("validation_goldenlabel", "campaign_id"))


class Migration(migrations.Migration):
    dependencies = [("validation", "0005_fill_report_figures"), ("annotation", "0012_drop_foreign_key_indexes_covered_by_others")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="goldenlabel",
                    name="campaign_response",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="golden_labels",
                        to="annotation.campaignresponse",
                    ),
                ),
                migrations.AlterField(
                    model_name="goldenlabel",
                    name="campaign",
                    field=models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="golden_labels", to="annotation.campaign"
                    ),
                ),
            ],
            database_operations=[covered_indexes.drop_covered_indexes(COVERED)],
        )
    ]
