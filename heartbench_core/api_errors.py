"""The API's one exception handler: services raise Django exceptions, this maps them to responses.

Views call services and let their exceptions propagate; the mapping lives here only:

- a list's `InvalidFilters` is a 400 `{parameter: [messages]}`, as DRF answers a bad query parameter;
- `ValidationError` is a 400: `{"detail": "nothing was written", "errors": ...}` where `errors`
  is a field → messages object (an `error_dict`), a list of messages, or, for an input file, one
  `{file, line, field, message}` object per problem (with `more_errors` when some were left out);
- a conflict, a `ValidationError` with code "conflict" (rubrics' `ConflictError`), is a 409 with
  its message as `detail` and, when it carries one, `head`: the revision now current, to base a
  retry on; or `current`: the state now current, to merge with (the workspace's `DraftConflict`);
- `PermissionDenied` is a 403 and `Http404` a 404, both with their message (DRF's mapping);
- `ObjectDoesNotExist` is a 404.

Everything else is DRF's default handling.
"""

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from heartbench_core.filters import InvalidFilters
from heartbench_core.jsonl import InputFileError, localized

CONFLICT_CODE = "conflict"
NOTHING_WRITTEN = _("nothing was written")


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler, extended to the Django exceptions services raise."""
    if isinstance(exc, InvalidFilters):  # a list's filter, as DRF names a bad query parameter
        return Response(exc.message_dict, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        set_rollback()
        if getattr(exc, "code", None) == CONFLICT_CODE:
            return Response(conflict_body(exc), status=status.HTTP_409_CONFLICT)
        return Response(validation_body(exc, detail=_detail_of(context.get("view"))), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, ObjectDoesNotExist):
        exc = exceptions.NotFound()
    return exception_handler(exc, context)


def validation_body(exc: DjangoValidationError, *, detail: str) -> dict[str, Any]:
    """The body of a 400 for a service's ValidationError: what failed, by field, line or message."""
    if isinstance(exc, InputFileError):
        # The message in the reader's language; file, line and field stay as the file has them.
        body: dict[str, Any] = {"detail": detail, "errors": [{**e.as_dict(), "message": localized(e.message)} for e in exc.errors]}
        if exc.truncated:
            body["more_errors"] = exc.truncated
        return body
    if hasattr(exc, "error_dict"):
        return {"detail": detail, "errors": exc.message_dict}
    return {"detail": detail, "errors": exc.messages}


def conflict_body(exc: DjangoValidationError) -> dict[str, Any]:
    """The body of a 409: the conflict in words and, when the error carries it, the current head or state."""
    body: dict[str, Any] = {"detail": exc.messages[0]}
    if hasattr(exc, "head"):
        body["head"] = exc.head
    if hasattr(exc, "current"):
        body["current"] = exc.current
    return body


def _detail_of(view: Any) -> str:
    # A view that writes nothing in any case (a computed read) names its own outcome, e.g. "no score".
    return str(getattr(view, "validation_error_detail", None) or NOTHING_WRITTEN)
