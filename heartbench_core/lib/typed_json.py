"""Frozen dataclasses to JSON and back, driven by their type hints: no field list written by hand, no Django.

`to_json(value)` gives plain dicts, lists and scalars, field by field in the dataclass's order; a
field left at a default of None is not written (a block a report does not have is absent, not null).
`from_json(cls, data)` builds `cls` back from such JSON, checking every value against its type
hint (`int`, `float`, `str`, `bool`, `X | None`, `tuple[X, ...]`, `list[X]`, `dict[str, X]`, nested
dataclasses) and naming where a malformed one failed: "by_model[0].item_agreement: missing field 'rate'".
A field the JSON lacks takes its default; keys the dataclass does not have are ignored.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


class TypedJsonError(ValueError):
    """JSON that does not fit its type; the message starts with where ("top level", "gate.ci95", "by_model[2]")."""


def to_json(value: Any) -> Any:
    """A dataclass (and what it holds) as JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if item is None and f.default is None:
                continue
            out[f.name] = to_json(item)
        return out
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    return value


def from_json(cls: type[T], data: Any, *, path: str = "") -> T:
    """`cls` built from the JSON `to_json` gave (found at `path`); raises TypedJsonError naming where it does not fit."""
    return _read(cls, data, path)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _where(path: str) -> str:
    return path or "top level"


def _read(hint: Any, data: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(hint) if m is not type(None)]
        if data is None and len(members) < len(typing.get_args(hint)):
            return None
        if len(members) != 1:
            raise TypedJsonError(f"{_where(path)}: cannot read the union {hint!r}")
        return _read(members[0], data, path)
    if dataclasses.is_dataclass(hint):
        return _read_dataclass(typing.cast(type, hint), data, path)
    if origin in (tuple, list):
        if not isinstance(data, list):
            raise TypedJsonError(f"{_where(path)}: expected a list, got {type(data).__name__}")
        item = typing.get_args(hint)[0]
        values = [_read(item, value, f"{path}[{i}]") for i, value in enumerate(data)]
        return tuple(values) if origin is tuple else values
    if origin is dict:
        if not isinstance(data, dict):
            raise TypedJsonError(f"{_where(path)}: expected an object, got {type(data).__name__}")
        item = typing.get_args(hint)[1]
        return {str(key): _read(item, value, f"{path}.{key}" if path else str(key)) for key, value in data.items()}
    if hint is Any:
        return data
    if hint is float and isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    if hint in (int, str, bool) and isinstance(data, hint) and not (hint is int and isinstance(data, bool)):
        return data
    raise TypedJsonError(f"{_where(path)}: expected {getattr(hint, '__name__', hint)}, got {data!r}")


def _read_dataclass(cls: type, data: Any, path: str) -> Any:
    if not isinstance(data, dict):
        raise TypedJsonError(f"{_where(path)}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = _read(hints[f.name], data[f.name], f"{path}.{f.name}" if path else f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypedJsonError(f"{_where(path)}: missing field {f.name!r}")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # the dataclass's own checks (a figure undefined without a reason, ...)
        raise TypedJsonError(f"{_where(path)}: {exc}") from exc
