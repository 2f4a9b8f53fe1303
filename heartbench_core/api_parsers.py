"""The API's JSON parser: a body nested too deeply for Python's decoder is a 400, not a RecursionError (500)."""

from collections.abc import Mapping
from typing import IO, Any

from django.utils.translation import gettext
from rest_framework import exceptions, parsers


class BoundedJSONParser(parsers.JSONParser):
    """DRF's JSON parser; a body like `[` × 100000 is a parse error like any other malformed JSON."""

    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(gettext("JSON parse error - nested too deeply")) from None
