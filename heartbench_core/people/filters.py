"""The People list's filters, one FilterSet for its page and the API (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _
from django_filters import ChoiceFilter

from heartbench_core.filters import ListFilters
from heartbench_core.models import User
from heartbench_core.people.labels import ROLE_LABELS
from heartbench_core.people.selectors import NO_ROLE, Status, without_password_q
from heartbench_core.roles import Role

ROLES = [r.value for r in Role]


class PeopleFilters(ListFilters):
    role = ChoiceFilter(
        label=_("Role"),
        choices=[*((r.value, ROLE_LABELS[r]) for r in Role), (NO_ROLE, _("no role"))],
        empty_label=_("all"),
        method="holding",
        help_text="Only users holding this role ('none': holding no role).",
    )
    status = ChoiceFilter(
        label=_("Status"),
        choices=[(s, Status.labels[s]) for s in Status.values],
        empty_label=_("all"),
        method="in_status",
        help_text="Only users of this status.",
    )

    class Meta:
        model = User
        fields: list[str] = []

    def holding(self, qs: QuerySet[User], name: str, role: Any) -> QuerySet[User]:
        """Users holding `role` (a superuser holds every one), or none (NO_ROLE)."""
        if role == NO_ROLE:
            return qs.filter(is_superuser=False).exclude(groups__name__in=ROLES)
        return qs.filter(Q(is_superuser=True) | Q(pk__in=User.objects.filter(groups__name=role).values("pk")))

    def in_status(self, qs: QuerySet[User], name: str, status: Any) -> QuerySet[User]:
        if status == Status.INACTIVE:
            return qs.filter(is_active=False)
        if status == Status.INVITED:
            return qs.filter(without_password_q(), is_active=True, last_login__isnull=True)
        return qs.filter(is_active=True).exclude(without_password_q() & Q(last_login__isnull=True))
