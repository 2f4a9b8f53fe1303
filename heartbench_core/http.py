"""The request the pages receive: Django's, plus what the project's middleware and role checks guarantee.

For type hints only: views annotate their request with these; Django still passes its own class.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import NotAuthenticated

if TYPE_CHECKING:
    from rest_framework.request import Request

    from heartbench_core.models import User


class HtmxHttpRequest(HttpRequest):
    """A request past django-htmx's middleware: `request.htmx` is truthy for an htmx request."""

    htmx: HtmxDetails


class SignedInRequest(HtmxHttpRequest):
    """A page's request past `role_required`, which sends anonymous users to log in: `request.user` is a User."""

    user: User


def signed_in(request: Request) -> User:
    """The API caller, whom the view's role permission has already admitted (so never anonymous here)."""
    user = request.user
    if not user.is_authenticated:  # the role permissions refuse anonymous callers first; this narrows the type
        raise NotAuthenticated()
    return user


CONTENT_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


def attachment(body: str | Iterator[str] | Iterator[bytes], name: str, fmt: str) -> HttpResponseBase:
    """An export as the file the browser saves (`<name>.<fmt>`): streamed unless it is one string; pages and API alike."""
    response = (HttpResponse if isinstance(body, str) else StreamingHttpResponse)(body, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response
