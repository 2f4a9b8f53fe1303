"""Forms of the library's pages: they parse input; the services decide what is valid."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from annotation.knowledge.models import Case
from annotation.knowledge.services.knowledge import CaseContent, FaqContent
from heartbench_core.lib.taxonomy import ABILITIES, CATASTROPHIC_LABEL
from heartbench_core.models import Criterion, Dataset, DatasetVersion
from heartbench_core.taxonomy_display import ability_display

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# A criterion named as the rubric shows it: question id, "#", its number (from 1), e.g. 03UFRn#5.
_REFERENCE = re.compile(r"^(?P<qid>[^\s#]+)#(?P<number>\d{1,3})$")


def ability_choices(dataset: Dataset) -> list[tuple[str, str]]:
    """The ability labels an entry may name, as the reader sees them (`温暖`, or `温暖 · Warmth` in English)."""
    labels = [(a.label, ability_display(a.label)) for a in ABILITIES]
    labels.append((CATASTROPHIC_LABEL, ability_display(CATASTROPHIC_LABEL)))
    return labels + [(label, label) for label in (dataset.extra_labels or [])]


def criterion_keys(raw: str, dataset: Dataset) -> list[str]:
    """Lineage keys from lines of keys or `QID#N` references (resolved in the dataset's latest version); bad lines raise."""
    keys: list[str] = []
    errors: list[str] = []
    latest: DatasetVersion | None = None
    for line in re.split(r"[\n,，]+", raw or ""):
        ref = line.strip()
        if not ref:
            continue
        found = _REFERENCE.match(ref)
        if found is None:
            try:
                keys.append(str(uuid.UUID(ref)))
            except ValueError:
                errors.append(_("%(ref)r is neither a criterion key nor a reference like 03UFRn#5.") % {"ref": ref})
            continue
        latest = latest or dataset.versions.order_by("-number").first()
        criterion = (
            Criterion.objects.filter(item__version=latest, item__question_id=found["qid"], position=int(found["number"]) - 1).first()
            if latest
            else None
        )
        if criterion is None:
            errors.append(_("No criterion %(ref)s in the latest version of %(dataset)s.") % {"ref": ref, "dataset": dataset.name})
        else:
            keys.append(str(criterion.lineage_id))
    if errors:
        raise ValidationError(errors)
    return keys


class FaqForm(forms.Form):
    question = forms.CharField(label=gettext_lazy("Question"), max_length=300, required=False)
    answer = forms.CharField(
        label=gettext_lazy("Answer"),
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        help_text=gettext_lazy("Markdown. Experts read it: name no model, rater or running campaign."),
    )
    tags = forms.CharField(label=gettext_lazy("Tags"), required=False, help_text=gettext_lazy("Separated by commas."))
    abilities = forms.MultipleChoiceField(label=gettext_lazy("Abilities"), required=False, widget=forms.CheckboxSelectMultiple)
    criteria = forms.CharField(
        label=pgettext_lazy("the rubric's criteria an entry is about", "Criteria"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text=gettext_lazy("One per line: a criterion key, or the question id and the criterion's number, like 03UFRn#5."),
    )

    def __init__(self, *args: object, dataset: Dataset, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.dataset = dataset
        self.fields["abilities"].choices = ability_choices(dataset)  # type: ignore[attr-defined]

    def content(self) -> FaqContent:
        """The entry as written (call after is_valid); a bad criterion reference is added to the form's errors on `criteria`."""
        data = self.cleaned_data
        try:
            keys = criterion_keys(data.get("criteria", ""), self.dataset)
        except ValidationError as exc:
            for message in exc.messages:
                self.add_error("criteria", message)
            keys = []
        return FaqContent(question=data["question"], answer=data["answer"], tags=data["tags"], abilities=data["abilities"], criteria=keys)


class FaqReviewForm(forms.Form):
    decision = forms.ChoiceField(choices=[("publish", "publish"), ("return", "return")])
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))


def hit_choices() -> list[tuple[str, StrOrPromise]]:
    return [("hit", pgettext_lazy("verdict", "Hit")), ("miss", pgettext_lazy("verdict", "Miss"))]


def _causes() -> list[tuple[str, StrOrPromise]]:
    return list(Case.Cause.choices)


class CaseForm(forms.Form):
    title = forms.CharField(label=gettext_lazy("Title"), max_length=200, required=False)
    excerpt = forms.CharField(
        label=gettext_lazy("Excerpt of the response"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text=gettext_lazy("A short excerpt (at most 600 characters), or an invented response that makes the same point."),
    )
    invented = forms.BooleanField(
        label=gettext_lazy("The excerpt is rewritten on an invented response"),
        required=False,
        help_text=gettext_lazy(
            "Experts then read the case while its campaign still runs; it may share no run of 12 characters with the real one."
        ),
    )
    hit = forms.ChoiceField(label=gettext_lazy("Decision"), choices=hit_choices, required=False, widget=forms.RadioSelect)
    reasoning = forms.CharField(
        label=gettext_lazy("Reasoning"),
        widget=forms.Textarea(attrs={"rows": 6}),
        required=False,
        help_text=gettext_lazy("Markdown, in words an expert can apply. Name no model, rater or judge."),
    )
    cause = forms.ChoiceField(label=gettext_lazy("Cause"), choices=_causes, required=False, initial=Case.Cause.OTHER)
    tags = forms.CharField(label=gettext_lazy("Tags"), required=False, help_text=gettext_lazy("Separated by commas."))
    publish = forms.BooleanField(label=gettext_lazy("Publish now"), required=False)

    def content(self) -> CaseContent:
        data = self.cleaned_data
        hit = {"hit": True, "miss": False}.get(data.get("hit") or "")
        return CaseContent(
            title=data["title"],
            excerpt=data["excerpt"],
            hit=hit,
            reasoning=data["reasoning"],
            cause=data.get("cause") or Case.Cause.OTHER,
            tags=data["tags"],
            invented=data["invented"],
        )


class GuidelinesForm(forms.Form):
    body = forms.CharField(label=gettext_lazy("Guidelines (Markdown)"), widget=forms.Textarea(attrs={"rows": 14}), required=False)
    change_note = forms.CharField(label=gettext_lazy("What changed"), max_length=300, required=False)
