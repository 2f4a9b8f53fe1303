"""Forms of the validation pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from annotation.models import Campaign
from heartbench_core.models import DatasetVersion
from validation.services.gold_builder import BuiltSet

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


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


def _number_list(text: str, kind: type, low: float, high: float, message: StrOrPromise) -> tuple:
    try:
        values = tuple(sorted({kind(v) for v in text.replace("，", ",").split(",") if v.strip()}))
    except ValueError:
        raise ValidationError(message) from None
    if not values or any(not low <= v <= high for v in values):
        raise ValidationError(message)
    return values


class PlannerForm(forms.Form):
    """The blind-test planner's question: a version, how many models, a pilot (or assumptions), the grid and the targets."""

    version: forms.ModelChoiceField = forms.ModelChoiceField(
        queryset=DatasetVersion.objects.none(), label=_("Dataset version"), empty_label=None
    )
    models = forms.IntegerField(min_value=1, max_value=5000, initial=14, label=_("Models in the blind test"))
    pilot: forms.ModelChoiceField = forms.ModelChoiceField(
        queryset=Campaign.objects.none(),  # set per viewer
        required=False,
        label=_("Pilot"),
        empty_label=_("None: use the assumptions below"),
        help_text=_("An earlier blind test on the same dataset: its items, experts and timings are simulated."),
    )
    shares = forms.CharField(initial="0.1, 0.2, 0.3, 0.4, 0.5", label=_("Shares of items"), help_text=_("Comma-separated, each in (0, 1]."))
    raters = forms.CharField(initial="3, 5", label=_("Raters per response"), help_text=_("Comma-separated whole numbers."))
    pool = forms.IntegerField(min_value=2, max_value=10000, required=False, label=_("Experts available"))
    piece_rate = forms.DecimalField(
        min_value=0, max_digits=8, decimal_places=2, initial=0, required=False, label=_("Piece rate (¥ per response)")
    )
    target_agreement = forms.FloatField(
        min_value=0.01, max_value=50, required=False, label=_("Wanted ± on the agreement (points)"), help_text=_("1.5 means ±1.5 points.")
    )
    target_difference = forms.FloatField(
        min_value=0.01, max_value=100, required=False, label=_("Wanted ± on a model difference (score points)")
    )
    extension = forms.BooleanField(required=False, label=_("Also plan extra raters where the verdicts split"))
    extension_min_share = forms.FloatField(
        min_value=0.01,
        max_value=1,
        initial=0.5,
        required=False,
        label=_("Share of a response's criteria split by one vote that extends it"),
    )
    extension_budget_share = forms.FloatField(
        min_value=0.01, max_value=1, initial=0.1, required=False, label=_("Most responses extended (a share of the responses)")
    )
    judge_agreement = forms.FloatField(min_value=0.5, max_value=1, initial=0.87, label=_("Assumed agreement of the judge"))
    leniency_sd = forms.FloatField(min_value=0, max_value=5, initial=0.5, label=_("Assumed spread of experts' leniency (log-odds)"))
    seconds_per_criterion = forms.FloatField(min_value=1, max_value=3600, initial=20, label=_("Assumed seconds per criterion"))

    def __init__(self, *args: Any, versions: Any, pilots: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["version"].queryset = versions  # type: ignore[attr-defined]
        self.fields["pilot"].queryset = pilots  # type: ignore[attr-defined]
        self.fields["version"].label_from_instance = lambda v: f"{v.dataset.name} {v.label}"  # type: ignore[attr-defined]

    def clean_shares(self) -> tuple[float, ...]:
        return _number_list(self.cleaned_data["shares"], float, 1e-9, 1, _("Give shares between 0 and 1, separated by commas."))

    def clean_raters(self) -> tuple[int, ...]:
        return _number_list(self.cleaned_data["raters"], int, 1, 20, _("Give whole numbers of raters from 1 to 20, separated by commas."))
