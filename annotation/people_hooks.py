"""What campaigns need when the core changes a person: an expert gets a profile, a deactivated user's open work is released.

Connected in AnnotationConfig.ready to heartbench_core.people.signals, so the core never imports this app.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from annotation.models import Assignment
from annotation.services.assignment import release_assignment
from annotation.services.experts import ensure_profile
from heartbench_core.models import User
from heartbench_core.roles import Role


def give_new_experts_a_profile(sender: object, *, user: User, granted: set[Role], **kwargs: Any) -> None:
    """Granting the expert role creates the expert's profile (capacity, specialties, tier), as the admins' pages would."""
    if Role.EXPERT in granted:
        ensure_profile(user)


def release_open_work(sender: object, *, user: User, by: User, **kwargs: Any) -> int:
    """Give a deactivated expert's open reservations back to the pool, so their slots reopen; return how many."""
    released = 0
    for assignment in Assignment.objects.filter(expert=user).open(timezone.now()).order_by("pk"):
        release_assignment(assignment=assignment, by=by)
        released += 1
    return released
