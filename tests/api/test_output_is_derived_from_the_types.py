"""API output is derived from the typed shapes (`heartbench_core.api_types`): one field per dataclass field, documented by it.

The report's API and the read models' outputs are served this way; the schema they produce is
pinned by test_responses_match_their_schema and test_schema_is_valid. Here: what a dataclass
says (type, nullability, help text, format, nesting) is what the serializer serves and documents.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date

from drf_spectacular.drainage import get_override
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from heartbench_core.api_types import TypedSerializer, typed
from heartbench_core.lib.agreement_report import Figure, ReportResult
from validation.api import ReportPart, ReportResultSerializer


@dataclass(frozen=True)
class Leaf:
    """A nested part."""

    value: float | None = field(metadata={"help_text": "Null when undefined."})
    reason: str | None = None


@dataclass(frozen=True)
class Root:
    name: str
    day: str = field(metadata={"format": "date"})
    leaves: tuple[Leaf, ...]
    best: Leaf | None
    counts: dict[str, int]
    kind: str = "a"
    hidden: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class RootSerializer(TypedSerializer[Root]):
    """The root as served."""

    kind = serializers.ChoiceField(choices=["a", "b"])
    total = serializers.IntegerField()

    class Meta:
        dataclass = Root
        exclude = ("hidden",)


def test_each_field_is_derived_from_its_type_in_the_dataclass_s_order_with_declared_fields_in_their_place():
    fields = RootSerializer().fields
    assert list(fields) == ["name", "day", "leaves", "best", "counts", "kind", "total"]
    assert isinstance(fields["day"], serializers.DateField) and isinstance(fields["kind"], serializers.ChoiceField)
    assert isinstance(fields["leaves"], serializers.ListSerializer) and fields["best"].allow_null
    assert isinstance(fields["counts"], serializers.DictField) and isinstance(fields["counts"].child, serializers.IntegerField)
    assert all(f.required for f in fields.values())  # output: every key is there, default or not
    child = fields["leaves"].child
    assert isinstance(child, TypedSerializer)
    leaf = child.fields
    assert leaf["value"].help_text == "Null when undefined." and leaf["value"].allow_null and leaf["reason"].allow_null


def test_the_output_is_the_dataclass_s_values():
    root = Root("r", "2026-11-22", (Leaf(0.5), Leaf(None, "none")), None, {"x": 2}, kind="b", hidden=7)
    out = json.loads(JSONRenderer().render(RootSerializer(root).data))
    assert out == {
        "name": "r",
        "day": "2026-11-22",
        "leaves": [{"value": 0.5, "reason": None}, {"value": None, "reason": "none"}],
        "best": None,
        "counts": {"x": 2},
        "kind": "b",
        "total": 2,
    }
    assert date.fromisoformat(out["day"])


def test_a_nested_shape_is_named_and_described_once_under_its_prefix():
    assert typed(Leaf) is typed(Leaf) and typed(Leaf) is not typed(Leaf, prefix="Other")
    assert get_override(typed(Leaf), "component_name") == "Leaf"
    assert get_override(RootSerializer, "component_name") == "Root" and get_override(RootSerializer, "description") == "The root as served."
    figure = ReportPart.serializer_of(Figure)
    assert get_override(figure, "component_name") == "ReportFigure"
    assert get_override(figure, "description").startswith("A statistic with the number of units it compared")
    assert ReportPart.serializer_of(ReportResult) is ReportResultSerializer  # a declared serializer is used where its shape nests
