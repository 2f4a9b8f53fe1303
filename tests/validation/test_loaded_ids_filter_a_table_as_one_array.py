"""On PostgreSQL the ids a report has loaded already filter the next table as one bigint array, in binary or as text."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Judgment
from tests.conftest import postgres_only
from tests.validation.builders import blind_test
from validation import selectors

pytestmark = [postgres_only(), pytest.mark.postgres, pytest.mark.django_db]


def test_the_rows_of_the_ids_are_those_of_a_plain_in_filter_whichever_way_they_are_read(cast):
    blind_test(cast)
    ids = np.array(sorted(Assignment.objects.values_list("id", flat=True)))[::2]
    wanted = sorted(Judgment.objects.filter(assignment_id__in=ids.tolist()).values_list("id", flat=True))
    assert len(wanted) > 10
    of_ids = Judgment.objects.filter(selectors.AnyOf("assignment_id", ids)).order_by()
    # In binary through the array read, and as text through Django's own cursor (ordered: fetched as rows).
    assert sorted(selectors.int_rows(of_ids.values_list("id"), 1).ravel().tolist()) == wanted
    assert sorted(selectors.int_rows(of_ids.order_by("id").values_list("id"), 1).ravel().tolist()) == wanted
    with CaptureQueriesContext(connection) as logged:  # a logged query shows the ids it was given
        assert sorted(of_ids.values_list("id", flat=True)) == wanted
    assert str(ids[1]) in logged.captured_queries[-1]["sql"]


def test_no_ids_and_ids_beyond_32_bits_find_what_they_should(cast):
    blind_test(cast)
    assert selectors.int_rows(Judgment.objects.filter(selectors.AnyOf("assignment_id", [])).order_by().values_list("id"), 1).size == 0
    first = Judgment.objects.order_by("id").first()
    ids = np.array([2**40, first.assignment_id, -(2**40)])
    found = selectors.int_rows(Judgment.objects.filter(selectors.AnyOf("assignment_id", ids)).order_by().values_list("assignment_id"), 1)
    assert set(found.ravel().tolist()) == {first.assignment_id}
