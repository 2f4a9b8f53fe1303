"""REST API of the datasets: datasets, versions, items, models, responses, and the import actions."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.urls import NoReverseMatch
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse as drf_reverse

from heartbench_core.api import ChangelogSerializer, FileImportView
from heartbench_core.api_blind import ShowsResponses
from heartbench_core.datasets import read_models as datasets
from heartbench_core.datasets.filters import ItemFilters, ResponseFilters, VersionFilters
from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item, LanguageModel, ModelResponse, User
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, role_permission
from heartbench_core.services.datasets import ImportOutcome, diff_versions, export_lines, import_heartbench
from heartbench_core.services.responses import ResponseImportOutcome, import_responses

IsStaff = role_permission(*STAFF_ROLES)


class DatasetSerializer(serializers.ModelSerializer):
    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "extra_labels", "review_panel_size", "created_at"]


class VersionSerializer(serializers.ModelSerializer):
    dataset: serializers.SlugRelatedField[Dataset] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    parent = serializers.SlugRelatedField[DatasetVersion](slug_field="label", read_only=True, allow_null=True)  # type: ignore[assignment]  # the key is "parent"; the metaclass takes it out of the class
    created_by: serializers.StringRelatedField[User] = serializers.StringRelatedField(allow_null=True)
    release_gate_url = serializers.SerializerMethodField(
        help_text="The release decision of this version, served by the validation app (null when that app is absent)."
    )

    class Meta:
        model = DatasetVersion
        fields = [
            "id",
            "dataset",
            "number",
            "label",
            "parent",
            "content_hash",
            "created_by",
            "created_at",
            "note",
            "frozen",
            "source",
            "item_count",
            "criterion_count",
            "changelog",
            "release_gate_url",
        ]

    @extend_schema_field(OpenApiTypes.URI)
    def get_release_gate_url(self, version: DatasetVersion) -> str | None:
        # By URL name, so the core links to the decision without importing the app that makes it.
        try:
            return drf_reverse("validation-version-gate", args=[version.pk], request=self.context.get("request"))
        except NoReverseMatch:
            return None


class CriterionSerializer(serializers.ModelSerializer):
    key = serializers.UUIDField(source="lineage_id", read_only=True)

    class Meta:
        model = Criterion
        fields = ["id", "position", "ability", "weight", "text", "catastrophic", "key", "revision"]


class ItemSerializer(serializers.ModelSerializer):
    criteria = CriterionSerializer(many=True, read_only=True)

    class Meta:
        model = Item
        fields = ["id", "question_id", "position", "dialogue", "difficulty", "primary_scene", "secondary_scene", "criteria"]


class LanguageModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = LanguageModel
        fields = ["id", "name", "notes", "created_at"]


class ImportedVersionSerializer(VersionSerializer):
    """The version an import made (201) or found already there with the same content (200)."""

    created = serializers.SerializerMethodField(help_text="False when an identical version was already there: nothing was written.")

    class Meta(VersionSerializer.Meta):
        fields = [*VersionSerializer.Meta.fields, "created"]

    def get_created(self, version: DatasetVersion) -> bool:
        return self.context["created"]


class ResponseSerializer(serializers.ModelSerializer):
    dataset: serializers.SlugRelatedField[Dataset] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    model: serializers.SlugRelatedField[LanguageModel] = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = ModelResponse
        fields = ["public_id", "dataset", "question_id", "model", "text", "metadata", "created_at"]


class DatasetViewSet(viewsets.ReadOnlyModelViewSet[Dataset]):
    serializer_class = DatasetSerializer
    permission_classes = [IsStaff]
    lookup_field = "name"

    def get_queryset(self) -> QuerySet[Dataset]:
        return datasets.dataset_list(Viewer.of(self.request))


@extend_schema_view(list=extend_schema(parameters=VersionFilters.parameters()))
class VersionViewSet(viewsets.ReadOnlyModelViewSet[DatasetVersion]):
    serializer_class = VersionSerializer
    permission_classes = [IsStaff]
    ordering_fields = ["number", "created_at"]

    def get_queryset(self) -> QuerySet[DatasetVersion]:
        return datasets.versions(Viewer.of(self.request), self.request.query_params)

    @extend_schema(
        parameters=[OpenApiParameter("against", str, description="The label of the older version (default: the parent).")],
        responses={200: ChangelogSerializer},
    )
    @action(detail=True, methods=["get"])
    def diff(self, request: Request, pk: str | None = None) -> Response:
        """Changelog from ?against=LABEL (default: the parent) to this version."""
        version = self.get_object()
        against_label = request.query_params.get("against")
        against = datasets.version_against(Viewer.of(request), version, against_label)
        if against is None:
            return Response({"detail": "this version has no parent; pass ?against=LABEL"}, status=400)
        return Response(ChangelogSerializer(diff_versions(against, version)).data)

    @extend_schema(responses={(200, "application/x-ndjson"): str})
    @action(detail=True, methods=["get"])
    def export(self, request: Request, pk: str | None = None) -> HttpResponse:
        """The version in the upstream JSONL schema."""
        version = self.get_object()
        body = "".join(line + "\n" for line in export_lines(version))
        response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
        # Any stored name (a quote, a line break, non-ASCII) makes a valid header: RFC 6266 filename*.
        filename = f"{version.dataset.name}-{version.label}.jsonl".replace("/", "_").replace("\\", "_")
        if disposition := content_disposition_header(True, "".join(ch if ch.isprintable() else "_" for ch in filename)):
            response["Content-Disposition"] = disposition  # always set: an attachment always has a disposition
        return response


@extend_schema_view(list=extend_schema(parameters=ItemFilters.parameters()))
class ItemViewSet(viewsets.ReadOnlyModelViewSet[Item]):
    serializer_class = ItemSerializer
    permission_classes = [IsStaff]

    def get_queryset(self) -> QuerySet[Item]:
        return datasets.items(Viewer.of(self.request), self.request.query_params)


class LanguageModelViewSet(viewsets.ReadOnlyModelViewSet[LanguageModel]):
    serializer_class = LanguageModelSerializer
    permission_classes = [IsStaff]

    def get_queryset(self) -> QuerySet[LanguageModel]:
        return datasets.language_models(Viewer.of(self.request))


@extend_schema_view(list=extend_schema(parameters=ResponseFilters.parameters()))
class ResponseViewSet(ShowsResponses[ModelResponse], viewsets.ReadOnlyModelViewSet[ModelResponse]):
    """Responses with their model. Responses of a dataset an open campaign of yours is on are left out (list) or refused
    (detail); whatever is shown is recorded as a staff exposure, never served to you blind."""

    serializer_class = ResponseSerializer
    permission_classes = [IsStaff]
    lookup_field = "public_id"
    exposure_via = "api-response"

    def get_queryset(self) -> QuerySet[ModelResponse]:
        return datasets.responses(Viewer.of(self.request), self.request.query_params)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        found = datasets.response(Viewer.of(request), self.kwargs["public_id"], request.query_params, via=self.exposure_via)
        self.check_object_permissions(request, found)
        return Response(self.get_serializer(found).data)


class HeartbenchImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    difficulty = serializers.ChoiceField(choices=["hard", "normal"], required=False)


@extend_schema_view(
    post=extend_schema(request=HeartbenchImportSerializer, responses={201: ImportedVersionSerializer, 200: ImportedVersionSerializer})
)
class ImportHeartbenchView(FileImportView[ImportOutcome]):
    """Import an upstream HeartBench JSONL file as a new dataset version (same rules as the command)."""

    input_serializer = HeartbenchImportSerializer

    def run(self, data: dict[str, Any], user: User) -> ImportOutcome:
        return import_heartbench(
            source=data["file"],
            dataset_name=data["dataset"],
            label=data.get("version") or None,
            note=data.get("note", ""),
            difficulty=data.get("difficulty"),
            created_by=user,
            name=data["file"].name,
        )

    def respond(self, outcome: ImportOutcome) -> Response:
        body = ImportedVersionSerializer(outcome.version, context={"created": outcome.created}).data
        return Response(body, status=201 if outcome.created else 200)


class ResponsesImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    model = serializers.CharField(max_length=200)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)


class ImportedResponsesSerializer(serializers.Serializer):
    model = serializers.CharField(source="model.name")
    created = serializers.IntegerField(help_text="Responses written.")
    unchanged = serializers.IntegerField(help_text="Responses already there with the same text.")


@extend_schema_view(post=extend_schema(request=ResponsesImportSerializer, responses={201: ImportedResponsesSerializer}))
class ImportResponsesView(FileImportView[ResponseImportOutcome]):
    """Import one model's answer file (`{"question_id", "response"}` lines)."""

    input_serializer = ResponsesImportSerializer

    def run(self, data: dict[str, Any], user: User) -> ResponseImportOutcome:
        return import_responses(
            source=data["file"],
            dataset_name=data["dataset"],
            model_name=data["model"],
            version_label=data.get("version") or None,
            name=data["file"].name,
        )

    def respond(self, outcome: ResponseImportOutcome) -> Response:
        return Response(ImportedResponsesSerializer(outcome).data, status=201)
