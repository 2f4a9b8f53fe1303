"""The platform's roles and the checks every page and API view uses.

A role is a Django group. A user may hold several (a senior reviewer is often also an
expert). Superusers hold every role.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext, gettext_lazy
from rest_framework.permissions import BasePermission

from heartbench_core.signed_out import answer_signed_out, is_api_client, refused_as_json, sign_in_with_token

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


def role_required(*roles: Role, keep_post_for: str | None = None, accepts_tokens: bool = False) -> Callable[[ViewT], ViewT]:
    """View decorator: anonymous users go to login; users without one of the roles get 403.

    A script's request (htmx, JSON, or sent with an `Authorization` header) of an anonymous user
    answers 401 instead of a redirect. With `keep_post_for` (the name of a page taking the view's
    URL arguments), a plain form posted once the session has ended is kept over the sign-in, which
    returns to that page (`heartbench_core.signed_out`). With `accepts_tokens` (every export), an
    API token in `Authorization: Token <token>` signs the request in as the API would, and an API
    client's 401 and 403 are JSON.
    """

    def decorator(view: ViewT) -> ViewT:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if accepts_tokens and "Authorization" in request.headers and (refusal := sign_in_with_token(request)) is not None:
                return refusal
            if not request.user.is_authenticated:
                return answer_signed_out(request, keep_post_for=keep_post_for, view_kwargs=kwargs)
            if not has_role(request.user, *roles):
                if accepts_tokens and is_api_client(request):
                    return refused_as_json(gettext("You do not have access to this page."), status=403)
                raise PermissionDenied(gettext("You do not have access to this page."))
            if not accepts_tokens or not is_api_client(request):
                return view(request, *args, **kwargs)
            try:
                return view(request, *args, **kwargs)
            except PermissionDenied as exc:  # e.g. a campaign the caller may not see
                return refused_as_json(str(exc) or gettext("You do not have access to this page."), status=403)

        wrapped.accepts_tokens = accepts_tokens  # type: ignore[attr-defined]  # read by the test that lists every export
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
