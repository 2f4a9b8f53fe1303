"""The counts in the navigation: what waits for an admin, and an expert's unread replies to their reports.

Both are computed only when a template reads them (the navigation), once per request, in a fixed
number of queries (`needs_action_selectors.queue_counts`, `reports.unread_replies`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.http import HttpRequest

from heartbench_core.roles import Role, has_role


def needs_action(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @cache
    def needs_action_count() -> int:
        from annotation.manage.needs_action_selectors import queue_counts

        return queue_counts(user).total if has_role(user, Role.ADMIN) else 0

    @cache
    def unread_replies() -> int:
        from annotation.manage.needs_action import reports_seen_at
        from annotation.services.reports import unread_replies as count

        return count(user, seen_at=reports_seen_at(request)) if has_role(user, Role.EXPERT) else 0  # type: ignore[arg-type]

    return {"needs_action_count": needs_action_count, "unread_replies": unread_replies}
