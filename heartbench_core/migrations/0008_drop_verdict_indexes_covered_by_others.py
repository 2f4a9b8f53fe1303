"""Drop the judge verdicts' own indexes on run_id and response_id: `uniq_verdict_per_criterion` (run, criterion)
and the index on (response, criterion) start with them. An import writes hundreds of thousands of verdicts."""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

covered_indexes = import_module("heartbench_core.migrations._covered_indexes")

COVERED = (("heartbench_core_judgeverdict", "run_id"), ("heartbench_core_judgeverdict", "response_id"))


class Migration(migrations.Migration):
    dependencies = [("heartbench_core", "0007_add_stored_scores")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="judgeverdict",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="verdicts", to="heartbench_core.judgerun"
                    ),
                ),
                migrations.AlterField(
                    model_name="judgeverdict",
                    name="response",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="judge_verdicts",
                        to="heartbench_core.modelresponse",
                    ),
                ),
            ],
            database_operations=[covered_indexes.drop_covered_indexes(COVERED)],
        )
    ]
