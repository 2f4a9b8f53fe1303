"""Forms of the campaign-management pages and the expert's own profile page."""

from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.core.files import File
from django.db.models import QuerySet
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from annotation.models import Campaign, ExpertProfile, QualityPolicy
from annotation.services.sampling import MAX_SEED
from annotation.services.split_extension import option_errors as split_extension_errors
from heartbench_core.lib.taxonomy import DIMENSIONS
from heartbench_core.models import Dataset, LanguageModel, User
from heartbench_core.roles import Role
from heartbench_core.taxonomy_display import dimension_display

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def _experts() -> QuerySet[User]:
    return User.objects.filter(is_active=True, groups__name=Role.EXPERT.value).distinct().order_by("username")


def _text(label: "StrOrPromise", *, rows: int, required: bool = False, **kwargs: Any) -> forms.CharField:
    """A text box of `rows` lines (optional unless `required`)."""
    return forms.CharField(required=required, widget=forms.Textarea(attrs={"rows": rows}), label=label, **kwargs)


# What the form and the API hand `create_campaign` as they are.
CAMPAIGN_AS_GIVEN: tuple[str, ...] = ("name", "sample_fraction", "overlap", "seed", "requires_qualification", "gold_rate")
CAMPAIGN_AS_GIVEN += ("qualification_per_dimension", "min_tier_for_hard", "piece_rate")
CAMPAIGN_AS_GIVEN += ("split_extension", "split_extension_budget", "split_extension_min_share")


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200, label=_("Name"))
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.order_by("name"), to_field_name="name", label=_("Dataset"))
    version = forms.CharField(max_length=64, required=False, label=_("Version"), help_text=_("Label; empty for the latest version."))
    models = forms.ModelMultipleChoiceField(queryset=LanguageModel.objects.order_by("name"), to_field_name="name", label=_("Models"))
    sample_fraction = forms.FloatField(
        initial=0.4, label=_("Sample fraction"), help_text=_("Share of items, in (0, 1]; stratified by difficulty and scene.")
    )
    overlap = forms.IntegerField(initial=3, min_value=1, max_value=20, label=_("Overlap k"))
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SEED,
        label=_("Seed"),
        help_text=_(
            "Empty: a random seed (the usual choice). Give one only to draw the same sample again: the sample is drawn from it "
            "with the server's sampling key, and it is never shown to the campaign's experts."
        ),
    )
    reservation_hours = forms.FloatField(initial=2.0, min_value=0.05, label=_("Reservation timeout (hours)"))
    experts = forms.ModelMultipleChoiceField(
        queryset=_experts(),
        to_field_name="username",
        required=False,
        label=_("Experts"),
        help_text=_("None selected: every active expert."),
    )
    requires_qualification = forms.BooleanField(initial=True, required=False, label=_("Only experts who passed calibration"))
    qualification_per_dimension = forms.BooleanField(required=False, label=_("Qualification per dimension of the rubric"))
    gold_source = forms.ModelChoiceField(
        queryset=Campaign.objects.filter(kind=Campaign.Kind.GOLD_SET).order_by("name"),
        required=False,
        label=_("Hidden gold checks from gold set"),
        help_text=_("A gold set of its own, disjoint from every calibration set."),
    )
    gold_rate = forms.FloatField(initial=0.0, min_value=0, max_value=0.9, label=_("Gold-check rate"))
    min_tier_for_hard = forms.IntegerField(initial=1, min_value=1, max_value=5, label=_("Tier needed for hard items"))
    piece_rate = forms.DecimalField(initial=Decimal("0"), min_value=0, max_digits=8, decimal_places=2, label=_("Piece rate"))
    split_extension = forms.BooleanField(
        required=False,
        label=_("Extra raters where the verdicts split"),
        help_text=_(
            "Off by default. A response whose k verdicts split by one vote on at least the share below of its criteria is "
            "offered to two more experts (k + 2), most split first, within the budget. Never decided by the judge's verdicts."
        ),
    )
    split_extension_budget = forms.IntegerField(
        required=False,
        initial=0,
        label=_("Extra raters: budget (extra assignments)"),
        help_text=_("Two per extended response; at least 2 when the option is on."),
    )
    split_extension_min_share = forms.FloatField(
        required=False,
        initial=0.5,
        label=_("Extra raters: share of split criteria"),
        help_text=_("In (0, 1]: the share of a response's criteria split by one vote (a tie when k is even) that extends it."),
    )

    def clean(self) -> dict[str, Any]:
        return _clean_split_extension(self, super().clean() or {})

    def service_kwargs(self) -> dict[str, Any]:
        d = self.cleaned_data
        names = {"models": [m.name for m in d["models"]], "experts": [u.username for u in d["experts"]]}
        timeout = timedelta(hours=d["reservation_hours"])
        return {**campaign_kwargs(d, dataset=d["dataset"].name, **names, timeout=timeout), "gold_source": d["gold_source"]}


