"""The filters of the judging lists (imported judge runs, endpoint runs), one FilterSet each (heartbench_core.filters)."""

from __future__ import annotations

from heartbench_core.filters import ListFilters, Text
from heartbench_core.judging.models import EndpointRun
from heartbench_core.models import JudgeRun


class JudgeRunFilters(ListFilters):
    dataset = Text(field_name="version__dataset__name")
    version = Text(field_name="version__label")
    model = Text(field_name="model__name")
    judge = Text()
    run = Text(field_name="label")

    class Meta:
        model = JudgeRun
        fields: list[str] = []


class EndpointRunFilters(ListFilters):
    kind = Text()
    status = Text()
    dataset = Text(field_name="version__dataset__name")
    model = Text(field_name="model__name")
    endpoint = Text(field_name="endpoint__name")

    class Meta:
        model = EndpointRun
        fields: list[str] = []
