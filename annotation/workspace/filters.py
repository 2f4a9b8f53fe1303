"""The filters of the expert's own lists (heartbench_core.filters)."""

from __future__ import annotations

from annotation.models import Assignment
from heartbench_core.filters import Choice, ListFilters


class OwnAssignmentFilters(ListFilters):
    status = Choice(Assignment.HELD_STATUSES)

    class Meta:
        model = Assignment
        fields: list[str] = []
