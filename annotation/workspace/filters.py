"""The filters of the expert's own lists (heartbench_core.filters), and the cursor that continues them by keyset."""

from __future__ import annotations

import base64
from datetime import datetime

from django.utils.translation import gettext_lazy

from annotation.models import Assignment
from heartbench_core.filters import Choice, ListFilters


class OwnAssignmentFilters(ListFilters):
    status = Choice(Assignment.HELD_STATUSES, label=gettext_lazy("Status"))

    class Meta:
        model = Assignment
        fields: list[str] = []


def encode_after(when: datetime, public_id: str) -> str:
    return base64.urlsafe_b64encode(f"{when.isoformat()}|{public_id}".encode()).decode().rstrip("=")


def decode_after(cursor: str) -> tuple[datetime, str] | None:
    try:
        when, public_id = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split("|", 1)
        moment = datetime.fromisoformat(when)
    except ValueError:
        return None
    return (moment, public_id) if cursor and moment.tzinfo is not None else None
