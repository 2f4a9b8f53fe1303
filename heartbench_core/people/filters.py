"""The filters of the People list and the API tokens, one FilterSet each for the page and the API (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_filters import ChoiceFilter

from heartbench_core.filters import Choice, ListFilters, Text
from heartbench_core.models import ApiToken, User
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


class TokenFilters(ListFilters):
    """Every user's tokens: of one user (`username`; the page's links say `user`), in one state now."""

    aliases = {"user": "username"}

    username = Text(field_name="user__username", help_text="Only this user's tokens.", label=_("User"))
    state = Choice(
        choices=ApiToken.State.choices,
        label=_("State"),
        method="in_state",
        help_text="Only tokens in this state now.",
        error_messages={"not_one_of": _("%(value)r is not one of %(choices)s.")},
    )

    class Meta:
        model = ApiToken
        fields: list[str] = []

    def in_state(self, qs: QuerySet[ApiToken], name: str, state: Any) -> QuerySet[ApiToken]:
        now = timezone.now()
        if state == ApiToken.State.ACTIVE:
            return qs.usable(now)  # type: ignore[attr-defined]  # ApiToken's manager is its queryset's
        if state == ApiToken.State.EXPIRED:
            return qs.filter(revoked_at__isnull=True, expires_at__lte=now)
        return qs.filter(revoked_at__isnull=False)
