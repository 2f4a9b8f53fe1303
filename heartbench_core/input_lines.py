"""One line of an input file checked by a serializer: its problems recorded under the file's own field paths.

An importer describes a line declaratively, as a DRF serializer made of the strict JSON fields
here, and a `LineCheck` runs it on each line, recording every problem in the file's
`ErrorCollector` under the path the file itself uses (`rubric[1].score`). The fields take a JSON
value as it is and never coerce it (`"3"` is no integer, `3` no string, `true` no number), and
each says its problem in the importer's own words (`found a list`), which is why DRF's stock
fields, which convert and word their messages their own way, are not used.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from heartbench_core.jsonl import type_name
from heartbench_core.lib.jsonl import ErrorCollector

MISSING = gettext_lazy("missing key")
NOT_AN_OBJECT = gettext_lazy("must be an object, found %(found)s")


def refuse(message: Any, **params: Any) -> ValidationError:
    """The refusal of a value: MESSAGE (lazy or not) with its parameters, in the reader's language."""
    return ValidationError(str(message) % params if params else str(message))


class JsonField(serializers.Field):
    """A JSON value checked as it is by `to_internal_value` (null included, unless `allow_null`).

    A missing key is the MISSING problem when the field is required, its default (or nothing)
    when it is not, or reads as null when `missing=None` (the file may leave out a null).
    `message` says what the value must be (with `found`, the type found, or `value`, the value).
    """

    def __init__(self, message: Any = None, *, missing: Any = MISSING, **kwargs: Any) -> None:
        self.message, self.missing = message, missing
        super().__init__(**kwargs)

    def run_validation(self, data: Any = empty) -> Any:
        if data is empty:
            if not self.required:
                return self.get_default()  # SkipField when there is no default: the key stays absent
            if self.missing is not None:
                raise refuse(self.missing)
            data = None
        if data is None and self.allow_null:
            return None
        value = self.to_internal_value(data)
        self.run_validators(value)
        return value

    def to_representation(self, value: Any) -> Any:
        return value


class Text(JsonField):
    """A string; a blank one is refused unless `blank`, a longer one than `max_length` characters by `too_long`."""

    def __init__(self, message: Any, *, blank: bool = False, max_length: int | None = None, too_long: Any = None, **kwargs: Any) -> None:
        self.blank, self.max_length, self.too_long = blank, max_length, too_long
        super().__init__(message, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str) or (not self.blank and not data.strip()):
            raise refuse(self.message, found=type_name(data))
        if self.max_length is not None and len(data) > self.max_length:
            raise refuse(self.too_long, limit=self.max_length, n=self.max_length, length=len(data))
        return data


class Integer(JsonField):
    """An integer (a boolean is not one) from `minimum` to `maximum`; the message says what was found."""

    def __init__(self, message: Any, *, minimum: int | None = None, maximum: int | None = None, **kwargs: Any) -> None:
        self.minimum, self.maximum = minimum, maximum
        super().__init__(message, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, int) or not self._in_range(data):
            raise refuse(self.message, found=type_name(data))
        return data

    def _in_range(self, value: int) -> bool:
        return (self.minimum is None or value >= self.minimum) and (self.maximum is None or value <= self.maximum)


class Boolean(JsonField):
    """true or false."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, bool):
            raise refuse(self.message, found=type_name(data))
        return data


class Choice(JsonField):
    """One of `choices` (compared as the JSON value is); the message gets the choices and the value found."""

    def __init__(self, choices: Sequence[str], message: Any, **kwargs: Any) -> None:
        self.choices = list(choices)
        super().__init__(message, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str) or data not in self.choices:
            raise refuse(self.message, choices=", ".join(self.choices), value=data, found=data)
        return data


class Strings(JsonField):
    """A list of strings."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, list) or not all(isinstance(v, str) for v in data):
            raise refuse(self.message, found=type_name(data))
        return data


class Moment(JsonField):
    """An ISO 8601 date and time, or null (a well-formed impossible one, the 31st of February, is refused too)."""

    def __init__(self, message: Any, **kwargs: Any) -> None:
        super().__init__(message, allow_null=True, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        try:
            parsed = parse_datetime(data) if isinstance(data, str) else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise refuse(self.message, value=data)
        return parsed


class Uuid(JsonField):
    """A UUID written as text (any value whose text is one)."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            return uuid.UUID(str(data))
        except ValueError:
            raise refuse(self.message, value=data) from None


class Items(JsonField, serializers.ListField):
    """A list whose every element the `child` checks (a problem is named `field[i]…`); an empty one is refused unless `allow_empty`."""

    def __init__(self, child: serializers.Field, message: Any, *, allow_empty: bool = False, **kwargs: Any) -> None:
        super().__init__(message, child=child, allow_empty=allow_empty, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, list) or (not data and not self.allow_empty):
            raise refuse(self.message, found=type_name(data))
        return self.run_child_validation(data)


class Line(serializers.Serializer):
    """A JSON object checked field by field (the keys it does not declare pass unchecked)."""

    def run_validation(self, data: Any = empty) -> Any:
        if data is empty:
            raise refuse(MISSING)
        if not isinstance(data, Mapping):
            raise refuse(NOT_AN_OBJECT, found=type_name(data))
        return super().run_validation(data)


ReportError = Callable[[str | None, str], None]


class LineCheck:
    """Checks the lines of one file with one serializer (made once: a few hundred lines take a fraction of a second)."""

    def __init__(self, serializer: type[Line], errors: ErrorCollector, **context: Any) -> None:
        self.context, self.errors = context, errors
        self.serializer = serializer(context=context)

    def __call__(self, record: dict[str, Any], line: int, **line_context: Any) -> Any:
        """The line's checked values, or None after recording each of its problems under its field path.

        `line_context` is what this line's checks need besides the file's (the dataset an earlier check found it names).
        """
        self.context.update(line_context)
        try:
            return self.serializer.run_validation(record)
        except ValidationError as exc:
            report_detail(exc.detail, "", partial(self.errors.add, line))
            return None


def report_detail(detail: Any, path: str, report: ReportError) -> None:
    """Each message of a serializer's errors, with the path of its field (`rubric[1].score`; the line itself: None)."""
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            report_detail(value, _join(path, key), report)
    elif isinstance(detail, list):
        for value in detail:
            report_detail(value, path, report)
    else:
        report(path or None, str(detail))


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key == api_settings.NON_FIELD_ERRORS_KEY:
        return path
    return f"{path}.{key}" if path else str(key)
