"""The platform's roles and the checks every page and API view uses.

A role is a Django group. A user may hold several (a senior reviewer is often also an
expert). Superusers hold every role.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext, gettext_lazy
from rest_framework.permissions import BasePermission

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser
    from django.http import HttpRequest, HttpResponseBase
    from rest_framework.request import Request
    from rest_framework.views import APIView

    from heartbench_core.models import User

ViewT = TypeVar("ViewT", bound=Callable[..., "HttpResponseBase"])


class Role(StrEnum):
    ADMIN = "admin"
    RUBRIC_AUTHOR = "rubric_author"
    SENIOR_REVIEWER = "senior_reviewer"
    EXPERT = "expert"


def roles_of(user: User | AnonymousUser | None) -> frozenset[Role]:
    """Return the roles a user holds (cached on the user object for the request)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user._hb_roles is not None:
        return user._hb_roles
    if user.is_superuser:
        roles = frozenset(Role)
    else:
        names = set(user.groups.values_list("name", flat=True))
        roles = frozenset(r for r in Role if r.value in names)
    user._hb_roles = roles
    return roles


def has_role(user: User | AnonymousUser | None, *roles: Role) -> bool:
    """True when the user holds at least one of the given roles."""
    return bool(roles_of(user) & set(roles))


def role_required(*roles: Role) -> Callable[[ViewT], ViewT]:
    """View decorator: anonymous users go to login; users without one of the roles get 403."""

    def decorator(view: ViewT) -> ViewT:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, *roles):
                raise PermissionDenied(gettext("You do not have access to this page."))
            return view(request, *args, **kwargs)

        return cast("ViewT", wrapped)  # same signature as the view: it only refuses before calling it

    return decorator


def role_permission(*roles: Role) -> type[BasePermission]:
    """Return a DRF permission class that admits the given roles."""

    admitted = roles

    class _RolePermission(BasePermission):
        message = gettext_lazy("You do not have access to this resource.")
        roles = admitted

        def has_permission(self, request: Request, view: APIView) -> bool:
            return bool(request.user and request.user.is_authenticated and has_role(request.user, *roles))

    _RolePermission.__name__ = "Is" + "Or".join(r.value.title().replace("_", "") for r in roles)
    return _RolePermission


STAFF_ROLES = (Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
