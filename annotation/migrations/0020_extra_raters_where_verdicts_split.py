"""Extra raters where the verdicts split: the campaign's option (off by default, with a budget and a threshold) and,
per campaign response, the extra raters it was granted.

SQLite rebuilds the campaign-response table to add a NOT NULL column: the triggers that read it
are lifted meanwhile and recreated (with a recount) afterwards, as in 0015.
"""

from importlib import import_module

from django.db import migrations, models

from annotation.migrations import _judgment_guard as guard
from annotation.migrations import _tallies as tallies

hours = import_module("annotation.migrations._submission_hours")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0019_index_report_replies_and_remember_the_latest"),
    ]

    operations = [
        guard.drop_on_sqlite(),
        tallies.drop_on_sqlite(),
        hours.drop_on_sqlite(),
        migrations.AddField(
            model_name="campaignresponse",
            name="extended_at",
            field=models.DateTimeField(blank=True, help_text="When the extra raters were granted.", null=True),
        ),
        migrations.AddField(
            model_name="campaignresponse",
            name="extra_raters",
            field=models.PositiveSmallIntegerField(
                db_default=0, default=0, help_text="Experts beyond k this response is offered to (its k verdicts split); 0 or 2."
            ),
        ),
        migrations.AddField(
            model_name="campaignsettings",
            name="split_extension",
            field=models.BooleanField(
                default=False, help_text="Offer a response whose k verdicts split to two more experts, within the budget."
            ),
        ),
        migrations.AddField(
            model_name="campaignsettings",
            name="split_extension_budget",
            field=models.PositiveIntegerField(
                default=0, help_text="Most extra assignments the campaign may grant (two per extended response)."
            ),
        ),
        migrations.AddField(
            model_name="campaignsettings",
            name="split_extension_min_share",
            field=models.FloatField(
                default=0.5, help_text="Share of a response's criteria split by one vote (a tie when k is even) that extends it, in (0, 1]."
            ),
        ),
        migrations.AddConstraint(
            model_name="campaignsettings",
            constraint=models.CheckConstraint(
                condition=models.Q(("split_extension_min_share__gt", 0), ("split_extension_min_share__lte", 1)),
                name="split_extension_share_in_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="campaignsettings",
            constraint=models.CheckConstraint(
                condition=models.Q(("split_extension", False), ("split_extension_budget__gte", 2), _connector="OR"),
                name="split_extension_needs_budget",
            ),
        ),
        hours.create_on_sqlite(),
        tallies.create_on_sqlite(),
        guard.create_on_sqlite(),
    ]
