"""The pieces of the API every app shares: file imports, computed lists, pages with totals and keyset pages, lists that record
what they show, a validated request body.

Each concern's own API lives with it: `heartbench_core.datasets.api` (datasets, versions, items,
models, responses and their imports), `heartbench_core.judging.api`, `heartbench_core.people.api`,
`heartbench_core.leaderboard.api`.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from heartbench_core.api_parsers import CheckedMultiPartParser
from heartbench_core.models import User
from heartbench_core.paging import keyset_of
from heartbench_core.roles import Role, role_permission

IsAdmin = role_permission(Role.ADMIN)

OutcomeT = TypeVar("OutcomeT")


class FileImportView(APIView, Generic[OutcomeT]):
    """An upload that a service imports, with the same rules and errors as the matching command.

    A subclass names `input_serializer` (the multipart form), `run(data, user)` (the service
    call) and `respond(outcome)`; it declares its schema with
    `extend_schema_view(post=extend_schema(request=..., responses=...))`. A bad form is DRF's
    400; the service's ValidationError is the API's 400 naming file, line and field
    (`heartbench_core.api_errors`), and the service has written nothing.
    """

    permission_classes = [IsAdmin]
    parser_classes = [CheckedMultiPartParser]
    input_serializer: type[serializers.Serializer]

    def post(self, request: Request) -> Response:
        form = self.input_serializer(data=request.data)
        form.is_valid(raise_exception=True)
        user = request.user
        if not user.is_authenticated:  # the permission classes already refuse anonymous users; this narrows the type
            raise NotAuthenticated()
        return self.respond(self.run(form.validated_data, user))

    def run(self, data: dict[str, Any], user: User) -> OutcomeT:
        raise NotImplementedError

    def respond(self, outcome: OutcomeT) -> Response:
        raise NotImplementedError


class PageWithTotals(PageNumberPagination):
    """The default pages, plus integer totals over the whole list; subclasses name them in `totals`."""

    totals: dict[str, str] = {}  # name -> description, for the schema

    def get_paginated_response_schema(self, schema: dict) -> dict:
        paged = super().get_paginated_response_schema(schema)
        properties = dict(paged["properties"])
        results = properties.pop("results")
        for name, description in self.totals.items():
            properties[name] = {"type": "integer", "description": description}
        return {**paged, "required": [*paged["required"], *self.totals], "properties": {**properties, "results": results}}


class ComputedListView(GenericAPIView):
    """A read-only list computed in Python (not a queryset), served in the project's default pages.

    A subclass sets `serializer_class` to the serializer of one row and answers
    `self.paginated(rows)` from `get`, after validating its filters with `valid_query`.
    """

    filter_backends: list = []  # DRF's filter backends work on querysets; these lists filter themselves

    def paginated(self, rows: Sequence[Any], *, totals: dict[str, int] | None = None) -> Response:
        """One page of `rows`; `totals` (over every row, not only this page) go next to `count`."""
        page = self.paginate_queryset(rows)  # type: ignore[arg-type]  # DRF's paginators page any sequence; the stubs accept only querysets
        response = self.get_paginated_response(self.get_serializer(page, many=True).data)
        if totals:
            results = response.data.pop("results")
            response.data.update(totals)
            response.data["results"] = results
        return response


class OutcomeFields:
    # The fields named in `outcome_fields` are read from the outcome in the context (`outcome`): the instance has no such attributes.
    outcome_fields: tuple[str, ...] = ()

    def to_representation(self, instance: Any) -> dict[str, Any]:
        outcome = self.context["outcome"]  # type: ignore[attr-defined]
        return {**super().to_representation(instance), **{name: getattr(outcome, name) for name in self.outcome_fields}}  # type: ignore[misc]


class ChangedItemSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    fields = serializers.ListField(child=serializers.CharField(), help_text="What changed: item fields, and `rubric`.")  # type: ignore[assignment]  # the key is "fields"; the metaclass takes it out of the class


class ChangedCriterionSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    position = serializers.IntegerField(help_text="Its position in the item, in the version that has it.")
    ability = serializers.CharField()
    text = serializers.CharField()


class _MovedCriterionSerializer(serializers.Serializer):
    # A criterion of both versions (its position in each), and what changed (`before`, `after`) in a subclass.
    question_id = serializers.CharField()
    old_position = serializers.IntegerField()
    position = serializers.IntegerField()


class RewordedCriterionSerializer(_MovedCriterionSerializer):
    before = serializers.CharField(help_text="The older text.")
    after = serializers.CharField(help_text="The newer text.")


class ReweightedCriterionSerializer(_MovedCriterionSerializer):
    before = serializers.IntegerField(allow_null=True, help_text="The older weight.")
    after = serializers.IntegerField(allow_null=True, help_text="The newer weight.")
    text = serializers.CharField()


class RelabelledCriterionSerializer(_MovedCriterionSerializer):
    before = serializers.CharField(help_text="The older ability label.")
    after = serializers.CharField(help_text="The newer ability label.")
    text = serializers.CharField()


class ChangelogSummarySerializer(serializers.Serializer):
    """How many entries each list of the changelog holds."""

    items_added = serializers.IntegerField()
    items_removed = serializers.IntegerField()
    items_changed = serializers.IntegerField()
    criteria_added = serializers.IntegerField()
    criteria_removed = serializers.IntegerField()
    criteria_reworded = serializers.IntegerField()
    criteria_reweighted = serializers.IntegerField()
    criteria_relabelled = serializers.IntegerField()


class ChangelogSerializer(serializers.Serializer):
    """What changed from one version of a dataset to another (`heartbench_core.versioning.changelog`)."""

    items_added = serializers.ListField(child=serializers.CharField(), help_text="Question ids.")
    items_removed = serializers.ListField(child=serializers.CharField(), help_text="Question ids.")
    items_changed = ChangedItemSerializer(many=True)
    criteria_added = ChangedCriterionSerializer(many=True)
    criteria_removed = ChangedCriterionSerializer(many=True)
    criteria_reworded = RewordedCriterionSerializer(many=True)
    criteria_reweighted = ReweightedCriterionSerializer(many=True)
    criteria_relabelled = RelabelledCriterionSerializer(many=True)
    summary = ChangelogSummarySerializer()


def valid_body(serializer_class: type[serializers.Serializer], request: Request, **kwargs: Any) -> dict[str, Any]:
    """The request's body as the serializer validated it; a 400 naming each bad field otherwise."""
    form = serializer_class(data=request.data, **kwargs)
    form.is_valid(raise_exception=True)
    return form.validated_data