def campaign_kwargs(d: Mapping[str, Any], *, dataset: str, models: list[str], experts: list[str], timeout: timedelta) -> dict[str, Any]:
    """What the page's form and the API hand `create_campaign` (each naming the dataset, models and experts its way)."""
    named = {"dataset_name": dataset, "version_label": d.get("version") or None, "model_names": models, "expert_usernames": experts or None}
    return {**{name: d[name] for name in CAMPAIGN_AS_GIVEN}, **named, "reservation_timeout": timeout}


def _clean_split_extension(form: forms.Form, d: dict[str, Any]) -> dict[str, Any]:
    """Empty budget and share read as their defaults; the service's rule checks them (one message per field)."""
    fields = ("split_extension_budget", "split_extension_min_share")
    if any(f in form.errors for f in fields):
        return d
    d["split_extension_budget"] = 0 if d.get("split_extension_budget") is None else d["split_extension_budget"]
    d["split_extension_min_share"] = 0.5 if d.get("split_extension_min_share") is None else d["split_extension_min_share"]
    for field, message in split_extension_errors(
        enabled=bool(d.get("split_extension")), budget=d["split_extension_budget"], min_share=d["split_extension_min_share"]
    ).items():
        form.add_error(field, message)
    return d


class SplitExtensionForm(forms.Form):
    """Extra raters where the verdicts split, changed on a running blind test (`services.split_extension`)."""

    split_extension = CampaignForm.base_fields["split_extension"]
    split_extension_budget = CampaignForm.base_fields["split_extension_budget"]
    split_extension_min_share = CampaignForm.base_fields["split_extension_min_share"]

    def clean(self) -> dict[str, Any]:
        return _clean_split_extension(self, super().clean() or {})


class GoldSetForm(forms.Form):
    """A set of gold-labelled responses read from a file: a gold set as it is, the base of a calibration set."""

    name = forms.CharField(max_length=200, label=_("Name"))
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.order_by("name"), to_field_name="name", label=_("Dataset"))
    version = forms.CharField(max_length=64, required=False, label=_("Version"), help_text=_("Label; empty for the latest version."))
    gold_file = forms.FileField(
        label=_("Gold file"),
        help_text=format_lazy(
            '{} <code translate="no">{{"question_id", "model", "labels": [{{"position", "hit", "explanation"}}]}}</code>',
            _("JSONL, one object per line:"),
        ),
    )

    def service_kwargs(self) -> dict[str, Any]:
        return gold_file_kwargs(self.cleaned_data, dataset=self.cleaned_data["dataset"].name, file=self.cleaned_data["gold_file"])


def gold_file_kwargs(d: Mapping[str, Any], *, dataset: str, file: File) -> dict[str, Any]:
    """What a gold set and a calibration set are made from alike, on the page or in the API: a name, the dataset's version, the file."""
    return {"name": d["name"], "dataset_name": dataset, "version_label": d.get("version") or None, "source": file, "file_name": file.name}


def calibration_kwargs(d: Mapping[str, Any], *, experts: list[str]) -> dict[str, Any]:
    """What a calibration set adds to its file, on the page or in the API."""
    given = {name: d.get(name) for name in ("pass_threshold", "max_attempts", "sitting_size")}
    return {**given, "retake_cooldown": timedelta(days=d["cooldown_days"]), "expert_usernames": experts or None}


class CalibrationForm(GoldSetForm):
    pass_threshold = forms.FloatField(initial=0.8, min_value=0.01, max_value=1, label=_("Pass threshold"))
    max_attempts = forms.IntegerField(initial=2, min_value=1, max_value=20, label=_("Attempts allowed"))
    cooldown_days = forms.FloatField(initial=1, min_value=0, label=_("Retake cooldown (days)"))
    sitting_size = forms.IntegerField(
        required=False,
        min_value=1,
        label=_("Responses per attempt"),
        help_text=_("Empty: the whole set. A retake draws responses not yet seen first."),
    )
    experts = forms.ModelMultipleChoiceField(queryset=_experts(), to_field_name="username", required=False, label=_("Experts"))

    def service_kwargs(self) -> dict[str, Any]:
        return {
            **super().service_kwargs(),
            **calibration_kwargs(self.cleaned_data, experts=[u.username for u in self.cleaned_data["experts"]]),
        }


class ProfileForm(forms.Form):
    degree = forms.CharField(max_length=200, required=False, label=_("Degree"))
    years_practice = forms.IntegerField(min_value=0, max_value=80, initial=0, label=_("Years of clinical practice"))
    credentials = forms.CharField(widget=forms.Textarea, required=False, label=_("Credentials"))
    specialties = forms.CharField(
        required=False,
        label=_("Specialties"),
        help_text=format_lazy(
            '{} <code translate="no">情绪理解</code>, <code translate="no">Emotional Understanding</code>',
            _("Comma-separated ability labels, dimensions or scenes, in Chinese or English, e.g."),
        ),
    )
    languages = forms.CharField(
        required=False,
        label=_("Languages"),
        help_text=format_lazy('{} <code translate="no">zh, en</code>', _("Comma-separated language codes, e.g.")),
    )
    capacity = forms.IntegerField(min_value=0, max_value=1000, label=_("Capacity"), help_text=_("Most open assignments at once."))
    availability = forms.ChoiceField(choices=ExpertProfile.Availability.choices, label=_("Availability"))
    availability_reason = _text(_("Availability reason"), rows=2)

    @staticmethod
    def initial_for(profile: ExpertProfile) -> dict[str, Any]:
        return {
            "degree": profile.degree,
            "years_practice": profile.years_practice,
            "credentials": profile.credentials,
            "specialties": ", ".join(profile.specialties),
            "languages": ", ".join(profile.languages),
            "capacity": profile.capacity,
            "availability": profile.availability,
            "availability_reason": profile.availability_reason,
        }

    def changes(self) -> dict[str, Any]:
        d = dict(self.cleaned_data)
        d["specialties"] = [s.strip() for s in d["specialties"].split(",") if s.strip()]
        d["languages"] = [s.strip() for s in d["languages"].split(",") if s.strip()]
        return d


