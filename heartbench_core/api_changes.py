"""What a change request (PATCH, PUT) may name: a field it cannot change is a 400 naming it, never silently dropped.

DRF's serializers drop keys they do not declare and ignore read-only ones, so `{"overlap": 4}`
sent to a running campaign would answer 200 with nothing changed. Every serializer that reads a
change request mixes `RefusesUnknownFields` in.
"""

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers


def unchangeable_field_errors(sent: Any, changeable: list[str]) -> dict[str, list[str]]:
    """One error per key of `sent` not in `changeable`, each naming what may change."""
    if not isinstance(sent, Mapping):
        return {}
    message = gettext("cannot be changed here (editable: %(fields)s)") % {"fields": ", ".join(changeable)}
    return {str(name): [message] for name in sorted(str(k) for k in sent) if name not in changeable}


class RefusesUnknownFields(serializers.Serializer):
    """A serializer that refuses (400, naming each) the keys it does not declare as writable."""

    def to_internal_value(self, data: Any) -> Any:
        writable = [name for name, field in self.fields.items() if not field.read_only]
        if errors := unchangeable_field_errors(data, writable):
            raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
