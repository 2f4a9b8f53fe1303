"""Request hardening: bounded request bodies, and no secret in error reports or logs."""

import logging
import re

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

SENSITIVE_NAMES = re.compile(r"API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|COOKIE|CSRF|SESSION|CREDENTIAL", re.I)
REDACTED = "********************"


class RequestSizeLimitMiddleware:
    """Refuse a request whose declared body exceeds MAX_UPLOAD_BYTES with 413, before reading it.

    Django reads no more than CONTENT_LENGTH bytes of a body, so the declared length bounds
    what any view can receive; DATA_UPLOAD_MAX_MEMORY_SIZE covers the non-file fields too.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.MAX_UPLOAD_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            message = f"The request body is {length} bytes; the largest accepted upload is {limit} bytes."
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message, "limit_bytes": limit}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):
    """Hide passwords, tokens and cookies in every error report, also with DEBUG on.

    Django's default filter only hides POST fields a view marked sensitive and only when
    DEBUG is off; here every POST field, header or setting whose name looks secret is hidden.
    """

    hidden_settings = SENSITIVE_NAMES

    def is_active(self, request):
        return True

    def get_post_parameters(self, request):
        params = super().get_post_parameters(request)
        if not params:
            return params
        params = params.copy()
        for name in list(params.keys()):
            if SENSITIVE_NAMES.search(name):
                params[name] = REDACTED
        return params


_SECRET_WORDS = r"(?:password|passwd|secret|token|api[_-]?key|sessionid|csrftoken|csrfmiddlewaretoken|authorization|cookie)"
_SECRET_PATTERNS = [
    # Authorization header values: "Token <key>", "Bearer <key>", "Basic <b64>".
    (re.compile(r"(?i)\b(Token|Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 " + REDACTED),
    # Quoted keys in JSON or Python reprs: "password": "x", 'password': ['x'].
    (
        re.compile(r"""(?i)(["'][\w-]*""" + _SECRET_WORDS + r"""[\w-]*["']\s*:\s*\[?\s*)(["'])(?:\\.|(?!\2).)*\2"""),
        r"\1\2" + REDACTED + r"\2",
    ),
    # key=value pairs in query strings, form bodies, headers or messages.
    (re.compile(r"(?i)\b([\w-]*" + _SECRET_WORDS + r"[\w-]*)=([^&\s;,'\"]+)"), r"\1=" + REDACTED),
]


def redact(text: str) -> str:
    """Replace anything that looks like a password, token or session id in the text."""
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecretsFilter(logging.Filter):
    """Logging filter: rewrite each record's message (and traceback text) with secrets redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is logged as is
            return True
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class RedactingExceptionReporter(ExceptionReporter):
    """Error reports (the DEBUG page, admin e-mails) with secrets redacted from the exception text and locals."""

    def get_traceback_data(self):
        data = super().get_traceback_data()
        if data.get("exception_value"):
            data["exception_value"] = redact(str(data["exception_value"]))
        for frame in data.get("frames", []):
            frame["vars"] = [(name, redact(str(value))) for name, value in frame.get("vars", [])]
            if frame.get("exc_cause") is not None:
                frame["exc_cause"] = redact(str(frame["exc_cause"]))
        return data


class OutOfRangeNumberMiddleware:
    """Answer 404/400 instead of 500 when a number in the request is too large for the database.

    `<int:…>` URL arguments accept any number of digits; SQLite and PostgreSQL refuse ids past
    64 bits (OverflowError, DataError). An id that large cannot exist, so the answer is 404; any
    other out-of-range number in a request is the client's error, so 400.
    """

    BIGGEST = 2**63 - 1

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import DataError

        if not isinstance(exception, (OverflowError, DataError)):
            return None
        if isinstance(exception, DataError) and "out of range" not in str(exception):
            return None
        match = getattr(request, "resolver_match", None)
        too_big = any(isinstance(v, int) and abs(v) > self.BIGGEST for v in (match.kwargs.values() if match else ()))
        status, message = (404, "No such object.") if too_big else (400, "A number in the request is out of range.")
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message}, status=status)
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class DatabaseUnavailableMiddleware:
    """Answer 503 with a clear message when the database fails mid-request, instead of a bare 500.

    Writes are services in their own transactions, so whatever committed before the failure
    (an autosaved draft, say) is kept; the client is told to retry.
    """

    MESSAGE = "The database is unavailable for a moment; nothing of this request was saved beyond your draft. Please try again."

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import InterfaceError, OperationalError

        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logging.getLogger("heartbench.database").error("database error on %s %s: %s", request.method, request.path, exception)
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": self.MESSAGE, "retry": True}, status=503)
        else:
            response = HttpResponse(self.MESSAGE, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = "5"
        return response
