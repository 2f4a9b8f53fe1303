"""How failures reach clients and logs: JSON on the API (also for a 404 and a 500), one line per refusal.

Django answers an unexpected exception with an HTML page (a traceback when DEBUG is on), also
under `/api/`, where every client expects `{"detail": ...}`. `ApiJsonErrorsMiddleware` turns
an exception escaping an API view into a JSON 500 (after logging it, with its traceback, as
Django would), and `server_error` / `page_not_found` (the project's handler500/handler404)
answer JSON for API paths whatever else failed. `ClientErrorTracebackFilter` keeps the log
line of a 4xx refusal but drops its traceback: a PermissionDenied is not a fault.
"""

from __future__ import annotations

import logging

from django.core import signals
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.log import log_response
from django.utils.translation import gettext
from django.views import defaults

from heartbench_core.middleware import Middleware, is_api

# Exceptions Django itself answers with a 4xx; they are not server errors.
_CLIENT_ERRORS = (Http404, PermissionDenied, BadRequest, SuspiciousOperation, MultiPartParserError)


def _server_error_body() -> dict[str, str]:
    return {
        "detail": gettext(
            "Server error: the request failed on our side and was logged. Nothing of it was saved unless it says otherwise; try again later."
        )
    }


class ApiJsonErrorsMiddleware(Middleware):
    """An unexpected exception in an API view answers a JSON 500 with no traceback; the log keeps the traceback."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_api(request) or isinstance(exception, _CLIENT_ERRORS):
            return None
        # As Django does for an uncaught exception: listeners (and the test client) hear of it.
        signals.got_request_exception.send(sender=None, request=request)
        response = JsonResponse(_server_error_body(), status=500)
        log_response("%s: %s", "Internal Server Error", request.path, response=response, request=request, exception=exception)
        return response


def server_error(request: HttpRequest, template_name: str = defaults.ERROR_500_TEMPLATE_NAME) -> HttpResponse:
    """handler500: JSON under /api/, Django's page elsewhere."""
    if is_api(request):
        return JsonResponse(_server_error_body(), status=500)
    return defaults.server_error(request, template_name)


def page_not_found(request: HttpRequest, exception: Exception, template_name: str = defaults.ERROR_404_TEMPLATE_NAME) -> HttpResponse:
    """handler404: JSON under /api/ (an unknown API URL), Django's page elsewhere."""
    if is_api(request):
        return JsonResponse({"detail": gettext("Not found.")}, status=404)
    return defaults.page_not_found(request, exception, template_name)


class ClientErrorTracebackFilter(logging.Filter):
    """Drop the traceback from the log record of a 4xx answer (403, 404, 400): one line per refusal."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.exc_info and isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
