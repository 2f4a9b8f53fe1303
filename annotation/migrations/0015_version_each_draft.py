"""A version on each assignment's draft, bumped by every save and by the submission.

A save carries the version it was based on and is refused when the draft moved on meanwhile (a
second tab saved), so a stale tab can no longer overwrite newer rationales. SQLite rebuilds the
assignment table to add a NOT NULL column: the triggers on it, and the judgment guard that reads
it, are lifted meanwhile and recreated (with a recount) afterwards.
"""

from importlib import import_module

from django.db import migrations, models

from annotation.migrations import _judgment_guard as guard
from annotation.migrations import _tallies as tallies

hours = import_module("annotation.migrations._submission_hours")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0014_response_fingerprints_for_the_quote_check")]

    operations = [
        guard.drop_on_sqlite(),
        tallies.drop_on_sqlite(),
        hours.drop_on_sqlite(),
        migrations.AddField(
            model_name="assignment",
            name="draft_version",
            field=models.PositiveIntegerField(
                db_default=0,
                default=0,
                help_text="How many times the draft was saved (or submitted); what a save must be based on.",
            ),
        ),
        hours.create_on_sqlite(),
        tallies.create_on_sqlite(),
        guard.create_on_sqlite(),
    ]