class TierOverrideForm(forms.Form):
    tier = forms.IntegerField(min_value=1, max_value=5, required=False, label=_("Tier"), help_text=_("Empty: clear the override."))
    reason = _text(_("Reason"), rows=2, required=True)


class QualificationForm(forms.Form):
    dimension = forms.ChoiceField(
        choices=[("", _("General (every dimension)"))] + [(d, lazy(dimension_display, str)(d)) for d in DIMENSIONS],
        required=False,
        label=_("Dimension"),
    )
    reason = _text(_("Reason"), rows=2, required=True)


class AvailabilityForm(forms.Form):
    availability = forms.ChoiceField(
        choices=[(v, label) for v, label in ExpertProfile.Availability.choices if v in ("active", "away")], label=_("Availability")
    )
    reason = forms.CharField(required=False, max_length=500, label=_("Note (e.g. back on 3 March)"))


class CampaignSettingsForm(forms.Form):
    """What an admin may change while a campaign runs (`services.campaigns.update_campaign_settings`)."""

    rationale_min_chars = forms.IntegerField(min_value=0, max_value=2000, label=_("Rationale minimum (characters)"))
    deadline = forms.DateTimeField(
        required=False,
        label=_("Deadline"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Empty: no deadline. In the site's time zone."),
    )
    show_weights = forms.BooleanField(required=False, label=_("Show criterion weights to experts"))
    reservation_hours = forms.FloatField(min_value=0.05, max_value=24 * 30, label=_("Reservation timeout (hours)"))
    piece_rate = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, label=_("Piece rate"))
    certificate_name = forms.CharField(
        required=False,
        max_length=200,
        label=_("Certificate title"),
        help_text=_("Empty: “AI Evaluation Expert”."),
    )
    guidelines = _text(
        _("Guidelines (Markdown)"),
        rows=12,
        help_text=_("Experts read them on the judging page. Each change is a new revision; earlier ones are kept."),
    )
    change_note = forms.CharField(required=False, max_length=300, label=_("What changed in the guidelines"))
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    @staticmethod
    def initial_for(campaign: Campaign, guidelines: str, certificate_name: str) -> dict[str, Any]:
        return {
            "rationale_min_chars": campaign.rationale_min_chars,
            "deadline": campaign.deadline,
            "show_weights": campaign.show_weights,
            "reservation_hours": round(campaign.reservation_timeout.total_seconds() / 3600, 2),
            "piece_rate": campaign.piece_rate,
            "certificate_name": certificate_name,
            "guidelines": guidelines,
        }

    def changes(self) -> dict[str, Any]:
        d = self.cleaned_data
        kept = {name: value for name, value in d.items() if name not in ("reservation_hours", "confirm")}
        return {**kept, "reservation_timeout": timedelta(hours=d["reservation_hours"])}


class CampaignStatusForm(forms.Form):
    """A status change, confirmed; pausing or closing says why (the campaign's experts read it)."""

    status = forms.ChoiceField(choices=Campaign.Status.choices, label=_("New status"))
    reason = _text(_("Reason (experts read it)"), rows=3, max_length=2000)
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        d = super().clean() or {}
        if d.get("status") in (Campaign.Status.PAUSED, Campaign.Status.CLOSED) and not (d.get("reason") or "").strip():
            self.add_error("reason", _("Say why the campaign is paused or closed; its experts read it."))
        return d


class PayDecisionForm(forms.Form):
    """An admin's decision on an expert's work submitted while paused (quality policy "held for an admin's decision")."""

    pay = forms.TypedChoiceField(
        choices=[("yes", _("Pay the held work")), ("no", _("Do not pay it"))],
        coerce=lambda v: v == "yes",
        label=_("Decision"),
    )
    note = _text(_("Note"), rows=2, max_length=2000)


class PayPolicyForm(forms.Form):
    """How work submitted while paused is paid, and the written policy experts read."""

    paused_work_pay = forms.ChoiceField(choices=QualityPolicy.PausedWorkPay.choices, label=_("Work submitted while paused or away"))
    pay_policy_text = _text(
        _("Written pay and quality policy (Markdown)"), rows=8, max_length=20_000, help_text=_("Experts read it on their profile.")
    )
