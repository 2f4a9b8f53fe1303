"""REST API of judge runs: list them, read a run's verdicts, import a judge's output file (admins and rubric authors only).

The scores computed from a run's verdicts are served by `heartbench_core.leaderboard.api`.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from heartbench_core.api import FileImportView, OutcomeFields
from heartbench_core.judging import read_models as judging
from heartbench_core.judging.filters import JudgeRunFilters
from heartbench_core.models import JudgeRun, User
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission
from heartbench_core.services.judging import JudgeImportOutcome, import_judge_verdicts

IsScoringStaff = role_permission(Role.ADMIN, Role.RUBRIC_AUTHOR)


class JudgeRunSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="version.dataset.name", read_only=True)
    version = serializers.CharField(source="version.label", read_only=True)
    model = serializers.CharField(source="model.name", read_only=True)
    created_by: serializers.StringRelatedField[User] = serializers.StringRelatedField()

    class Meta:
        model = JudgeRun
        fields = [
            "id",
            "dataset",
            "version",
            "model",
            "judge",
            "label",
            "created_by",
            "created_at",
            "source",
            "note",
            "question_count",
            "verdict_count",
        ]


class ImportedRunSerializer(OutcomeFields, JudgeRunSerializer):
    """The judge run an import made (201) or found already there with the same verdicts (200), with what it covers."""

    created = serializers.BooleanField(read_only=True, help_text="False when an identical run was already there: nothing was written.")
    uncovered = serializers.IntegerField(read_only=True, help_text="Questions of the version the run holds no verdict for.")
    responses_created = serializers.IntegerField(read_only=True, help_text="Responses the import wrote for the model.")

    class Meta(JudgeRunSerializer.Meta):
        fields = [*JudgeRunSerializer.Meta.fields, "created", "uncovered", "responses_created"]

    outcome_fields = ("created", "uncovered", "responses_created")  # what the import did


class RunVerdictSerializer(serializers.Serializer):
    question_id = serializers.CharField(source="criterion__item__question_id")
    position = serializers.IntegerField(source="criterion__position", help_text="The criterion's position in its item.")
    criterion = serializers.IntegerField(source="criterion_id")
    revision = serializers.IntegerField(source="criterion__revision", help_text="The criterion revision the verdict was made against.")
    hit = serializers.BooleanField()
    rationale = serializers.CharField()


@extend_schema_view(list=extend_schema(parameters=JudgeRunFilters.parameters()))
class JudgeRunViewSet(viewsets.ReadOnlyModelViewSet[JudgeRun]):
    """Imported judge runs; filter with ?dataset=&version=&model=&judge=&run=."""

    serializer_class = JudgeRunSerializer
    permission_classes = [IsScoringStaff]

    def get_queryset(self) -> QuerySet[JudgeRun]:
        # Runs on a dataset an open campaign of yours is on: left out whole until it closes.
        return judging.judge_runs(Viewer.of(self.request), self.request.query_params)

    def get_object(self) -> JudgeRun:
        """The run; a run the list leaves out for you is refused with the reason (403), not hidden."""
        run = judging.judge_run(Viewer.of(self.request), self.kwargs["pk"], self.request.query_params)
        self.check_object_permissions(self.request, run)
        return run

    @extend_schema(responses={200: RunVerdictSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)  # one document, not a page (tests/api/test_lists_are_paginated.py)
    def verdicts(self, request: Request, pk: str | None = None) -> Response:
        """Every verdict of the run: question, criterion position and id, hit, rationale."""
        rows = judging.judge_run_verdicts(Viewer.of(request), self.get_object())
        return Response(RunVerdictSerializer(rows, many=True).data)


class VerdictImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    model = serializers.CharField(max_length=200)
    judge = serializers.CharField(max_length=200)
    run = serializers.CharField(max_length=64, required=False, allow_blank=True)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")


@extend_schema_view(post=extend_schema(request=VerdictImportSerializer, responses={201: ImportedRunSerializer, 200: ImportedRunSerializer}))
class ImportVerdictsView(FileImportView[JudgeImportOutcome]):
    """Import a judge output file (upstream question_score.jsonl) as a judge run; same rules as the command."""

    permission_classes = [IsScoringStaff]
    input_serializer = VerdictImportSerializer

    def run(self, data: dict[str, Any], user: User) -> JudgeImportOutcome:
        return import_judge_verdicts(
            source=data["file"],
            dataset_name=data["dataset"],
            model_name=data["model"],
            judge=data["judge"],
            run_label=data.get("run") or None,
            version_label=data.get("version") or None,
            note=data.get("note", ""),
            created_by=user,
            name=data["file"].name,
        )

    def respond(self, outcome: JudgeImportOutcome) -> Response:
        body = ImportedRunSerializer(outcome.run, context={"outcome": outcome}).data
        return Response(body, status=201 if outcome.created else 200)
