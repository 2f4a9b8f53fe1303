"""The filters of the validation lists (heartbench_core.filters)."""

from __future__ import annotations

from heartbench_core.filters import Choice, ListFilters
from validation.models import GoldenLabel


class GoldenLabelFilters(ListFilters):
    provenance = Choice(GoldenLabel.Provenance.values)

    class Meta:
        model = GoldenLabel
        fields: list[str] = []
