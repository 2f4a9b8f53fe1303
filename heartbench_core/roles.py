"""The platform's roles and the checks every page and API view uses.

A role is a Django group. A user may hold several (a senior reviewer is often also an
expert). Superusers hold every role.
"""

from enum import StrEnum
from functools import wraps

from django.core.exceptions import PermissionDenied
from django.contrib.auth.views import redirect_to_login
from rest_framework.permissions import BasePermission


class Role(StrEnum):
    ADMIN = "admin"
    RUBRIC_AUTHOR = "rubric_author"
    SENIOR_REVIEWER = "senior_reviewer"
    EXPERT = "expert"


def roles_of(user) -> frozenset[Role]:
    """Return the roles a user holds (cached on the user object for the request)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    cached = getattr(user, "_hb_roles", None)
    if cached is not None:
        return cached
    if user.is_superuser:
        roles = frozenset(Role)
    else:
        names = set(user.groups.values_list("name", flat=True))
        roles = frozenset(r for r in Role if r.value in names)
    user._hb_roles = roles
    return roles


def has_role(user, *roles: Role) -> bool:
    """True when the user holds at least one of the given roles."""
    return bool(roles_of(user) & set(roles))


def role_required(*roles: Role):
    """View decorator: anonymous users go to login; users without one of the roles get 403."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, *roles):
                raise PermissionDenied("You do not have access to this page.")
            return view(request, *args, **kwargs)

        wrapped.required_roles = roles
        return wrapped

    return decorator


def role_permission(*roles: Role) -> type[BasePermission]:
    """Return a DRF permission class that admits the given roles."""

    class _RolePermission(BasePermission):
        message = "You do not have access to this resource."

        def has_permission(self, request, view):
            return bool(request.user and request.user.is_authenticated and has_role(request.user, *roles))

    _RolePermission.__name__ = "Is" + "Or".join(r.value.title().replace("_", "") for r in roles)
    _RolePermission.roles = roles
    return _RolePermission


STAFF_ROLES = (Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)
