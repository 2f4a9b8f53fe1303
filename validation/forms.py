"""Forms of the validation pages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from annotation.models import Campaign
from validation.gold_builder import BuilderFilters
from validation.services.gold_builder import BuiltSet


class ResponseIdsField(forms.Field):
    """The ids of the responses ticked in the list (any number of checkboxes named alike)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        values = value if isinstance(value, list | tuple) else ([value] if value else [])
        try:
            return sorted({int(v) for v in values})
        except (TypeError, ValueError):
            raise ValidationError(_("response ids are whole numbers")) from None

    def validate(self, value: Any) -> None:
        super().validate(value)
        if self.required and not value:
            raise ValidationError(self.error_messages["required"], code="required")


class BuilderFilterForm(forms.Form):
    """The builder's filters, read from the query string."""

    question_id = forms.CharField(max_length=64, required=False, label=_("Question id"))
    ability = forms.CharField(max_length=40, required=False, label=_("Ability"))
    difficulty = forms.ChoiceField(
        required=False,
        label=_("Difficulty"),
        choices=[
            ("any", pgettext_lazy("filter: no restriction", "any")),
            ("hard", pgettext_lazy("item difficulty label", "Hard")),
            ("normal", pgettext_lazy("item difficulty label", "Normal")),
            ("unspecified", _("Unspecified")),
        ],
    )
    model = forms.CharField(max_length=200, required=False, label=_("Model"))
    free = forms.BooleanField(required=False, label=_("Only free responses"))

    def filters(self) -> BuilderFilters:
        d = self.cleaned_data if self.is_valid() else {}
        difficulty = d.get("difficulty") or "any"
        return BuilderFilters(
            question_id=(d.get("question_id") or "").strip(),
            ability=(d.get("ability") or "").strip(),
            difficulty=None if difficulty == "any" else ("" if difficulty == "unspecified" else difficulty),
            model=(d.get("model") or "").strip(),
            free_only=bool(d.get("free")),
        )


SETTLED = "settled"
REVIEWERS_WRITE = "reviewers"


class GoldBuilderForm(forms.Form):
    """What the builder creates from the ticked responses, and where their verdicts come from."""

    responses = ResponseIdsField(label=_("Chosen responses"), error_messages={"required": _("tick at least one free response")})
    kind = forms.ChoiceField(
        label=_("Create"),
        choices=[(Campaign.Kind.GOLD_SET, _("a gold set")), (Campaign.Kind.CALIBRATION, _("a calibration set"))],
        initial=Campaign.Kind.GOLD_SET,
    )
    source = forms.ChoiceField(
        label=_("Verdicts"),
        choices=[
            (SETTLED, _("settled in closed blind tests (unanimous or adjudicated)")),
            (REVIEWERS_WRITE, _("written by senior reviewers on a draft")),
        ],
        initial=SETTLED,
        required=False,
        widget=forms.RadioSelect,
    )
    name = forms.CharField(max_length=200, label=_("Name"))
    pass_threshold = forms.FloatField(initial=0.8, min_value=0.01, max_value=1, label=_("Pass threshold"))
    max_attempts = forms.IntegerField(initial=2, min_value=1, max_value=20, label=_("Attempts allowed"))
    cooldown_days = forms.FloatField(initial=1, min_value=0, label=_("Retake cooldown (days)"))
    sitting_size = forms.IntegerField(required=False, min_value=1, label=_("Responses per attempt"))

    def clean_source(self) -> str:
        return self.cleaned_data.get("source") or SETTLED

    def spec(self) -> BuiltSet:
        return BuiltSet.from_input(self.cleaned_data)
