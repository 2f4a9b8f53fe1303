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
from collections.abc import Callable
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
    try:
        return typing.cast(T, _reader(typing.cast(Any, cls))(data))
    except _Misfit as misfit:
        where = path
        for part in reversed(misfit.parts):
            where = f"{where}[{part}]" if isinstance(part, int) else (f"{where}.{part}" if where else part)
        raise TypedJsonError(f"{_where(where)}: {misfit.message}") from misfit.__cause__


class _Misfit(Exception):
    """Raised inside the readers; `parts` (innermost first) say where, and become the path only when it is raised out."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.parts: list[str | int] = []  # a field or key name, or a list index


Reader = Callable[[Any], Any]


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _where(path: str) -> str:
    return path or "top level"


@cache
def _reader(hint: Any) -> Reader:
    """The function reading JSON into `hint`, made once per type (what the hint asks is worked out here, not per value)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(hint) if m is not type(None)]
        if len(members) != 1:
            return _refuse(f"cannot read the union {hint!r}")
        inner = _reader(members[0])
        if len(members) == len(typing.get_args(hint)):
            return inner
        return lambda data: None if data is None else inner(data)
    if dataclasses.is_dataclass(hint):
        return _dataclass_reader(typing.cast(type, hint))
    if origin in (tuple, list):
        return _sequence_reader(_reader(typing.get_args(hint)[0]), as_tuple=origin is tuple)
    if origin is dict:
        return _mapping_reader(_reader(typing.get_args(hint)[1]))
    if hint is Any:
        return lambda data: data
    if hint is float:
        return _read_float
    if hint in (int, str, bool):
        return _scalar_reader(hint)
    return _refuse_value(getattr(hint, "__name__", str(hint)))


def _refuse(message: str) -> Reader:
    def read(data: Any) -> Any:
        raise _Misfit(message)

    return read


def _refuse_value(name: str) -> Reader:
    def read(data: Any) -> Any:
        raise _Misfit(f"expected {name}, got {data!r}")

    return read


def _read_float(data: Any) -> float:
    if isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    raise _Misfit(f"expected float, got {data!r}")


def _scalar_reader(kind: type) -> Reader:
    def read(data: Any) -> Any:
        if isinstance(data, kind) and not (kind is int and isinstance(data, bool)):
            return data
        raise _Misfit(f"expected {kind.__name__}, got {data!r}")

    return read


def _sequence_reader(item: Reader, *, as_tuple: bool) -> Reader:
    def read(data: Any) -> Any:
        if not isinstance(data, list):
            raise _Misfit(f"expected a list, got {type(data).__name__}")
        values = []
        for i, value in enumerate(data):
            try:
                values.append(item(value))
            except _Misfit as misfit:
                misfit.parts.append(i)
                raise
        return tuple(values) if as_tuple else values

    return read


def _mapping_reader(item: Reader) -> Reader:
    def read(data: Any) -> Any:
        if not isinstance(data, dict):
            raise _Misfit(f"expected an object, got {type(data).__name__}")
        values = {}
        for key, value in data.items():
            try:
                values[str(key)] = item(value)
            except _Misfit as misfit:
                misfit.parts.append(str(key))
                raise
        return values

    return read


def _dataclass_reader(cls: type) -> Reader:
    # (name, reader, required) of each field, worked out at the first read (types may refer to each other) and
    # published whole, so a thread reading at the same time never sees half of it.
    made: list[list[tuple[str, Reader, bool]]] = []

    def read(data: Any) -> Any:
        if not made:
            hints = _hints(cls)
            made.append(
                [
                    (f.name, _reader(hints[f.name]), f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
                    for f in dataclasses.fields(cls)
                ]
            )
        fields = made[0]
        if not isinstance(data, dict):
            raise _Misfit(f"expected an object, got {type(data).__name__}")
        values = {}
        for name, reader, required in fields:
            if name in data:
                try:
                    values[name] = reader(data[name])
                except _Misfit as misfit:
                    misfit.parts.append(name)
                    raise
            elif required:
                raise _Misfit(f"missing field {name!r}")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:  # the dataclass's own checks (a figure undefined without a reason, ...)
            raise _Misfit(str(exc)) from exc

    return read
