"""The API's report serializers mirror the typed report field for field, so the schema cannot drift from what is served."""

import dataclasses
import types
import typing

from rest_framework import serializers

from heartbench_core.lib.agreement_report import ReportInputs, ReportResult
from validation.api import ReportInputsSerializer, ReportResultSerializer


def nested_dataclass(hint: object) -> type | None:
    """The dataclass a field's type holds (directly, in a tuple, or beside None), if any."""
    if dataclasses.is_dataclass(hint):
        return hint  # type: ignore[return-value]
    if typing.get_origin(hint) in (tuple, typing.Union, types.UnionType):
        for arg in typing.get_args(hint):
            if (found := nested_dataclass(arg)) is not None:
                return found
    return None


def mismatches(serializer: serializers.Serializer, cls: type, path: str) -> list[str]:
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    declared = serializer.fields
    problems = [f"{path}: the serializer lacks {name}" for name in sorted(fields - set(declared))]
    problems += [f"{path}: the serializer adds {name}" for name in sorted(set(declared) - fields)]
    for name in sorted(fields & set(declared)):
        field = declared[name]
        child = field.child if isinstance(field, serializers.ListSerializer) else field
        target = nested_dataclass(hints[name])
        if isinstance(child, serializers.Serializer) != (target is not None):
            problems.append(f"{path}.{name}: nested on one side only")
        elif target is not None:
            problems += mismatches(child, target, f"{path}.{name}")
    return problems


def test_the_result_serializer_has_every_field_of_the_typed_report_and_no_other():
    assert mismatches(ReportResultSerializer(), ReportResult, "result") == []


def test_the_inputs_serializer_has_every_field_of_the_typed_inputs_and_no_other():
    assert mismatches(ReportInputsSerializer(), ReportInputs, "inputs") == []
