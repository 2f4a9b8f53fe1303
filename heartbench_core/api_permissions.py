"""The API's default permissions: who may call the API at all, and who may read its schema and docs.

Views that name their roles use `heartbench_core.roles.role_permission`; these are the
project-wide defaults the settings name (REST_FRAMEWORK, SPECTACULAR_SETTINGS). DRF imports
them while loading its settings, possibly before the apps are ready, so `roles` (which imports
Django's auth views) is imported when a permission is checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy
from rest_framework.permissions import BasePermission

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class IsStaffMember(BasePermission):
    """DRF permission: an admin, rubric author or senior reviewer (used for the API schema and docs)."""

    message = gettext_lazy("You do not have access to this resource.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        from heartbench_core.roles import STAFF_ROLES, has_role

        return bool(request.user and request.user.is_authenticated and has_role(request.user, *STAFF_ROLES))


class HasAnyRole(BasePermission):
    """DRF default permission: a signed-in user holding at least one role (an outsider sees nothing)."""

    message = gettext_lazy("You do not have access to this resource.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        from heartbench_core.roles import roles_of

        return bool(request.user and request.user.is_authenticated and roles_of(request.user))
