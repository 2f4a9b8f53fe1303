"""REST API of the validation app: reports, golden labels, adjudication and the judgment import."""

from django.core.exceptions import PermissionDenied, ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Campaign, CampaignResponse
from heartbench_core.api import ComputedListView, FileImportView, choice_param, enum_param, error_response, valid_query
from heartbench_core.models import Criterion
from heartbench_core.roles import Role, role_permission
from heartbench_core.blindness import refuse_response
from validation.blindness import hidden_entry_ids, record_entry_exposures, refuse_campaign, visible_entries
from validation.models import Adjudication, AgreementReport, GoldenLabel
from validation.report import DEFAULTS
from validation.services.golden import adjudicate, adjudication_queue
from validation.services.imports import import_judgments
from validation.services.reports import create_agreement_report, request_agreement_report

IsAdmin = role_permission(Role.ADMIN)
IsAdjudicator = role_permission(Role.SENIOR_REVIEWER, Role.ADMIN)


class ReportSummarySerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField(slug_field="name", read_only=True)
    agreement_rate = serializers.FloatField(source="gate.agreement_rate", read_only=True, allow_null=True)
    passed = serializers.BooleanField(source="gate.passed", read_only=True)

    class Meta:
        model = AgreementReport
        fields = ["id", "campaign", "judge", "run_label", "parameters", "created_at", "duration_ms", "trigger", "agreement_rate", "passed"]


class ReportSerializer(ReportSummarySerializer):
    class Meta(ReportSummarySerializer.Meta):
        fields = [*ReportSummarySerializer.Meta.fields, "inputs", "result"]


class ComputeSerializer(serializers.Serializer):
    judge = serializers.CharField(required=False, allow_blank=True)
    run = serializers.CharField(required=False, allow_blank=True)
    resamples = serializers.IntegerField(required=False, default=DEFAULTS["resamples"], min_value=0)
    seed = serializers.IntegerField(required=False, default=DEFAULTS["seed"], min_value=0)
    threshold = serializers.FloatField(required=False, default=DEFAULTS["threshold"], min_value=0, max_value=1)
    min_pairs_per_dimension = serializers.IntegerField(required=False, default=DEFAULTS["min_pairs_per_dimension"], min_value=0)
    exclude_catastrophic = serializers.BooleanField(required=False, default=False)
    wait = serializers.BooleanField(required=False, default=False, help_text="Compute now and return the report instead of queueing it.")


class CampaignReportsView(ListAPIView):
    """Reports of a campaign, newest first (GET); compute a new one (POST: queued, or `wait` for the result)."""

    permission_classes = [IsAdmin]
    serializer_class = ReportSummarySerializer

    def get(self, request, *args, **kwargs):
        refuse_campaign(request.user, kwargs["campaign_id"])
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return AgreementReport.objects.filter(campaign_id=self.kwargs["campaign_id"]).select_related("campaign", "gate").order_by("-created_at", "-id")

    @extend_schema(request=ComputeSerializer, responses={201: ReportSerializer, 202: serializers.DictField()})
    def post(self, request, campaign_id: int):
        campaign = get_object_or_404(Campaign.objects.select_related("version__dataset"), pk=campaign_id)
        refuse_campaign(request.user, campaign.pk)
        form = ComputeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = dict(form.validated_data)
        wait = data.pop("wait")
        data["judge"] = data.get("judge") or None
        data["run"] = data.get("run") or None
        try:
            if wait:
                report = create_agreement_report(campaign=campaign, requested_by=request.user, trigger="api", **data)
                return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)
            request_agreement_report(campaign=campaign, requested_by=request.user, trigger="api", **data)
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"detail": "queued"}, status=status.HTTP_202_ACCEPTED)


class ReportDetailView(RetrieveAPIView):
    """One immutable report with its inputs and every figure."""

    permission_classes = [IsAdmin]
    serializer_class = ReportSerializer
    queryset = AgreementReport.objects.select_related("campaign", "gate")

    def get_object(self):
        report = super().get_object()
        refuse_campaign(self.request.user, report.campaign_id)
        return report


class GoldenLabelSerializer(serializers.ModelSerializer):
    response = serializers.CharField(source="campaign_response.response.public_id", read_only=True)
    question_id = serializers.CharField(source="campaign_response.item.question_id", read_only=True)
    criterion_key = serializers.UUIDField(source="criterion.lineage_id", read_only=True)
    criterion_position = serializers.IntegerField(source="criterion.position", read_only=True)
    adjudicated_by = serializers.CharField(source="adjudication.decided_by.username", read_only=True, default=None)
    adjudicated_at = serializers.DateTimeField(source="adjudication.decided_at", read_only=True, default=None)
    cause = serializers.CharField(source="adjudication.cause", read_only=True, default=None)
    why = serializers.CharField(source="adjudication.note", read_only=True, default=None)

    class Meta:
        model = GoldenLabel
        fields = ["response", "question_id", "criterion_key", "criterion_position", "hit", "provenance", "expert_hits",
                  "expert_ratings", "adjudicated_by", "adjudicated_at", "cause", "why"]


