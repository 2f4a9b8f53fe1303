"""A list's filters: one django-filter FilterSet per list, read by its page and its API alike.

A FilterSet is declared beside the read model of its list (`<area>/filters.py`) and applied
*inside* it: views and API views only hand the read model `request.GET` / `query_params`. Each
filter has a translatable `label` and an enumerated one its values' labels: a page says a bad value
in the reader's language, naming the filter by its label and the values it takes by theirs
(`messages`; the list then ignores that filter), the API answers 400 naming the parameter and its
codes (`InvalidFilters`, mapped by heartbench_core.api_errors). The API's schema is the FilterSet's
`parameters()`: the name, type, enumeration and description of each filter.

Free-text filters (a dataset name, a question id) match nothing when nothing has that value; an
enumerated or UUID filter tells the caller they mistyped it instead of answering an empty list.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlencode

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.utils.translation import gettext, pgettext, pgettext_lazy
from django_filters.fields import ChoiceField
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

ModelT = TypeVar("ModelT", bound=Model)


class InvalidFilters(ValidationError):
    """A list's filter given a value it does not take: the API answers 400 with {parameter: [message]}."""


class _ChoiceField(ChoiceField):
    def validate(self, value: Any) -> None:
        if value and not self.valid_value(value):
            allowed = [str(key) for key, _ in self.choices if key]
            message = self.error_messages.get("not_one_of") or gettext("%(value)r is not one of: %(choices)s.")
            message = message % {"value": value, "choices": ", ".join(allowed)}
            raise ValidationError(message, code="invalid_choice")


def _invalid_choice(value: Any, choices: Iterable[tuple[Any, Any]]) -> str:
    """A value a filter does not take, as a person reads it: the labels of the values it takes, in their language."""
    labels = pgettext("between the entries of a list", ", ").join(str(label) for key, label in choices if key not in ("", None))
    if not labels:
        return gettext("invalid value “%(value)s”.") % {"value": value}
    return gettext("invalid value “%(value)s”; choose one of: %(choices)s.") % {"value": value, "choices": labels}


class _UUIDField(forms.UUIDField):
    def to_python(self, value: Any) -> uuid.UUID | None:  # type: ignore[override]  # a UUID, as forms.UUIDField gives it
        if value in self.empty_values:
            return None
        try:
            return uuid.UUID(str(value))
        except ValueError:
            raise ValidationError(gettext("%(value)r is not a UUID.") % {"value": value}, code="invalid") from None


class _BooleanField(forms.Field):
    """True or false as the API has always taken it (true/false, 1/0, yes/no, on/off); anything else is an error."""

    TRUE, FALSE = {"true", "1", "yes", "on"}, {"false", "0", "no", "off"}
    choices = (("true", pgettext_lazy("a yes/no value", "yes")), ("false", pgettext_lazy("a yes/no value", "no")))

    def to_python(self, value: Any) -> bool | None:
        if value in self.empty_values:
            return None
        text = str(value).strip().lower()
        if text in self.TRUE | self.FALSE:
            return text in self.TRUE
        message = gettext("%(value)r is not one of: %(choices)s.") % {"value": value, "choices": "true, false"}
        raise ValidationError(message, code="invalid_choice")


class Boolean(django_filters.BooleanFilter):
    field_class = _BooleanField


class Choice(django_filters.ChoiceFilter):
    """One of a fixed set of values (`choices`, with the labels a page names them by; `values`: their own labels; an empty
    value is no filter), anything else is the field's error."""

    field_class = _ChoiceField

    def __init__(self, values: Iterable[str] = (), *, choices: Iterable[tuple[str, Any]] = (), **kwargs: Any) -> None:
        given = list(choices) or [(v, getattr(v, "label", v)) for v in values]
        super().__init__(choices=[(key, label) for key, label in given if key], **kwargs)


class Uuid(django_filters.UUIDFilter):
    field_class = _UUIDField


class Text(django_filters.CharFilter):
    """A free-text value matched exactly (nothing found when nothing has it)."""


