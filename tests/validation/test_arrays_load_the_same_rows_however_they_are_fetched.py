"""On PostgreSQL a campaign's columns come as arrays (`array_agg`, in binary), not rows: the same values, and no more queries."""

import numpy as np
import pytest
from django.db.models import F, FloatField, IntegerField, SmallIntegerField, Value
from django.db.models.functions import Cast

from annotation.models import Assignment, Judgment
from heartbench_core.models import Criterion
from tests.conftest import postgres_only
from tests.validation.builders import blind_test
from validation import selectors

pytestmark = [postgres_only(), pytest.mark.postgres]


def fetched(queryset, columns, dtype=np.int64):
    """The rows as the fetchall path reads them."""
    return np.array(list(queryset), dtype=dtype).reshape(-1, columns)


def by_rows(a):
    return a[np.lexsort(a.T[::-1])]


@pytest.mark.django_db
def test_integer_boolean_and_float_columns_read_as_arrays_equal_the_fetched_rows(cast, django_assert_num_queries):
    blind_test(cast)
    judgments = Judgment.objects.order_by().values_list("assignment_id", "criterion_id", "hit")
    with django_assert_num_queries(1):
        arrays = selectors.int_rows(judgments, 3)
    assert len(arrays) > 100 and np.array_equal(by_rows(arrays), by_rows(fetched(judgments, 3)))
    weights = Criterion.objects.order_by().filter(weight__isnull=False).values_list("id", "weight")
    assert np.array_equal(by_rows(selectors.float_rows(weights, 2)), by_rows(fetched(weights, 2, np.float64)))
    epochs = (
        Assignment.objects.order_by()
        .annotate(epoch=selectors.EpochSeconds("submitted_at"))
        .filter(submitted_at__isnull=False)
        .values_list("id", "epoch")
    )
    assert np.array_equal(by_rows(selectors.float_rows(epochs, 2)), by_rows(fetched(epochs, 2, np.float64)))
    none = Judgment.objects.order_by().filter(pk__lt=0).values_list("assignment_id", "hit")
    assert selectors.int_rows(none, 2).shape == (0, 2)
    thirds = Judgment.objects.order_by().annotate(third=Value(1 / 3, output_field=FloatField())).values_list("third")[:5]
    assert selectors.float_rows(thirds, 1).ravel().tolist() == [1 / 3] * 5  # a bare parameter: fetched as rows instead
    cast_thirds = Judgment.objects.order_by().annotate(third=Value(1 / 3, output_field=FloatField()) * 1.0).values_list("third")[:5]
    assert selectors.float_rows(cast_thirds, 1).ravel().tolist() == [1 / 3] * 5  # exact, as PostgreSQL's binary form is
    narrow = Judgment.objects.order_by().annotate(
        small=Cast(F("criterion_id") % 1000, SmallIntegerField()), medium=Cast(F("assignment_id") * -1, IntegerField())
    )
    narrow = narrow.values_list("small", "medium", "hit")
    assert np.array_equal(by_rows(selectors.int_rows(narrow, 3)), by_rows(fetched(narrow, 3)))  # int2, int4 (negative), bool


@pytest.mark.django_db
def test_a_null_is_refused_rather_than_read_as_a_number(cast):
    blind_test(cast)
    with pytest.raises(TypeError, match="NULL"):
        selectors.int_rows(Criterion.objects.order_by().values_list("id", "weight"), 2)
