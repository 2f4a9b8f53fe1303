"""The filters of the validation lists (heartbench_core.filters)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from annotation.models import Campaign
from heartbench_core.filters import Boolean, Choice, Integer, ListFilters, Text, described
from heartbench_core.models import Criterion, LanguageModel
from validation.gold_builder import BuilderFilters
from validation.models import Adjudication, AgreementReport, GoldenLabel

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


class DashboardFilters(ListFilters):
    """The agreement dashboard's switches: `part`, what an htmx poll asks for (`jobs` or `history`), and `models=all`, every
    model of the per-model tables instead of the first ones; any other value is the whole page with the first models."""

    part = Choice(["jobs", "history"], label=gettext_lazy("Show"))
    models = Choice(["all"], label=gettext_lazy("Models"))

    class Meta:
        model = AgreementReport
        fields: list[str] = []


class AlignmentFilters(ListFilters):
    """The blind test judge versions are compared with (`campaign`: its id; any other value is the newest) and two of
    them to compare (`before`, `after`: their keys; validation.alignment says, by parameter, why two cannot be)."""

    schema_types = {"campaign": int}

    campaign = Text(label=gettext_lazy("Blind test"), help_text="The blind test to compare with (default: the newest).")
    before = Text(
        label=pgettext_lazy("the judge version a change is from", "from"),
        help_text="Compare two judge versions: the one the change is from (a row's `key`).",
    )
    after = Text(
        label=pgettext_lazy("the judge version a change is to", "to"),
        help_text="… and the one it is to (a row's `key`); 400 naming the field when one is unknown.",
    )

    class Meta:
        model = Adjudication  # none: validation.alignment reads these values
        fields: list[str] = []


# --- the judgments' export: a time window and some models ----------------------------------------------------------

MAX_MODELS = 50
_OFFSET_SENT_AS_SPACE = re.compile(r" (\d{2}:?\d{2})$")


class _InstantField(forms.Field):
    """An ISO 8601 date-time (or a date: its midnight), in UTC when it names no offset; its error names the parameter."""

    def __init__(self, *, parameter: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parameter = parameter

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        text = str(value).strip()
        if "T" in text:  # "+08:00" sent unencoded in a query string arrives as " 08:00"
            text = _OFFSET_SENT_AS_SPACE.sub(r"+\1", text)
        try:
            moment = parse_datetime(text)
            if moment is None and (day := parse_date(text)) is not None:
                moment = datetime(day.year, day.month, day.day)
        except ValueError:
            moment = None
        if moment is None:
            message = _("%(name)s: not a date or an ISO 8601 date-time: %(value)s")
            raise forms.ValidationError(message % {"name": self.parameter, "value": str(value)[:40]}, code="invalid")
        return moment if timezone.is_aware(moment) else timezone.make_aware(moment, UTC)


class _NamesField(forms.Field):
    """Every value of a repeated parameter, stripped, the blank ones left out."""

    widget = forms.SelectMultiple  # reads a query's every value (a plain mapping: its one value)

    def to_python(self, value: Any) -> list[str]:
        values = value if isinstance(value, list | tuple) else [value]
        return [str(n).strip() for n in values if n and str(n).strip()]


class _Instant(django_filters.Filter):
    field_class = _InstantField


class _Names(django_filters.Filter):
    field_class = _NamesField


class _ExportForm(forms.Form):
    def clean_model(self) -> list[str]:
        names: list[str] = self.cleaned_data.get("model") or []
        if len(names) > MAX_MODELS:
            raise forms.ValidationError(_("at most %(count)d models at once") % {"count": MAX_MODELS})
        known = set(LanguageModel.objects.filter(name__in=names).values_list("name", flat=True)) if names else set()
        if unknown := [n for n in names if n not in known]:
            raise forms.ValidationError(_("no such model: %(name)s") % {"name": unknown[0][:100]})
        return list(dict.fromkeys(names))

    def clean(self) -> dict[str, Any]:
        since, until = self.cleaned_data.get("since"), self.cleaned_data.get("until")
        if since is not None and until is not None and until <= since:
            self.add_error("until", _("until must be later than since"))
        return self.cleaned_data


class ExportFilters(ListFilters):
    """The judgments' export narrowed to assignments submitted in [since, until) and to responses of some models
    (`validation.exports.judgment_filter`); each error names its parameter or value, all of them said as the 400."""

    schema_types = {"since": OpenApiTypes.DATETIME, "until": OpenApiTypes.DATETIME}

    since = _Instant(
        parameter="since",
        label=pgettext_lazy("start date of a filter", "From"),
        help_text="Only judgments of assignments submitted at or after this time (ISO 8601; a date means its midnight; "
        "no offset means UTC). An incremental export passes the time of the previous one.",
    )
    until = _Instant(
        parameter="until",
        label=pgettext_lazy("end date of a filter", "To"),
        help_text="Only judgments of assignments submitted before this time.",
    )
    model = _Names(label=gettext_lazy("Models"), help_text="Only responses of this model (by name; repeat for several).")

    class Meta:
        model = Adjudication  # none: the export reads these values (validation.exports.JudgmentFilter)
        fields: list[str] = []
        form = _ExportForm

    @property
    def problems(self) -> list[str]:
        """Each bad value's error, in the order of the parameters."""
        return [message for errors in self.form.errors.values() for message in errors]

    @classmethod
    def parameters(cls) -> list[OpenApiParameter]:
        since, until, model = super().parameters()  # the model's repeated
        return [since, until, OpenApiParameter("model", str, many=True, explode=True, description=model.description)]
