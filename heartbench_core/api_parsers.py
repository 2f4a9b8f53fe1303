"""The API's parsers: DRF's, refusing text no database stores (NUL, lone surrogates) with a 400 naming the field.

They run after the permission check (DRF parses the body when a view first reads it), so a
caller without the role is refused before anything is parsed. The check is the one of
`heartbench_core.input_text`, which does the same for the URL, the headers and the pages' forms.
A JSON body nested too deeply for Python's decoder is a 400 like any other malformed JSON.
"""

from collections.abc import Mapping
from typing import IO, Any

from django.http import QueryDict
from django.utils.translation import gettext
from rest_framework import exceptions, parsers
from rest_framework.settings import api_settings

from heartbench_core.input_text import first_refused, refusal
from heartbench_core.lib.jsonl import find_unstorable


def _refuse(field: str | None, message: str) -> exceptions.ValidationError:
    return exceptions.ValidationError({field or api_settings.NON_FIELD_ERRORS_KEY: [message]})


def _check_form(data: QueryDict, files: Any = None) -> None:
    found = first_refused(data.lists())
    if found is None and files is not None:
        found = first_refused((name, [upload.name or "" for upload in uploads]) for name, uploads in files.lists())
    if found is not None:
        raise _refuse(*found)


class BoundedJSONParser(parsers.JSONParser):
    """DRF's JSON parser; a body like `[` × 100000 is a parse error, a NUL or a lone surrogate (`"\\ud800"`) a 400 naming its field."""

    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(gettext("JSON parse error - nested too deeply")) from None
        found = find_unstorable(data)
        if found is None:
            return data
        if found.character is None:
            raise exceptions.ParseError(gettext("JSON parse error - nested too deeply"))
        raise _refuse(found.path, refusal(found.character))


class CheckedFormParser(parsers.FormParser):
    """DRF's form parser; a NUL or a lone surrogate in a field is a 400 naming the field."""

    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        _check_form(data)
        return data


class CheckedMultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser; a NUL or a lone surrogate in a field or an uploaded file's name is a 400 naming the field."""

    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(parsed.data, parsed.files)
        return parsed


# Every parser an API view may use: tests/security/test_unstorable_text_is_refused_everywhere.py checks each view's.
CHECKED_PARSERS = (BoundedJSONParser, CheckedFormParser, CheckedMultiPartParser)
