"""Reads of the People page and API: users with their roles, status and last invitation, in a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db.models import CharField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Cast
from django.utils.translation import gettext_lazy as _

from heartbench_core.models import User
from heartbench_core.people.labels import ROLE_LABELS
from heartbench_core.people.services import INVITE_LOG_PREFIX
from heartbench_core.roles import Role

NO_ROLE = "none"  # the role filter's value for users holding no role


class Status:
    ACTIVE = "active"
    INVITED = "invited"
    INACTIVE = "inactive"

    values = (ACTIVE, INVITED, INACTIVE)
    labels = {ACTIVE: _("Active"), INVITED: _("Invited, not yet accepted"), INACTIVE: _("Inactive")}


PERSON_STATUSES = Status.values  # named in the API schema's ENUM_NAME_OVERRIDES (PersonStatusEnum)


@dataclass(frozen=True)
class Person:
    """One row of the People page and API."""

    user: User
    roles: list[Role]
    superuser: bool
    status: str
    invited_at: datetime | None

    @property
    def role_labels(self) -> list[Any]:
        return [ROLE_LABELS[r] for r in self.roles]

    @property
    def status_label(self) -> Any:
        if self.status == Status.INVITED and self.invited_at is None:
            return _("No password yet")  # e.g. restored from a campaign archive: an invitation gives them one
        return Status.labels[self.status]


def without_password_q() -> Q:
    return Q(password__startswith=UNUSABLE_PASSWORD_PREFIX)


def people() -> QuerySet[User]:
    """Every user, by username, with their role groups and the time of their last invitation (`invited_at`)."""
    invitations = LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(User),
        object_id=Cast(OuterRef("pk"), output_field=CharField()),
        change_message__startswith=INVITE_LOG_PREFIX,
    ).exclude(change_message__startswith=f"{INVITE_LOG_PREFIX}.accepted")
    return (
        User.objects.order_by("username")
        .annotate(invited_at=Subquery(invitations.order_by("-action_time").values("action_time")[:1]))
        .prefetch_related(Prefetch("groups", queryset=Group.objects.filter(name__in=[r.value for r in Role]).only("name")))
    )


def person_of(user: User) -> Person:
    """The row of a user fetched through `people()` (its groups prefetched, `invited_at` annotated)."""
    names = {g.name for g in user.groups.all()}
    roles = list(Role) if user.is_superuser else [r for r in Role if r.value in names]
    if not user.is_active:
        status = Status.INACTIVE
    elif not user.has_usable_password() and user.last_login is None:
        status = Status.INVITED
    else:
        status = Status.ACTIVE
    return Person(user=user, roles=roles, superuser=user.is_superuser, status=status, invited_at=getattr(user, "invited_at", None))


def person(user_id: int) -> Person | None:
    """One user's row, or None when there is no such user."""
    user = people().filter(pk=user_id).first()
    return None if user is None else person_of(user)


def held_roles(person: Person) -> list[Role]:
    """The roles the user's groups grant (what the role checkboxes show; a superuser may hold fewer groups than roles)."""
    names = {g.name for g in person.user.groups.all()}
    return [r for r in Role if r.value in names]


def changes_of(user: User, limit: int = 20) -> list[LogEntry]:
    """The latest entries of the site's change log about the user (people actions and Django admin edits alike)."""
    return list(
        LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(User), object_id=str(user.pk))
        .select_related("user")
        .order_by("-action_time")[:limit]
    )
