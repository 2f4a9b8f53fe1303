"""Request middleware: a bounded request body, and a clear answer instead of a 500 for numbers
too large for the database and for a database that fails mid-request.

The middleware that shapes error answers for the API (JSON bodies) is in
`heartbench_core.errors`; the one that refuses text no database stores (NUL, lone surrogates)
in `heartbench_core.input_text`; secrets are kept out of error reports and logs by
`heartbench_core.redaction`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext, gettext_lazy

# What Django hands a middleware: the rest of the chain.
GetResponse = Callable[[HttpRequest], HttpResponse]
API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


class Middleware:
    """A middleware that hands every request on; a subclass adds a hook (`process_exception`, `process_view`) or wraps `__call__`."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)


def _answer(request: HttpRequest, message: str, status: int, **extra: Any) -> HttpResponse:
    """MESSAGE as JSON (`detail`, with EXTRA) under /api/, as plain text elsewhere."""
    if is_api(request):
        return JsonResponse({"detail": message, **extra}, status=status)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class RequestSizeLimitMiddleware(Middleware):
    """Refuse a request whose declared body exceeds MAX_UPLOAD_BYTES with 413, before reading it.

    Django reads no more than CONTENT_LENGTH bytes of a body, so the declared length bounds
    what any view can receive; DATA_UPLOAD_MAX_MEMORY_SIZE covers the non-file fields too.
    """

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_UPLOAD_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            message = gettext("The request body is %(length)d bytes; the largest accepted upload is %(limit)d bytes.") % {
                "length": length,
                "limit": limit,
            }
            return _answer(request, message, 413, limit_bytes=limit)
        return self.get_response(request)


class OutOfRangeNumberMiddleware(Middleware):
    """Answer 404/400 instead of 500 when a number in the request is too large for the database.

    `<int:…>` URL arguments accept any number of digits; SQLite and PostgreSQL refuse ids past
    64 bits (OverflowError, DataError). An id that large cannot exist, so the answer is 404; any
    other out-of-range number in a request is the client's error, so 400.
    """

    BIGGEST = 2**63 - 1

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.db import DataError

        if not isinstance(exception, (OverflowError, DataError)):
            return None
        if isinstance(exception, DataError) and "out of range" not in str(exception):
            return None
        match = getattr(request, "resolver_match", None)
        too_big = any(isinstance(v, int) and abs(v) > self.BIGGEST for v in (match.kwargs.values() if match else ()))
        status, message = (404, gettext("No such object.")) if too_big else (400, gettext("A number in the request is out of range."))
        return _answer(request, message, status)


class DatabaseUnavailableMiddleware(Middleware):
    """Answer 503 with a clear message when the database fails mid-request, instead of a bare 500.

    Writes are services in their own transactions, so whatever committed before the failure
    (an autosaved draft, say) is kept; the client is told to retry.
    """

    MESSAGE = gettext_lazy(
        "The database is unavailable for a moment; nothing of this request was saved beyond your draft. Please try again."
    )

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.db import InterfaceError, OperationalError

        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logging.getLogger("heartbench.database").error("database error on %s %s: %s", request.method, request.path, exception)
        response = _answer(request, str(self.MESSAGE), 503, retry=True)
        response["Retry-After"] = "5"
        return response
