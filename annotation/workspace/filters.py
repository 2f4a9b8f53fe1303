"""The filters of the expert's own lists (heartbench_core.filters)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from annotation.models import Assignment
from heartbench_core.filters import Choice, ListFilters


class OwnAssignmentFilters(ListFilters):
    status = Choice(Assignment.HELD_STATUSES, label=gettext_lazy("Status"))

    class Meta:
        model = Assignment
        fields: list[str] = []