@extend_schema_view(get=extend_schema(parameters=[enum_param("provenance", GoldenLabel.Provenance.values)]))
class GoldenLabelsView(ListAPIView):
    """The stored golden standard of a campaign (refreshed by every report and adjudication)."""

    permission_classes = [IsAdmin]
    serializer_class = GoldenLabelSerializer

    def list(self, request, *args, **kwargs):
        refuse_campaign(request.user, kwargs["campaign_id"])
        response = super().list(request, *args, **kwargs)
        record_entry_exposures(user=request.user, entry_ids=self._shown, via="api-golden-labels")
        return response

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        self._shown = {g.campaign_response_id for g in (page if page is not None else queryset)}
        return page

    def get_queryset(self):
        qs = GoldenLabel.objects.filter(campaign_id=self.kwargs["campaign_id"]).select_related(
            "campaign_response__response", "campaign_response__item", "criterion", "adjudication__decided_by"
        ).order_by("campaign_response_id", "criterion__position")
        if provenance := choice_param(self.request, "provenance", GoldenLabel.Provenance.values):
            qs = qs.filter(provenance=provenance)
        campaign = Campaign.objects.filter(pk=self.kwargs["campaign_id"]).first()
        if campaign is not None and (hidden := hidden_entry_ids(self.request.user, campaign)):
            qs = qs.exclude(campaign_response_id__in=hidden)
        return qs


class QueueEntrySerializer(serializers.Serializer):
    campaign_response_id = serializers.IntegerField()
    criterion_id = serializers.IntegerField()
    expert_hits = serializers.IntegerField()
    expert_ratings = serializers.IntegerField()
    judge_hit = serializers.BooleanField(allow_null=True)
    agreement = serializers.FloatField()
    triggers = serializers.ListField(child=serializers.ChoiceField(choices=Adjudication.Trigger.choices))


class QueueQuerySerializer(serializers.Serializer):
    trigger = serializers.ChoiceField(choices=Adjudication.Trigger.choices, required=False,
                                      help_text="Only entries queued for this reason.")
    criterion = serializers.IntegerField(required=False, help_text="Only entries of this criterion (its id, as in `criterion_id`).")

    def validate_criterion(self, value: int) -> int:
        campaign = self.context["campaign"]
        if not Criterion.objects.filter(pk=value, item__version_id=campaign.version_id).exists():
            raise serializers.ValidationError(f"no criterion {value} in the version of campaign {campaign.name!r}")
        return value


class QueueView(ComputedListView):
    """The adjudication queue of a campaign, lowest agreement first (responses you rated are left out)."""

    permission_classes = [IsAdjudicator]
    serializer_class = QueueEntrySerializer

    @extend_schema(parameters=[QueueQuerySerializer], responses=QueueEntrySerializer(many=True))
    def get(self, request, campaign_id: int):
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        refuse_campaign(request.user, campaign.pk)
        query = valid_query(QueueQuerySerializer, request, campaign=campaign)
        entries = visible_entries(request.user, campaign, adjudication_queue(campaign, reviewer=request.user))
        if trigger := query.get("trigger"):
            entries = [e for e in entries if trigger in e.triggers]
        if (criterion := query.get("criterion")) is not None:
            entries = [e for e in entries if e.criterion_id == criterion]
        response = self.paginated(entries)
        record_entry_exposures(user=request.user, entry_ids={r["campaign_response_id"] for r in response.data["results"]}, via="api-adjudication-queue")
        return response


class AdjudicationSerializer(serializers.Serializer):
    campaign_response_id = serializers.IntegerField()
    criterion_id = serializers.IntegerField()
    hit = serializers.BooleanField()
    cause = serializers.ChoiceField(choices=Adjudication.Cause.choices)
    note = serializers.CharField()
    flag_for_authors = serializers.BooleanField(required=False, default=False)


class AdjudicateView(APIView):
    """Record a decision as the golden label of one (response, criterion)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(request=AdjudicationSerializer, responses={201: serializers.DictField()})
    def post(self, request):
        form = AdjudicationSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        entry = get_object_or_404(CampaignResponse, pk=data["campaign_response_id"])
        refuse_campaign(request.user, entry.campaign_id)
        refuse_response(request.user, entry.response_id)
        criterion = get_object_or_404(Criterion, pk=data["criterion_id"])
        try:
            decision = adjudicate(
                reviewer=request.user, campaign_response=entry, criterion=criterion, hit=data["hit"],
                cause=data["cause"], note=data["note"], flag_for_authors=data["flag_for_authors"],
            )
        except PermissionDenied as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"id": decision.pk, "hit": decision.hit, "cause": decision.cause, "decided_at": decision.decided_at}, status=201)


class JudgmentImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    campaign = serializers.CharField(max_length=200)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    create_experts = serializers.BooleanField(required=False, default=False)


@extend_schema_view(post=extend_schema(request=JudgmentImportSerializer, responses={201: serializers.DictField()}))
class ImportJudgmentsView(FileImportView):
    """Import human judgments made elsewhere (same rules and messages as `import_judgments`)."""

    input_serializer = JudgmentImportSerializer

    def run(self, data, user):
        return import_judgments(
            source=data["file"], dataset_name=data["dataset"], campaign_name=data["campaign"],
            version_label=data.get("version") or None, create_experts=data["create_experts"],
            created_by=user, name=data["file"].name,
        )

    def respond(self, outcome):
        return Response(
            {
                "campaign": outcome.campaign.name, "campaign_id": outcome.campaign.pk, "campaign_created": outcome.campaign_created,
                "responses_added": outcome.responses_added, "assignments": outcome.assignments,
                "judgments": outcome.judgments, "experts_created": outcome.experts_created,
            },
            status=201,
        )
