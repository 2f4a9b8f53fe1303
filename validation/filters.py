"""The filters of the validation lists (heartbench_core.filters)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from drf_spectacular.utils import OpenApiParameter

from annotation.models import Campaign
from heartbench_core.filters import Boolean, Choice, Integer, ListFilters, Text, described
from heartbench_core.models import Criterion
from validation.gold_builder import BuilderFilters
from validation.models import Adjudication, GoldenLabel

QUEUE_SHOW = ["needs_decision", "all"]
# What the queue's page calls each (validation/queue.html).
QUEUE_SHOWN = [("needs_decision", gettext_lazy("units that need a decision")), ("all", gettext_lazy("all compared units"))]


class GoldenLabelFilters(ListFilters):
    provenance = Choice(choices=GoldenLabel.Provenance.choices, label=pgettext_lazy("a list filter", "Provenance"))

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

    show = Choice(choices=QUEUE_SHOWN, label=gettext_lazy("Show"))
    trigger = Choice(choices=Adjudication.Trigger.choices, label=gettext_lazy("Why queued"))
    criterion = Integer(label=gettext_lazy("Criterion"))

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


DIFFICULTIES = [
    ("any", pgettext_lazy("filter: no restriction", "any")),
    ("hard", pgettext_lazy("item difficulty label", "Hard")),
    ("normal", pgettext_lazy("item difficulty label", "Normal")),
    ("unspecified", gettext_lazy("Unspecified")),
]


class CandidateFilters(ListFilters):
    """The gold-set builder's candidates (the version and the page are asked for beside them)."""

    question_id = Text(label=gettext_lazy("Question id"))
    ability = Text(label=gettext_lazy("Ability"))
    difficulty = Choice(choices=DIFFICULTIES, label=gettext_lazy("Difficulty"), empty_label=None)
    model = Text(label=gettext_lazy("Model"))
    free = Boolean(label=gettext_lazy("Only free responses"))

    class Meta:
        model = Adjudication  # none: the candidates are read by validation.gold_builder from these values
        fields: list[str] = []

    def builder_filters(self) -> BuilderFilters:
        """The valid values given, as the builder's list takes them."""
        wanted = self.values
        difficulty = wanted.get("difficulty") or "any"
        return BuilderFilters(
            question_id=(wanted.get("question_id") or "").strip(),
            ability=(wanted.get("ability") or "").strip(),
            difficulty=None if difficulty == "any" else ("" if difficulty == "unspecified" else difficulty),
            model=(wanted.get("model") or "").strip(),
            free_only=bool(wanted.get("free")),
        )

    @classmethod
    def parameters(cls) -> list[OpenApiParameter]:
        text = {"type": "string", "default": ""}
        shown = [("hard", "hard"), ("normal", "normal"), ("unspecified", "unspecified")]
        return [
            described("ability", text, "Items with a criterion of this ability."),
            described(
                "difficulty",
                {"enum": [*(v for v, _ in shown), None], "type": "string", "nullable": True, "minLength": 1},
                "Any when absent.",
                shown,
            ),
            described("free", {"type": "boolean", "default": False}, "Only responses no gold or calibration set holds."),
            described("model", text),
            described("question_id", text),
        ]
