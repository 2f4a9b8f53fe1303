"""SQLite: taking a submission away lowers its hour row and never inserts one (`_submission_hours._sq_change`).

A flush of the test database (tables emptied in any order) or a deleted campaign could otherwise
leave an hour row naming a campaign already gone, and the transaction then failed on its foreign
key. PostgreSQL's statement triggers already inserted only what adds.
"""

from importlib import import_module

from django.db import migrations

hours = import_module("annotation.migrations._submission_hours")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0021_library_pairs_index_on_sqlite")]

    operations = [hours.drop_on_sqlite(), hours.create_on_sqlite()]
