"""Forms of the rubric pages: they parse input; the services decide what is valid."""

from django import forms
from django.utils.translation import gettext_lazy

from heartbench_core.lib.taxonomy import ABILITIES, CATASTROPHIC_LABEL
from heartbench_core.models import Dataset
from heartbench_core.taxonomy_display import ability_display


def ability_choices(dataset: Dataset) -> list[tuple[str, str]]:
    """The labels a criterion may take, each as the reader sees it (`温暖`, or `温暖 · Warmth` in English)."""
    labels = [(a.label, ability_display(a.label)) for a in ABILITIES]
    labels.append((CATASTROPHIC_LABEL, ability_display(CATASTROPHIC_LABEL)))
    labels += [(label, label) for label in (dataset.extra_labels or [])]
    return labels


class CriterionForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "lang": "zh"}), required=False, strip=False)
    ability = forms.CharField(required=False)
    weight = forms.IntegerField(required=False, help_text=gettext_lazy("−10…10, not 0; empty only for 其他."))
    meaning_changed = forms.BooleanField(required=False, label=gettext_lazy("This changes the meaning"))
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False, label=gettext_lazy("Why"))
    base_revision = forms.IntegerField(required=False, widget=forms.HiddenInput)


class RetireForm(forms.Form):
    reason = forms.CharField(required=False)
    base_revision = forms.IntegerField(required=False)
