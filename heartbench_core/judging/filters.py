"""The filters of the judging lists (imported judge runs, endpoint runs, a run's questions), one FilterSet each (heartbench_core.filters)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from heartbench_core.filters import Boolean, Choice, ListFilters, Text
from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.models import JudgeRun


class JudgeRunFilters(ListFilters):
    dataset = Text(field_name="version__dataset__name", label=_("Dataset"))
    version = Text(field_name="version__label", label=_("Version"))
    model = Text(field_name="model__name", label=_("Model"))
    judge = Text(label=_("Judge"))
    run = Text(field_name="label", label=_("Run"))

    class Meta:
        model = JudgeRun
        fields: list[str] = []


class EndpointRunFilters(ListFilters):
    kind = Text(label=_("Kind"))
    status = Text(label=_("Status"))
    dataset = Text(field_name="version__dataset__name", label=_("Dataset"))
    model = Text(field_name="model__name", label=_("Model"))
    endpoint = Text(field_name="endpoint__name", label=_("Endpoint"))

    class Meta:
        model = EndpointRun
        fields: list[str] = []


class RunQuestionFilters(ListFilters):
    """An endpoint run's questions: of one status, or only those that looked like prompt injection."""

    status = Choice(choices=RunQuestion.Status.choices, label=_("Status"))
    suspected = Boolean(
        method="only_suspected",
        help_text="true: only the questions whose judged response looked like prompt injection.",
        label=_("Only suspected prompt injection"),
    )

    class Meta:
        model = RunQuestion
        fields: list[str] = []

    def only_suspected(self, qs: QuerySet[RunQuestion], name: str, value: Any) -> QuerySet[RunQuestion]:
        return qs.suspected_injection() if value else qs  # type: ignore[attr-defined]  # RunQuestion's manager is a RunQuestionQuerySet
