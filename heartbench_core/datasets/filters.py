"""The filters of the dataset lists (versions, items, responses), one FilterSet each for the pages and the API (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from django_filters import CharFilter

from heartbench_core.filters import Choice, ListFilters, Text
from heartbench_core.models import DatasetVersion, Item, ModelResponse


class VersionFilters(ListFilters):
    dataset = Text(field_name="dataset__name", label=_("Dataset"))

    class Meta:
        model = DatasetVersion
        fields: list[str] = []


class ItemFilters(ListFilters):
    """A version's items on its page, every version's in the API: by version (an id or a label), dataset, difficulty, question, scene."""

    version = CharFilter(method="of_version", label=_("Version"))
    dataset = Text(field_name="version__dataset__name", label=_("Dataset"))
    difficulty = Choice(choices=Item.Difficulty.choices, label=_("Difficulty"))
    question_id = Text(label=_("Question id"))
    scene = Text(field_name="primary_scene", label=_("Scene"))
    q = Text(field_name="question_id", lookup_expr="icontains", help_text="Only items whose question id contains this.", label=_("Search"))

    class Meta:
        model = Item
        fields: list[str] = []

    def of_version(self, qs: QuerySet[Item], name: str, value: Any) -> QuerySet[Item]:
        return qs.filter(version_id=int(value)) if value.isdecimal() else qs.filter(version__label=value)


class ResponseFilters(ListFilters):
    dataset = Text(field_name="dataset__name", label=_("Dataset"))
    model = Text(field_name="model__name", label=_("Model"))
    question_id = Text(label=_("Question id"))

    class Meta:
        model = ModelResponse
        fields: list[str] = []