class Date(django_filters.DateFilter):
    """A day, written YYYY-MM-DD."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(input_formats=["%Y-%m-%d"], **kwargs)


class Integer(django_filters.NumberFilter):
    """A whole number (`min_value`, `max_value` bound it)."""

    field_class = forms.IntegerField


_TYPES: dict[type[django_filters.Filter], OpenApiTypes] = {
    Uuid: OpenApiTypes.UUID,
    django_filters.NumberFilter: OpenApiTypes.INT,
    django_filters.BooleanFilter: OpenApiTypes.BOOL,
    django_filters.DateFilter: OpenApiTypes.DATE,
}


class ListFilters(django_filters.FilterSet):
    """A list's filters. `narrow(qs)` applies them; bad values are `errors` (a page) or an `InvalidFilters` (`check()`, the API)."""

    # Filters the schema lists with another type than a string (the name → its type).
    schema_types: ClassVar[Mapping[str, Any]] = {}
    # Older names a filter is still asked by (a page's old links: the alias → the filter); its error then names the alias.
    aliases: ClassVar[Mapping[str, str]] = {}

    def __init__(self, data: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        data = data if data is not None else {}
        self.asked_as = {name: alias for alias, name in self.aliases.items() if data.get(alias) and not data.get(name)}
        if self.asked_as:
            data = {**{k: data.get(k) for k in data}, **{name: data.get(alias) for name, alias in self.asked_as.items()}}
        super().__init__(data, **kwargs)

    @property
    def values(self) -> dict[str, Any]:
        """The valid filters given a value (a bad one is left out: the page shows its error)."""
        self.form.is_valid()
        cleaned = getattr(self.form, "cleaned_data", {})
        return {name: value for name, value in cleaned.items() if value not in (None, "")}

    def check(self) -> ListFilters:
        """Itself when every value is valid, else an `InvalidFilters` naming each parameter: the API's 400."""
        if not self.form.is_valid():
            raise InvalidFilters({self.asked_as.get(name, name): list(errors) for name, errors in self.form.errors.items()})
        return self

    def narrow(self, qs: QuerySet[ModelT]) -> QuerySet[ModelT]:
        """`qs` filtered by every valid value given."""
        for name, value in self.values.items():
            qs = self.filters[name].filter(qs, value)
        return qs

    @property
    def query(self) -> str:
        """The filters as a page's links keep them, url-encoded (the valid ones given)."""
        return urlencode({self.asked_as.get(name, name): self.data.get(name) for name in self.values})

    @property
    def messages(self) -> list[str]:
        """Each bad value's error as a person reads it, naming its filter by its label (a value it does not take:
        the labels of those it does): what a page says above its list, in the reader's language."""
        said = []
        for name, errors in self.form.errors.as_data().items():
            field = self.form.fields[name]
            label = field.label or self.asked_as.get(name, name)
            for error in errors:
                choices = getattr(field, "choices", None)
                if error.code == "invalid_choice" and choices is not None:
                    message = _invalid_choice(self.form.data.get(name), choices)
                else:
                    message = " ".join(error.messages)
                said.append(gettext("%(label)s: %(message)s") % {"label": label, "message": message})
        return said

    @classmethod
    def parameters(cls) -> list[OpenApiParameter]:
        """The filters as the API's schema lists them: name, type, enumeration and description (`help_text`)."""
        found = []
        for name, f in cls.base_filters.items():
            kind = cls.schema_types.get(name) or next((t for c, t in _TYPES.items() if isinstance(f, c)), str)
            enum = [key for key, _ in f.extra["choices"]] if isinstance(f, django_filters.ChoiceFilter) else None
            found.append(OpenApiParameter(name, kind, enum=enum, description=f.extra.get("help_text") or ""))
        return found


def described(
    name: str, schema: Mapping[str, Any], description: str = "", choices: Sequence[tuple[str, Any]] = (), *, required: bool = False
) -> OpenApiParameter:
    """A parameter as the schema described it when a query serializer took it: `schema` as given, an enumeration's
    values listed under the description (for a list that moved to a FilterSet and keeps its schema)."""
    if choices:
        schema = {"enum": [value for value, _ in choices], **schema}
        description += "\n\n" + "\n".join(f"* `{value}` - {label}" for value, label in choices)
    return OpenApiParameter(name, dict(schema), description=description, required=required)
