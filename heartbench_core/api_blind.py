"""The API's side of blindness: a viewset of rows tied to model responses, blind in one place.

A subclass takes its rows from a read model (`get_queryset`); this mixin applies the requester's
`Viewer` to them: a list leaves out whole datasets the requester judges blind (never a hole
response by response), a detail of such a row is refused with the reason, and every row served is
recorded as shown to the requester, so it is never served to them blind later.
"""

from __future__ import annotations

import builtins
from typing import Any, ClassVar, Generic, TypeVar

from django.db.models import Model, QuerySet
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.viewsets import GenericViewSet

from heartbench_core.read_models import Viewer

RowT = TypeVar("RowT", bound=Model)


def _value(row: Model, path: str) -> Any:
    value: Any = row
    for part in path.split("__"):
        value = getattr(value, part)
    return value


class ShowsResponses(GenericViewSet, Generic[RowT]):
    """Mixin for a (read-only) viewset whose rows show a response with its model, the judge, other raters or gold."""

    response_path: ClassVar[str] = "pk"  # from a row to its ModelResponse id ("campaign_response__response_id")
    exposure_via: ClassVar[str] = "api"

    def blind(self, qs: QuerySet[RowT]) -> QuerySet[RowT]:
        return Viewer.of(self.request).visible_responses(qs, self.response_path)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.blind(self.filter_queryset(self.get_queryset()))
        page = self.paginate_queryset(queryset)
        shown = page if page is not None else builtins.list(queryset)
        data = self.get_serializer(shown, many=True).data
        Viewer.of(request).shown([_value(r, self.response_path) for r in shown], via=f"{self.exposure_via}-list")
        return self.get_paginated_response(data) if page is not None else Response(data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        instance = self.get_object()
        response_id = _value(instance, self.response_path)
        viewer = Viewer.of(request)
        viewer.refuse_response(response_id)
        viewer.shown([response_id], via=self.exposure_via)
        return Response(self.get_serializer(instance).data)
