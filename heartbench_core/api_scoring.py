"""REST API of scoring: judge runs, judge-verdict import, and scores (admins and rubric authors only)."""

from django.core.exceptions import PermissionDenied, ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from heartbench_core.api import FileImportView, error_response
from heartbench_core.blindness import CLOSED_MODEL, blind_scope, record_exposures
from heartbench_core.models import JudgeRun, LanguageModel
from heartbench_core.roles import Role, role_permission
from heartbench_core.scoring import CATASTROPHIC_MODES
from heartbench_core.services.judging import import_judge_verdicts
from heartbench_core.services.scoring import SUBSETS, score_model

IsScoringStaff = role_permission(Role.ADMIN, Role.RUBRIC_AUTHOR)


class JudgeRunSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="version.dataset.name", read_only=True)
    version = serializers.CharField(source="version.label", read_only=True)
    model = serializers.CharField(source="model.name", read_only=True)
    created_by = serializers.StringRelatedField()

    class Meta:
        model = JudgeRun
        fields = [
            "id", "dataset", "version", "model", "judge", "label", "created_by", "created_at",
            "source", "note", "question_count", "verdict_count",
        ]


class JudgeRunViewSet(viewsets.ReadOnlyModelViewSet):
    """Imported judge runs; filter with ?dataset=&version=&model=&judge=&run=."""

    serializer_class = JudgeRunSerializer
    permission_classes = [IsScoringStaff]

    def get_queryset(self):
        qs = JudgeRun.objects.select_related("version__dataset", "model", "created_by").order_by("id")
        if pairs := blind_scope(self.request.user).model_pairs:
            # Runs of a model on a dataset whose responses an open campaign of yours judges: left out until it closes.
            for dataset_id, model_id in pairs:
                qs = qs.exclude(version__dataset_id=dataset_id, model_id=model_id)
        params = self.request.query_params
        if dataset := params.get("dataset"):
            qs = qs.filter(version__dataset__name=dataset)
        if version := params.get("version"):
            qs = qs.filter(version__label=version)
        if model := params.get("model"):
            qs = qs.filter(model__name=model)
        if judge := params.get("judge"):
            qs = qs.filter(judge=judge)
        if run := params.get("run"):
            qs = qs.filter(label=run)
        return qs

    def get_object(self):
        """The run; a run the list leaves out for you is refused with the reason (403), not hidden."""
        if not blind_scope(self.request.user):
            return super().get_object()
        run = get_object_or_404(JudgeRun.objects.select_related("version__dataset", "model", "created_by"), pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, run)
        if blind_scope(self.request.user).hides_model_on(run.version.dataset_id, run.model_id):
            raise PermissionDenied(CLOSED_MODEL)
        return run

    @extend_schema(responses={200: serializers.ListField(child=serializers.DictField())})
    @action(detail=True, methods=["get"])
    def verdicts(self, request, pk=None):
        """Every verdict of the run: question, criterion position and id, hit, rationale."""
        run = self.get_object()
        rows = list(run.verdicts.order_by("criterion__item__position", "criterion__position").values(
            "response_id", "criterion_id", "criterion__item__question_id", "criterion__position", "criterion__revision", "hit", "rationale"
        ))
        record_exposures(user=request.user, response_ids={r["response_id"] for r in rows}, via="api-judge-verdicts")
        return Response(
            [
                {
                    "question_id": r["criterion__item__question_id"],
                    "position": r["criterion__position"],
                    "criterion": r["criterion_id"],
                    "revision": r["criterion__revision"],
                    "hit": r["hit"],
                    "rationale": r["rationale"],
                }
                for r in rows
            ]
        )


class VerdictImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    model = serializers.CharField(max_length=200)
    judge = serializers.CharField(max_length=200)
    run = serializers.CharField(max_length=64, required=False, allow_blank=True)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")


@extend_schema_view(post=extend_schema(request=VerdictImportSerializer, responses={201: JudgeRunSerializer, 200: JudgeRunSerializer}))
class ImportVerdictsView(FileImportView):
    """Import a judge output file (upstream question_score.jsonl) as a judge run; same rules as the command."""

    permission_classes = [IsScoringStaff]
    input_serializer = VerdictImportSerializer

    def run(self, data, user):
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

    def respond(self, outcome):
        body = JudgeRunSerializer(outcome.run).data
        body.update(created=outcome.created, uncovered=outcome.uncovered, responses_created=outcome.responses_created)
        return Response(body, status=201 if outcome.created else 200)


class ScoresQuerySerializer(serializers.Serializer):
    dataset = serializers.CharField()
    model = serializers.CharField()
    source = serializers.CharField(default="judge")
    judge = serializers.CharField(required=False)
    run = serializers.CharField(required=False)
    version = serializers.CharField(required=False)
    subset = serializers.ChoiceField(choices=SUBSETS, default="all")
    scene = serializers.CharField(required=False)
    catastrophic = serializers.ChoiceField(choices=CATASTROPHIC_MODES, default="paper")
    questions = serializers.BooleanField(default=False)


class ScoresView(APIView):
    """One model's scores from a verdict source: the same JSON as `score --format json`."""

    permission_classes = [IsScoringStaff]

    @extend_schema(
        parameters=[
            OpenApiParameter(name, OpenApiTypes.STR, required=name in ("dataset", "model"))
            for name in ("dataset", "model", "source", "judge", "run", "version", "subset", "scene", "catastrophic")
        ]
        + [OpenApiParameter("questions", OpenApiTypes.BOOL, description="include per-question scores")],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        query = ScoresQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        scope = blind_scope(request.user)
        if scope and LanguageModel.objects.filter(
            name=q["model"], responses__dataset__name=q["dataset"], responses__pk__in=scope.response_ids
        ).exists():
            raise PermissionDenied(CLOSED_MODEL)
        try:
            result, verdicts = score_model(
                dataset_name=q["dataset"],
                model_name=q["model"],
                source=q["source"],
                judge=q.get("judge"),
                run=q.get("run"),
                version_label=q.get("version"),
                subset=q["subset"],
                scene=q.get("scene"),
                mode=q["catastrophic"],
            )
        except DjangoValidationError as exc:
            body = error_response(exc)
            body.data["detail"] = "no score"
            return body
        body = result.as_json(include_questions=q["questions"])
        body["source"] = verdicts.description
        return Response(body)
