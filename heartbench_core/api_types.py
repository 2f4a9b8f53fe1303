"""API output derived from the frozen dataclasses the read models and `lib` return, instead of serializers that mirror them.

A `TypedSerializer` names its dataclass (`Meta.dataclass`) and gets one field per dataclass field,
in the dataclass's order, from its type hint: `int`, `float`, `str`, `bool`, `X | None` (nullable),
`tuple[X, ...]` (a list), `dict[str, X]`, and nested dataclasses (a nested serializer, a list of
them for a tuple). The dataclass documents its own fields with plain data in their metadata, so
`lib` stays free of Django:

    reason: str | None = field(default=None, metadata={"help_text": "Why it is undefined; null when it is defined."})
    date: str = field(metadata={"format": "date"})  # an ISO 8601 string served and documented as a date

Every field is required in the output (a dataclass default says how the type is built, not that
the key may be missing). A field whose output differs from the dataclass's (choices, a renamed or
computed value) is declared on the serializer as usual and keeps its place.

The schema names a serializer's component after the class (`ReportFigureSerializer`: `ReportFigure`)
and describes it by its docstring. A nested dataclass with no serializer of its own is derived once
for its `prefix` and named `prefix + the dataclass's name`, described by `descriptions`; a
serializer declared for a (prefix, dataclass) is used wherever that dataclass is nested under
that prefix (to declare choices or another name).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from drf_spectacular.drainage import set_override
from rest_framework import fields as drf_fields
from rest_framework_dataclasses.field_utils import TypeInfo
from rest_framework_dataclasses.serializers import DataclassSerializer
from rest_framework_dataclasses.types import Dataclass

T = TypeVar("T", bound=Dataclass)

FORMATS: dict[str, type[drf_fields.Field]] = {"date": drf_fields.DateField, "date-time": drf_fields.DateTimeField}

_declared: dict[tuple[str, type], type[TypedSerializer[Any]]] = {}
_fields_of: dict[type, dict[str, drf_fields.Field]] = {}  # each serializer's fields, built once from the type hints
_derived: dict[tuple[str, type], type[TypedSerializer[Any]]] = {}


def _clean_doc(doc: str | None) -> str:
    """A docstring as drf-spectacular writes it into the schema."""
    return "\n".join(line.rstrip() for line in inspect.cleandoc(doc).rstrip().split("\n")) if doc else ""


class TypedSerializer(DataclassSerializer[T]):
    """The output of a frozen dataclass, field for field (see the module's docstring)."""

    prefix: ClassVar[str] = ""  # component names of the nested dataclasses derived here: prefix + the dataclass's name
    descriptions: ClassVar[Mapping[type, str]] = {}  # the schema's description of a nested dataclass derived here
    derived: ClassVar[bool] = False  # made by `serializer_of` for a nested dataclass, not declared

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass = getattr(cls.__dict__.get("Meta"), "dataclass", None)
        if dataclass is None:
            return  # an abstract base naming a prefix and descriptions
        if not cls.__dict__.get("derived", False):
            _declared.setdefault((cls.prefix, dataclass), cls)
        name = cls.__name__.removesuffix("Serializer")
        description = _clean_doc(cls.__dict__.get("__doc__")) or cls.descriptions.get(dataclass, "")
        set_override(cls, "component_name", name)
        set_override(cls, "description", description)

    @classmethod
    def serializer_of(cls, dataclass: type) -> type[TypedSerializer[Any]]:
        """The serializer of a dataclass nested in this one: the one declared for it under this prefix, else derived."""
        return typed(dataclass, prefix=cls.prefix, descriptions=cls.descriptions)

    def get_fields(self) -> dict[str, drf_fields.Field]:
        """The fields derived once for the class and copied for each instance, as DRF copies declared fields."""
        cls = type(self)
        if cls not in _fields_of:
            _fields_of[cls] = super().get_fields()
        return copy.deepcopy(_fields_of[cls])

    def get_default_field_names(self, declared_fields: Iterable[str]) -> list[str]:
        """The dataclass's fields in its order (a declared one in its place), then the fields it lacks."""
        own = list(self.dataclass_definition.fields)
        return own + [name for name in declared_fields if name not in own]

    def create_field(self, field_name: str, extra_kwargs: dict[str, Any]) -> drf_fields.Field:
        field = self.dataclass_definition.fields.get(extra_kwargs.get("source", field_name))
        if field is not None and "help_text" in field.metadata:
            extra_kwargs = {"help_text": field.metadata["help_text"], **extra_kwargs}
        return super().create_field(field_name, extra_kwargs)

    def build_typed_field(self, field_name: str, type_info: TypeInfo, extra_kwargs: dict[str, Any]) -> tuple[type, dict[str, Any]]:
        field_class, field_kwargs = super().build_typed_field(field_name, type_info, extra_kwargs)
        field_kwargs.pop("required", None)  # output: every key is there, default or not
        return field_class, field_kwargs

    def build_standard_field(self, field_name: str, type_info: TypeInfo) -> tuple[type, dict[str, Any]]:
        shown_as = self.dataclass_definition.fields[field_name].metadata.get("format")
        if shown_as is not None and type_info.base_type is str:
            return FORMATS[shown_as], {}
        return super().build_standard_field(field_name, type_info)

    def build_composite_field(self, field_name: str, type_info: TypeInfo, extra_kwargs: dict[str, Any]) -> tuple[type, dict[str, Any]]:
        if type_info.is_many and not type_info.is_mapping and dataclasses.is_dataclass(type_info.base_type):
            return self.serializer_of(type_info.base_type), {"many": True}  # a list of nested serializers, as if declared many=True
        return super().build_composite_field(field_name, type_info, extra_kwargs)

    def build_dataclass_field(self, field_name: str, type_info: TypeInfo) -> tuple[type, dict[str, Any]]:
        return self.serializer_of(type_info.base_type), {"many": type_info.is_many}


def typed(dataclass: type, *, prefix: str = "", descriptions: Mapping[type, str] | None = None) -> type[TypedSerializer[Any]]:
    """The serializer of `dataclass` under `prefix`: the one declared for it, else one derived once (`changed = typed(SettingsChange)(many=True)`)."""
    key = (prefix, dataclass)
    if key in _declared:
        return _declared[key]
    if key not in _derived:
        meta = type("Meta", (), {"dataclass": dataclass})
        attrs = {"Meta": meta, "__module__": __name__, "prefix": prefix, "descriptions": descriptions or {}, "derived": True}
        _derived[key] = type(f"{prefix}{dataclass.__name__}Serializer", (TypedSerializer,), attrs)
    return _derived[key]
