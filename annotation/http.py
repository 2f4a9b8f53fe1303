"""Who is asking, once a role check has let them in: the signed-in user, typed as such."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.exceptions import NotAuthenticated

from heartbench_core.http import HtmxHttpRequest

if TYPE_CHECKING:
    from rest_framework.request import Request

    from heartbench_core.models import User


class SignedInRequest(HtmxHttpRequest):
    """A page's request past `role_required`, which sends anonymous users to log in: `request.user` is a User.

    For type hints only: views annotate their request with it; Django still passes its own class.
    """

    user: User


def signed_in(request: Request) -> User:
    """The API caller, whom the view's role permission has already admitted (so never anonymous here)."""
    user = request.user
    if not user.is_authenticated:  # the role permissions refuse anonymous callers first; this narrows the type
        raise NotAuthenticated()
    return user
