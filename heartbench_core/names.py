"""Names people choose (datasets, version labels, models) and how any stored name travels in a URL.

`validate_*` refuse, with a message naming the field, what would break a URL, a header or a
file name; every way in (commands, API, pages, the Django admin) calls them through the
services or forms. `NameConverter` carries any stored text — also a question id from a file,
or a name stored before these rules — as one URL path segment: `/` and `%` are
percent-encoded once more than Django does, so the segment cannot split and decodes back to
the exact text.
"""

import unicodedata
from urllib.parse import quote, unquote

from django.core.exceptions import ValidationError
from django.urls import register_converter
from django.utils.translation import gettext


def _problem(value: str, *, slash_allowed: bool, max_length: int | None) -> str | None:
    if not value.strip():
        return gettext("must not be empty")
    if max_length is not None and len(value) > max_length:
        return gettext("is longer than %(limit)d characters") % {"limit": max_length}
    if value != value.strip():
        return gettext("must not begin or end with a space")
    if any(unicodedata.category(ch).startswith("C") for ch in value):
        return gettext("must not contain control characters (such as a line break, a tab or NUL)")
    if not slash_allowed and ("/" in value or "\\" in value):
        return gettext("must not contain '/' or '\\'")
    if '"' in value:
        return gettext("must not contain '\"'")
    if value in (".", ".."):
        return gettext("must not be '.' or '..'")
    return None


def validate_name(value: str, *, field: str, max_length: int | None = 64, slash_allowed: bool = False) -> None:
    """Raise ValidationError({field: ...}) when `value` is not a usable dataset name or version label.

    `max_length` is that of the column the name is stored in (a model field's, so None means no limit).
    """
    problem = _problem(value, slash_allowed=slash_allowed, max_length=max_length)
    if problem:
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise ValidationError({field: [gettext("%(value)r %(problem)s.") % {"value": shown, "problem": problem}]})


def validate_model_name(value: str, *, field: str = "model", max_length: int | None = 200) -> None:
    """Raise ValidationError({field: ...}) when `value` is not a usable model name ('org/model' is fine)."""
    validate_name(value, field=field, max_length=max_length, slash_allowed=True)


class NameConverter:
    """One path segment holding any text: `/`, `%` and dot-only names are percent-encoded before Django quotes the rest."""

    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return unquote(value)

    def to_url(self, value: str) -> str:
        text = str(value)
        if text.strip(".") == "":
            return quote(text, safe="").replace(".", "%2E")
        return text.replace("%", "%25").replace("/", "%2F")


register_converter(NameConverter, "name")
