"""The filters of the rubric lists, one FilterSet each (heartbench_core.filters)."""

from __future__ import annotations

from heartbench_core.filters import Choice, ListFilters, Text, Uuid
from rubrics.models import CriterionRevision


class RevisionFilters(ListFilters):
    dataset = Text(field_name="dataset__name")
    question_id = Text()
    key = Uuid(field_name="lineage_id", help_text="criterion lineage key")
    status = Choice(CriterionRevision.Status.values)

    class Meta:
        model = CriterionRevision
        fields: list[str] = []
