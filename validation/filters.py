"""The filters of the validation lists (heartbench_core.filters)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter

from annotation.models import Campaign
from heartbench_core.filters import Choice, Integer, ListFilters, described
from heartbench_core.models import Criterion
from validation.models import Adjudication, GoldenLabel

QUEUE_SHOW = ["needs_decision", "all"]


class GoldenLabelFilters(ListFilters):
    provenance = Choice(GoldenLabel.Provenance.values)

    class Meta:
        model = GoldenLabel
        fields: list[str] = []


class _QueueForm(forms.Form):
    campaign: Campaign

    def clean_criterion(self) -> int | None:
        value: int | None = self.cleaned_data.get("criterion")
        if value is not None and not Criterion.objects.filter(pk=value, item__version_id=self.campaign.version_id).exists():
            message = _("no criterion %(criterion)s in the version of campaign %(campaign)r")
            raise forms.ValidationError(message % {"criterion": value, "campaign": self.campaign.name})
        return value


class QueueFilters(ListFilters):
    """The adjudication queue: the units that need a decision (the default) or `all` compared ones, of one trigger,
    one criterion (its id; `adjudication_queue` checks it is of the campaign's version)."""

    show = Choice(QUEUE_SHOW)
    trigger = Choice(Adjudication.Trigger.values)
    criterion = Integer()

    class Meta:
        model = Adjudication
        fields: list[str] = []
        form = _QueueForm

    def __init__(self, data: Mapping[str, Any] | None, *, campaign: Campaign) -> None:
        super().__init__(data)
        self.campaign = campaign

    @property
    def form(self) -> forms.Form:
        form = super().form
        form.campaign = self.campaign  # a _QueueForm
        return form

    @property
    def shown(self) -> str:
        return str(self.values.get("show") or QUEUE_SHOW[0])

    @classmethod
    def parameters(cls) -> list[OpenApiParameter]:
        text = {"type": "string", "minLength": 1}
        return [
            described("criterion", {"type": "integer"}, "Only entries of this criterion (its id, as in `criterion_id`)."),
            described(
                "show",
                {"type": "string", "default": QUEUE_SHOW[0], "minLength": 1},
                "`needs_decision` (default): the units that need a decision; `all`: every compared unit.",
                [(v, v) for v in QUEUE_SHOW],
            ),
            described("trigger", text, "Only entries queued for this reason.", Adjudication.Trigger.choices),
        ]
