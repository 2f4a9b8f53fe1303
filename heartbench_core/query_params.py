"""The API's query parameters: enumerated and UUID filters, and a query validated by a serializer; a bad one is a 400 naming it.

Request parsing only (nothing here reads the database), so any API view may use it without
reaching past the read-model layer.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request


def choice_param(request: Request, name: str, choices: Iterable[str]) -> str | None:
    """A query parameter that must be one of `choices` (None when absent or empty); anything else is a 400 naming it.

    For the enumerated filters of plain list views; free-text filters (a name, a question id)
    simply match nothing when nothing has that value.
    """
    value = request.query_params.get(name)
    if not value:
        return None
    allowed = [c for c in choices if c]
    if value not in allowed:
        raise serializers.ValidationError(
            {name: [_("%(value)r is not one of: %(choices)s.") % {"value": value, "choices": ", ".join(allowed)}]}
        )
    return value


def uuid_param(request: Request, name: str) -> uuid.UUID | None:
    """A query parameter that must be a UUID (None when absent or empty); anything else is a 400 naming it."""
    value = request.query_params.get(name)
    if not value:
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        raise serializers.ValidationError({name: [_("%(value)r is not a UUID.") % {"value": value}]}) from None


def enum_param(name: str, choices: Iterable[str], description: str = "") -> OpenApiParameter:
    """The schema of a `choice_param` filter."""
    return OpenApiParameter(name, str, enum=[c for c in choices if c], description=description)


def valid_query(serializer_class: type[serializers.Serializer], request: Request, **context: Any) -> dict[str, Any]:
    """The request's query parameters as `serializer_class` validates them; a bad one is a 400 naming it."""
    query = serializer_class(data=request.query_params, context=context)
    query.is_valid(raise_exception=True)
    return query.validated_data
