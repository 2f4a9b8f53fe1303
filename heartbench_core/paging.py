"""Pages of long lists read in two steps: the sorted ids cut to the page, then the page's rows by id.

Sorting or counting whole rows (joined, annotated with per-row counts) costs in proportion to the
list; sorting ids and reading only the page's rows costs in proportion to the page.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Model, Q, QuerySet


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


def encode_keyset(when: datetime, key: int | str) -> str:
    """A row's place in a list sorted by (time, key), as an opaque cursor for a link."""
    return base64.urlsafe_b64encode(f"{when.isoformat()}|{key}".encode()).decode().rstrip("=")


def keyset_of(row: Any, time: str = "reserved_at", key: str = "pk") -> str:
    """`encode_keyset` of a row: where it stands in a list sorted by (`time`, `key`)."""
    return encode_keyset(getattr(row, time), getattr(row, key))


def past(place: tuple[datetime, str], time: str, key: str = "public_id") -> Q:
    """The rows listed after `place` (a `decode_place`) in a list sorted by (-`time`, `key`)."""
    when, value = place
    return Q(**{f"{time}__lt": when}) | Q(**{time: when, f"{key}__gt": value})


def decode_place(cursor: str) -> tuple[datetime, str] | None:
    """The (time, key as written) of `encode_keyset`, or None for a cursor that does not decode (the caller starts over)."""
    try:
        when, key = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split("|", 1)
        moment = datetime.fromisoformat(when)
    except ValueError:  # bad base64 (binascii.Error), bad UTF-8, no separator, no date
        return None
    return (moment, key) if cursor and moment.tzinfo is not None else None


def decode_keyset(cursor: str) -> tuple[datetime, int] | None:
    """`decode_place` of a cursor whose key is a row's id."""
    place = decode_place(cursor)
    if place is None or not place[1].isdecimal() or len(place[1]) > 19:
        return None
    return place[0], int(place[1])


class KeysetPage(Page):
    """A page reached from a cursor: it knows whether rows come before and after it, and the cursors that lead there.

    Its number is the one the link carried (shown only, clamped to the list's pages); what it holds
    comes from the cursor, read by an index range instead of skipping every row before it.
    """

    def __init__(self, object_list: Any, number: int, paginator: Paginator, *, more_before: bool, more_after: bool) -> None:
        super().__init__(object_list, number, paginator)
        self.more_before, self.more_after = more_before, more_after

    def has_next(self) -> bool:
        return self.more_after

    def has_previous(self) -> bool:
        return self.more_before

    def next_page_number(self) -> int:
        return min(self.number + 1, max(self.paginator.num_pages, self.number + 1))

    def previous_page_number(self) -> int:
        return max(1, self.number - 1)
