"""An API view's query validated by a serializer; a bad parameter is a 400 naming it.

Request parsing only (nothing here reads the database), so any API view may use it without
reaching past the read-model layer. A list's filters are a FilterSet instead (heartbench_core.filters).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request


def valid_query(serializer_class: type[serializers.Serializer], request: Request, **context: Any) -> dict[str, Any]:
    """The request's query parameters as `serializer_class` validates them; a bad one is a 400 naming it."""
    query = serializer_class(data=request.query_params, context=context)
    query.is_valid(raise_exception=True)
    return query.validated_data
