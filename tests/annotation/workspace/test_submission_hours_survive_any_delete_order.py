"""Taking submissions away never leaves an hour row naming a campaign that is gone, whatever order the tables are emptied in.

Django's flush empties the tables in an order that changes from process to process; on SQLite the
hour row of a campaign emptied before its assignments was inserted again by the delete trigger, and
the flush failed on its foreign key, once in a while, leaving the test database dirty for every
test after it.
"""

import pytest
from django.db import connection, transaction

from annotation.models import Assignment, Campaign, SubmissionHour

from .conftest import judge_fully

pytestmark = pytest.mark.django_db(transaction=True)


def test_emptying_the_hour_rows_and_the_campaign_before_the_assignments_leaves_nothing_behind(workspace, cast):
    judge_fully(workspace.reserve(cast.expert, "dm0001"))
    assert SubmissionHour.objects.filter(submitted__gt=0).exists()
    tables = [SubmissionHour._meta.db_table, Campaign._meta.db_table, Assignment._meta.db_table]
    with transaction.atomic(), connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f'DELETE FROM "{table}"')
        assert not SubmissionHour.objects.exists()
        transaction.set_rollback(True)  # the rest of the world stays for the fixture's own flush


def test_a_withdrawn_submission_still_lowers_its_hour(workspace, cast):
    assignment = judge_fully(workspace.reserve(cast.expert, "dm0001"))
    before = sum(SubmissionHour.objects.values_list("submitted", flat=True))
    Assignment.objects.filter(pk=assignment.pk).delete()
    assert sum(SubmissionHour.objects.values_list("submitted", flat=True)) == before - 1
