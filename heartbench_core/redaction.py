"""No secret in error reports or logs: passwords, tokens, cookies and session ids are redacted.

The settings name these classes: `DEFAULT_EXCEPTION_REPORTER_FILTER`, `DEFAULT_EXCEPTION_REPORTER`
and the `redact_secrets` logging filter.
"""

import logging
import re
from typing import Any

from django.http import HttpRequest
from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

SENSITIVE_NAMES = re.compile(r"API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|COOKIE|CSRF|SESSION|CREDENTIAL", re.I)
REDACTED = "********************"


class RedactingExceptionReporterFilter(SafeExceptionReporterFilter):
    """Hide passwords, tokens and cookies in every error report, also with DEBUG on.

    Django's default filter only hides POST fields a view marked sensitive and only when
    DEBUG is off; here every POST field, header or setting whose name looks secret is hidden.
    """

    hidden_settings = SENSITIVE_NAMES

    def is_active(self, request: HttpRequest | None) -> bool:
        return True

    def get_post_parameters(self, request: HttpRequest | None) -> dict[str, Any]:
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

    def get_traceback_data(self) -> dict[str, Any]:
        data = super().get_traceback_data()
        if data.get("exception_value"):
            data["exception_value"] = redact(str(data["exception_value"]))
        for frame in data.get("frames", []):
            frame["vars"] = [(name, redact(str(value))) for name, value in frame.get("vars", [])]
            if frame.get("exc_cause") is not None:
                frame["exc_cause"] = redact(str(frame["exc_cause"]))
        return data
