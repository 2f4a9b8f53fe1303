"""Pages of long lists read in two steps: the sorted ids cut to the page, then the page's rows by id.

Sorting or counting whole rows (joined, annotated with per-row counts) costs in proportion to the
list; sorting ids and reading only the page's rows costs in proportion to the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Model, QuerySet


def page_of_ids(
    ids: QuerySet[Any, Any],
    *,
    number: str | int | None,
    per_page: int,
    rows: Callable[[list[Any]], Iterable[Model]],
    count: int | None = None,
) -> Page:
    """The page `number` of `ids` (a sorted `values_list("pk", flat=True)`), holding `rows(ids of the page)` in the page's order.

    `count`, when the caller knows it cheaper than COUNT(*) over `ids` (a tally), is the list's length.
    A row gone between the two reads is left out.
    """
    paginator = Paginator(ids, per_page)
    if count is not None:
        paginator.count = count  # a cached_property, set ahead
    page = paginator.get_page(number)
    wanted = list(page.object_list)
    found = {row.pk: row for row in rows(wanted)}
    page.object_list = [found[pk] for pk in wanted if pk in found]  # the page now holds its rows
    return page
