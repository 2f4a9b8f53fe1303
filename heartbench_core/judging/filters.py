"""The filters of the judging lists (imported judge runs, endpoint runs, a run's questions), one FilterSet each (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from heartbench_core.filters import Boolean, Choice, ListFilters, Text
from heartbench_core.judging.models import EndpointRun, RunQuestion
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


class RunQuestionFilters(ListFilters):
    """An endpoint run's questions: of one status, or only those that looked like prompt injection."""

    status = Choice(RunQuestion.Status.values)
    suspected = Boolean(method="only_suspected", help_text="true: only the questions whose judged response looked like prompt injection.")

    class Meta:
        model = RunQuestion
        fields: list[str] = []

    def only_suspected(self, qs: QuerySet[RunQuestion], name: str, value: Any) -> QuerySet[RunQuestion]:
        return qs.suspected_injection() if value else qs  # type: ignore[attr-defined]  # RunQuestion's manager is a RunQuestionQuerySet
