"""Forms of the rubric pages: they parse input; the services decide what is valid."""

import uuid
from datetime import date
from typing import TypedDict

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.dateparse import parse_date
from django.utils.translation import gettext, gettext_lazy

from heartbench_core.lib.taxonomy import ABILITIES, CATASTROPHIC_LABEL
from heartbench_core.models import Dataset
from heartbench_core.taxonomy_display import ability_display
from rubrics.models import AuditEntry


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


def apply_errors(form: forms.Form, exc: ValidationError) -> None:
    """Attach a service's ValidationError to the form: known fields by name, the rest to the form."""
    if hasattr(exc, "error_dict"):
        for name, messages in exc.message_dict.items():
            target = name if name in form.fields and name != "base_revision" else None
            for message in messages:
                form.add_error(target, message)
    else:
        for message in exc.messages:
            form.add_error(None, message)


_KEY_PREFIX_CHARS = frozenset("0123456789abcdef-")


class AuditFilters(TypedDict):
    """The filters of `selectors.audit_entries`, as the audit log's query string gives them."""

    dataset: str | None
    item: str | None
    criterion: str | None
    person: str | None
    action: str | None
    since: date | None
    until: date | None


def audit_filters(params: QueryDict) -> AuditFilters:
    """The audit log's filters from a query string; a bad one is a ValidationError naming its parameter.

    The criterion is a lineage key (a UUID) or the start of one. A filter holding a NUL character
    never gets here: RefuseUnstorableTextMiddleware (heartbench_core.input_text) answers it with a 400 first.
    """
    criterion = (params.get("criterion") or "").strip().lower() or None
    if criterion is not None:
        try:
            criterion = str(uuid.UUID(criterion)) if len(criterion) >= 36 else criterion
        except ValueError:
            criterion = None
        if criterion is None or not set(criterion) <= _KEY_PREFIX_CHARS:
            raise ValidationError(
                {
                    "criterion": [
                        gettext("%(value)r is not a criterion key (a UUID) or the start of one.") % {"value": params.get("criterion")}
                    ]
                }
            )
    return {
        "dataset": params.get("dataset") or None,
        "item": (params.get("item") or "").strip() or None,
        "criterion": criterion,
        "person": (params.get("person") or "").strip() or None,
        "action": params.get("action") if params.get("action") in AuditEntry.Action.values else None,
        "since": parse_date(params.get("since") or "") if _is_date(params.get("since")) else None,
        "until": parse_date(params.get("until") or "") if _is_date(params.get("until")) else None,
    }


def _is_date(value: str | None) -> bool:
    if not value:
        return False
    try:
        return parse_date(value) is not None
    except ValueError:
        return False
