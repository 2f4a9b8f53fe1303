"""Withdraw the dimension qualifications that failed calibration attempts granted.

Only a passed attempt qualifies now. Before, an attempt below the pass mark still granted a
qualification for each dimension it scored at the pass mark in, which counted the expert as
eligible (campaigns were accepted with an overlap nobody could fill) and kept them from being
told to retake the calibration. Qualifications an admin granted, and those of passed attempts,
stay; the failed attempts themselves (scores and feedback) stay too.
"""

from django.db import migrations


def withdraw(apps, schema_editor):  # noqa: ANN001, ANN201
    Qualification = apps.get_model("annotation", "Qualification")
    Qualification.objects.filter(source="calibration", result__passed=False).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0017_record_skips"),
    ]

    operations = [
        migrations.RunPython(withdraw, migrations.RunPython.noop),
    ]
