from typing import Any

from django.http import HttpRequest

from heartbench_core.roles import Role, roles_of


def roles(request: HttpRequest) -> dict[str, Any]:
    """Expose the current user's roles to templates as `roles` (a set of role names)."""
    user = getattr(request, "user", None)
    held = roles_of(user) if user is not None else frozenset()
    return {"roles": {r.value for r in held}, "Role": Role}
