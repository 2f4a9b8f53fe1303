"""The one check on text coming in: a NUL character or a lone surrogate is a 400 naming where, before any view stores it.

Neither can be stored: PostgreSQL refuses NUL in text (SQLite keeps it, so both refuse it here),
and a lone surrogate (U+D800–U+DFFF alone) is not a Unicode character, so no database can encode
it as UTF-8 and no page or JSON answer that repeats it can be sent (a 500 before: a choice field's
error message repeats the value). Browsers never send either, but a client can: JSON's `\\ud800`
escape, or a request declaring a charset such as UTF-7 (Django decodes the query string and a
multipart body with the charset the request names).

The check itself is `heartbench_core.lib.jsonl.find_unstorable` and `UNSTORABLE_CHARACTER`, the
same the JSONL importers use. It runs where text is decoded:

- `RefuseUnstorableTextMiddleware`: the path, the query string, the headers and cookies of
  every request, and the fields and uploaded file names a page posts (the API's bodies are
  left to its parsers, so that a caller without the role is refused before the body is read);
- `heartbench_core.api_parsers`: the JSON, form and multipart bodies of the API.

A view that shows a NUL as an error of its own (the judging page's autosave and submit) is
marked `refuses_nul_itself`; a lone surrogate is refused for it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext, gettext_noop

from heartbench_core.lib.jsonl import UNSTORABLE_CHARACTER, escaped
from heartbench_core.middleware import Middleware, is_api

NUL_MESSAGE = gettext_noop("Must not contain a NUL character.")  # translated where it is answered
# The surrogates alone, for a view that shows a NUL as an error of its own.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_MESSAGE = gettext_noop("Must not contain a lone surrogate (%(code)s): it is not a Unicode character.")


def refusal(character: str) -> str:
    """What is said, in the reader's language, of a field holding this unstorable character."""
    if character == "\x00":
        return gettext(NUL_MESSAGE)
    return gettext(SURROGATE_MESSAGE) % {"code": escaped(character)}


def first_refused(fields: Iterable[tuple[str, Iterable[str]]], *, allow_nul: bool = False) -> tuple[str, str] | None:
    """(field name as it can be shown, message) of the first field whose name or a value holds an unstorable character."""
    pattern = LONE_SURROGATE if allow_nul else UNSTORABLE_CHARACTER
    for name, values in fields:
        for text in (name, *values):
            if found := pattern.search(text):
                return escaped(name), refusal(found.group())
    return None


def _header_name(key: str) -> str:
    return key.removeprefix("HTTP_").replace("_", "-").title()


def _in_request_line(request: HttpRequest) -> tuple[str, str] | None:
    """The path, the query string, the headers and the cookies: what every request carries."""
    return (
        first_refused([("path", [request.path_info])])
        or first_refused(request.GET.lists())
        or first_refused((_header_name(key), [value]) for key, value in request.META.items() if key.startswith("HTTP_"))
        or first_refused((name, [value]) for name, value in request.COOKIES.items())
    )


def _answer(request: HttpRequest, name: str, message: str) -> HttpResponse:
    if is_api(request):
        return JsonResponse({name: [message]}, status=400)
    return HttpResponseBadRequest(f"{name}: {message}", content_type="text/plain; charset=utf-8")


class RefuseUnstorableTextMiddleware(Middleware):
    """A NUL or a lone surrogate in the URL, a header, a cookie or a page's posted fields is a 400 naming where, before the view.

    The URL, headers and cookies are checked for every request, before any other middleware reads
    them (a session key or a language cookie is looked up in the database); a page's fields and
    file names when the view is known, so that a view may say it shows a NUL itself. The API's
    bodies are checked by its parsers (`heartbench_core.api_parsers`).
    """

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = _in_request_line(request)
        if found is not None:
            return _answer(request, *found)
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Callable[..., HttpResponse], view_args: tuple[Any, ...], view_kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        if request.method != "POST" or is_api(request):
            return None
        try:
            fields, files = request.POST.lists(), request.FILES.lists()
        except (MultiPartParserError, SuspiciousOperation, BadRequest):
            return None  # the view answers these as before
        found = first_refused(fields, allow_nul=getattr(view_func, "refuses_nul_itself", False)) or first_refused(
            (name, [upload.name or "" for upload in uploads]) for name, uploads in files
        )
        return None if found is None else _answer(request, *found)