class KeysetPagination(PageNumberPagination):
    """The API's default pages (`count`, `next`, `previous`, `results`) whose `next` also carries where its page ended.

    `after` (an opaque cursor) lets a deep page read from there instead of sorting and skipping
    every row before it; `page` alone still works (by offset). A subclass hands the page it reads
    by keyset to `keyset_page`, and links past it with `keyset_next`.
    """

    after_query_param = "after"
    here: str
    number: int
    count: int
    more: bool
    rows: list[Any]

    cursor_key = "pk"  # what a cursor holds after the row's reservation time (`paging.keyset_of`)

    def keyset_page(self, request: Request, found: tuple[list[Any], bool], *, number: int, count: int) -> list[Any]:
        """Hold a page read by keyset (`found`: its rows, and whether more follow) for the answer and its links: its rows."""
        self.request, self.here, self.number, self.count = request, request.build_absolute_uri(), number, count
        self.rows, self.more = found
        return self.rows

    def keyset_next(self, number: int) -> str | None:
        """The link to page `number`, continuing past this page's last row; None when no row follows it."""
        return self.keyset_next_link(number, keyset_of(self.rows[-1], key=self.cursor_key)) if self.more and self.rows else None

    def keyset_response(self, data: Any) -> Response:
        return Response({"count": self.count, "next": self.get_next_link(), "previous": self.get_previous_link(), "results": data})

    def keyset_next_link(self, number: int, cursor: str) -> str:
        return replace_query_param(replace_query_param(self.here, self.page_query_param, number), self.after_query_param, cursor)

    def keyset_previous_link(self) -> str:
        url = remove_query_param(self.here, self.after_query_param)
        if self.number == 2:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, self.number - 1)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            *super().get_schema_operation_parameters(view),
            {
                "name": self.after_query_param,
                "required": False,
                "in": "query",
                "description": "Where the previous page ended, as its `next` link gives it (opaque); the page then continues from there.",
                "schema": {"type": "string"},
            },
        ]


class RecordsShown(GenericAPIView):
    """A list that records the rows it serves as shown to the requester (`record`), so they are never served to them blind."""

    def record(self, rows: Sequence[Any]) -> None:
        raise NotImplementedError

    # DRF's list, recording what it serves; a docstring here would replace a viewset's description of its list in the schema.
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        shown = page if page is not None else builtins.list(queryset)
        self.record(shown)
        data = self.get_serializer(shown, many=True).data
        return self.get_paginated_response(data) if page is not None else Response(data)
