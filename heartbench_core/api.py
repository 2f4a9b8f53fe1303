"""The pieces of the API every app shares: file imports, computed lists, pages with totals, the changelog of a version.

Each concern's own API lives with it: `heartbench_core.datasets.api` (datasets, versions, items,
models, responses and their imports), `heartbench_core.judging.api`, `heartbench_core.people.api`,
`heartbench_core.leaderboard.api`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from heartbench_core.api_parsers import CheckedMultiPartParser
from heartbench_core.models import User
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


class ChangedItemSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    fields = serializers.ListField(child=serializers.CharField(), help_text="What changed: item fields, and `rubric`.")  # type: ignore[assignment]  # the key is "fields"; the metaclass takes it out of the class


class ChangedCriterionSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    position = serializers.IntegerField(help_text="Its position in the item, in the version that has it.")
    ability = serializers.CharField()
    text = serializers.CharField()


class RewordedCriterionSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    old_position = serializers.IntegerField()
    position = serializers.IntegerField()
    before = serializers.CharField(help_text="The older text.")
    after = serializers.CharField(help_text="The newer text.")


class ReweightedCriterionSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    old_position = serializers.IntegerField()
    position = serializers.IntegerField()
    before = serializers.IntegerField(allow_null=True, help_text="The older weight.")
    after = serializers.IntegerField(allow_null=True, help_text="The newer weight.")
    text = serializers.CharField()


class RelabelledCriterionSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    old_position = serializers.IntegerField()
    position = serializers.IntegerField()
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
