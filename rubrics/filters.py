"""The filters of the rubric lists, one FilterSet each, read by the page and the API alike (heartbench_core.filters)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter

from heartbench_core.filters import Choice, Date, ListFilters, Text, Uuid, described
from heartbench_core.models import Criterion, CriterionLineage, Dataset
from rubrics.forms import ability_choices
from rubrics.models import AuditEntry, CriterionRevision
from rubrics.selectors import WORK_KINDS, WORK_SORTS


class RevisionFilters(ListFilters):
    dataset = Text(field_name="dataset__name", label=_("Dataset"))
    question_id = Text(label=_("Question id"))
    key = Uuid(field_name="lineage_id", help_text="criterion lineage key", label=_("Criterion"))
    status = Choice(choices=CriterionRevision.Status.choices, label=_("Status"))

    class Meta:
        model = CriterionRevision
        fields: list[str] = []


_KEY_PREFIX_CHARS = frozenset("0123456789abcdef-")


class _KeyOrPrefixField(forms.CharField):
    """A criterion key (a UUID, in any case) or the start of one, lower-cased; anything else is the field's error."""

    def clean(self, value: Any) -> str:
        text = str(super().clean(value)).lower()
        key: str | None = text
        if text and len(text) >= 36:
            try:
                key = str(uuid.UUID(text))
            except ValueError:
                key = None
        if key is None or not set(key) <= _KEY_PREFIX_CHARS:
            message = gettext("%(value)r is not a criterion key (a UUID) or the start of one.") % {"value": value}
            raise ValidationError(message, code="invalid")
        return key


class _KeyOrPrefix(Text):
    field_class = _KeyOrPrefixField


class AuditFilters(ListFilters):
    """The audit log's: of one dataset, item (question id), criterion (its key or the start of one), person, action, days.

    NUL characters never get here: RefuseUnstorableTextMiddleware (heartbench_core.input_text) answers them with a 400."""

    dataset = Text(field_name="dataset__name", label=_("Dataset"))
    item = Text(field_name="question_id", label=_("Item"))
    criterion = _KeyOrPrefix(method="of_criterion", label=_("Criterion key"))
    person = Text(field_name="actor_name", label=_("Person"))
    action = Choice(choices=AuditEntry.Action.choices, label=_("Action"))
    since = Date(method="from_day", label=pgettext_lazy("start date of a filter", "From"))
    until = Date(method="to_day", label=pgettext_lazy("end date of a filter", "To"))

    class Meta:
        model = AuditEntry
        fields: list[str] = []

    def of_criterion(self, qs: QuerySet[AuditEntry], name: str, key: str) -> QuerySet[AuditEntry]:
        """Entries on the criterion of this key, or on any of the first 50 criteria whose key starts so."""
        keys = list(CriterionLineage.objects.filter(key__startswith=key).values_list("key", flat=True)[:50]) if len(key) < 36 else [key]
        return qs.filter(criterion_key__in=keys)

    def from_day(self, qs: QuerySet[AuditEntry], name: str, day: date) -> QuerySet[AuditEntry]:
        return qs.filter(created_at__gte=datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone()))

    def to_day(self, qs: QuerySet[AuditEntry], name: str, day: date) -> QuerySet[AuditEntry]:
        return qs.filter(created_at__lte=datetime.combine(day, time.max, tzinfo=timezone.get_current_timezone()))


class CriterionFilters(ListFilters):
    """The criteria of each dataset's latest version: of one dataset, one question."""

    dataset = Text(field_name="item__version__dataset__name", help_text="The dataset's name.", label=_("Dataset"))
    question_id = Text(field_name="item__question_id", help_text="Only this question (its id in the dataset).", label=_("Question id"))

    class Meta:
        model = Criterion
        fields: list[str] = []


_DESCRIPTIONS = {
    "ability": "Only entries whose criterion has this ability label (latest version).",
    "dataset": "The dataset's name.",
    "kind": "Only entries of this signal.",
    "question_id": "Only this question (its id in the dataset).",
    "sort": "`severity` (default): most severe first (see docs/rubrics.md); `item`: by item.",
}


# What the work list calls each kind of signal, and its orders (rubrics/index.html).
SIGNAL_NAMES = {
    "ambiguous": pgettext_lazy("work-list signal", "ambiguous (low agreement)"),
    "adjudicated": pgettext_lazy("work-list signal", "adjudicated as ambiguous"),
    "flag": pgettext_lazy("work-list reason", "flagged"),
    "unclear": pgettext_lazy("work-list reason", "reported unclear"),
    "stale": pgettext_lazy("work-list signal", "stale judgments"),
    "saturated": pgettext_lazy("work-list reason", "saturated"),
}
SORT_NAMES = {"severity": _("most severe first"), "item": _("by item")}


class WorkFilters(ListFilters):
    """The work list of one dataset (the API: required; the page: every dataset unless one is chosen), of one
    kind of signal (`kind`; the page's old links say `signal`), one question, one ability label, sorted by
    severity (the default) or by item. The datasets and ability labels it takes are those it is given."""

    aliases = {"signal": "kind"}

    dataset = Choice([], help_text=_DESCRIPTIONS["dataset"], label=_("Dataset"))
    question_id = Text(help_text=_DESCRIPTIONS["question_id"], label=_("Question id"))
    kind = Choice(choices=[(k, SIGNAL_NAMES[k]) for k in WORK_KINDS], help_text=_DESCRIPTIONS["kind"], label=_("Signal"))
    ability = Choice([], help_text=_DESCRIPTIONS["ability"], label=_("Ability"))
    sort = Choice(choices=[(k, SORT_NAMES[k]) for k in WORK_SORTS], help_text=_DESCRIPTIONS["sort"], label=_("Sort"))

    class Meta:
        model = Dataset
        fields: list[str] = []

    def __init__(self, data: Mapping[str, Any] | None = None, *, datasets: Sequence[Dataset] = ()) -> None:
        super().__init__(data)
        self.datasets = list(datasets)
        self.filters["dataset"].extra["choices"] = [(d.name, d.name) for d in self.datasets]
        self.ability_names = {label: name for d in self.datasets for label, name in ability_choices(d)}
        self.filters["ability"].extra["choices"] = list(self.ability_names.items())

    @property
    def chosen(self) -> list[Dataset]:
        """The datasets the list covers: the one asked for, else every one."""
        name = self.values.get("dataset")
        return [d for d in self.datasets if not name or d.name == name]

    @property
    def order(self) -> str:
        """The order asked for (`sort`), by severity when not."""
        return str(self.values.get("sort") or WORK_SORTS[0])

    @classmethod
    def parameters(cls) -> list[OpenApiParameter]:
        """The API's parameters: a required dataset, sorted by severity unless asked otherwise."""

        text = {"type": "string", "minLength": 1}
        return [
            described(name, text, _DESCRIPTIONS[name], required=name == "dataset") for name in ("ability", "dataset", "question_id")
        ] + [
            described("kind", text, _DESCRIPTIONS["kind"], [(k, k) for k in WORK_KINDS]),
            described(
                "sort", {"type": "string", "default": WORK_SORTS[0], "minLength": 1}, _DESCRIPTIONS["sort"], [(k, k) for k in WORK_SORTS]
            ),
        ]
