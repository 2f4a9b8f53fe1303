"""REST API of the validation app: reports, golden labels, adjudication and the judgment import."""

import builtins
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpResponseBase
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView, RetrieveAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.knowledge.api import CaseContentSerializer, CaseSerializer
from annotation.models import Campaign
from heartbench_core.api import ComputedListView, FileImportView, PageWithTotals, valid_body
from heartbench_core.api_changes import RefusesUnknownFields
from heartbench_core.api_types import TypedSerializer
from heartbench_core.http import attachment, signed_in
from heartbench_core.lib.agreement_report import (
    ALERT_KINDS,
    DEFAULTS,
    AgreementChange,
    Alert,
    AltTest,
    AltTestBlock,
    AltTestExpert,
    CalibratedScore,
    CalibratedScores,
    Confusion,
    CriterionRow,
    Figure,
    Gate,
    GatePolicy,
    GroupRow,
    Interval,
    ItemAgreement,
    JudgeAlignment,
    JudgeExpertBaseline,
    McNemar,
    Parameters,
    ReportInputs,
    ReportResult,
    Resampling,
)
from heartbench_core.lib.split_extension import GoldChange
from heartbench_core.models import User
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, role_permission
from validation import read_models as read
from validation.exports import GOLDEN_HEADER, BadFilter
from validation.filters import AlignmentFilters, CandidateFilters, ExportFilters, GoldenLabelFilters, QueueFilters
from validation.gold_builder import ResponseSheet
from validation.models import Adjudication, AgreementReport, BackgroundJob, GoldenLabel, ReleaseGate, ReleasePolicy
from validation.serializers import (
    SET_KINDS,  # noqa: F401 - the schema's BuiltSetKindEnum names it here (SPECTACULAR_SETTINGS)
    CandidateQuerySerializer,
    GoldBuilderCreateSerializer,
    PlanRequestSerializer,
)
from validation.services.agreement_reports import create_agreement_report, request_agreement_report
from validation.services.cases import case_from_adjudication, case_from_discussion
from validation.services.gold_builder import (
    BuiltSet,
    create_set_from_settled_verdicts,
    finalise_gold_draft,
    start_gold_draft,
    write_draft_verdicts,
)
from validation.services.golden import adjudicate
from validation.services.imports import JudgmentImportOutcome, import_judgments
from validation.services.release import change_release_policy

IsAdmin = role_permission(Role.ADMIN)
IsAdjudicator = role_permission(Role.SENIOR_REVIEWER, Role.ADMIN)


EXPLORATORY_NOTICE = _("exploratory: computed with parameters other than the release policy; it does not set the gate")


# --- the agreement report: serialised from the typed `ReportResult` itself (`heartbench_core.api_types`) ----------------


class ReportPart(TypedSerializer[Any]):
    """A part of the typed report: its nested parts are named `Report…` in the schema."""

    prefix = "Report"
    descriptions = {
        Figure: "A statistic with the number of units it compared; undefined (null, never 0) with its reason.",
        Resampling: "What an interval resampled.",
        Interval: "A confidence interval and what it resampled; undefined (null bounds) with its reason.",
        ItemAgreement: "Share of compared pairs where the judge's verdict equals the golden label, with its 95% CI.",
        Confusion: "2×2 counts with the golden standard as truth.",
        McNemar: "Exact McNemar test of judge-only hits (fp) against human-only hits (fn).",
        JudgeExpertBaseline: "Judge–expert pair agreement against expert–expert pair agreement.",
        GroupRow: "One group of a breakdown; the judge–gold figures count its pairs, alpha its units rated by two or more experts.",
        CriterionRow: "One criterion (key: its lineage); no interval is computed per criterion.",
        Gate: "The gate the report decides under its policy (the release decision only when the report is not exploratory).",
        AltTestExpert: "One left-out expert of the alternative annotator test.",
        AltTest: "Can the judge replace an expert? The alternative annotator test (Calderon, Reichart & Dror, ACL 2025).",
        AltTestBlock: "The alternative annotator test on every criterion, per dimension and per ability.",
        CalibratedScore: "One score of a model three ways: the judge's, the experts' sample's, the judge's corrected by the experts' (PPI++).",
        CalibratedScores: "Every model's human-calibrated scores (prediction-powered inference with power tuning, PPI++).",
    }


class ReportGatePolicySerializer(ReportPart):
    must_clear = serializers.ChoiceField(choices=ReleasePolicy.Clears.choices)

    class Meta:
        dataclass = GatePolicy


class ReportParametersSerializer(ReportPart):
    must_clear = serializers.ChoiceField(choices=ReleasePolicy.Clears.choices)

    class Meta:
        dataclass = Parameters


class ReportAlertSerializer(ReportPart):
    kind = serializers.ChoiceField(choices=ALERT_KINDS)

    class Meta:
        dataclass = Alert


class ReportSplitExtensionSerializer(ReportPart):
    """`heartbench_core.lib.split_extension.GoldChange`: the gold of the responses given extra raters, before and after them."""

    class Meta:
        dataclass = GoldChange


class ReportResultSerializer(ReportPart):
    """Every figure of one agreement report (`heartbench_core.lib.agreement_report.ReportResult`)."""

    class Meta:
        dataclass = ReportResult


class ReportInputsSerializer(ReportPart):
    """What a report read."""

    class Meta:
        dataclass = ReportInputs


class ReportSummarySerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField[Campaign](slug_field="name", read_only=True)
    parameters = ReportParametersSerializer(source="typed_parameters", read_only=True)
    agreement_rate = ReportPart.serializer_of(Figure)(
        read_only=True, help_text="The judge–gold item agreement rate, with its pairs or why it is undefined."
    )
    passed = serializers.BooleanField(
        source="gate.passed",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="The release decision this report set; null for an exploratory report, which sets none.",
    )
    notice = serializers.SerializerMethodField(help_text="Says so when the report is exploratory.")

    class Meta:
        model = AgreementReport
        fields = [
            "id",
            "campaign",
            "judge",
            "run_label",
            "parameters",
            "created_at",
            "duration_ms",
            "trigger",
            "agreement_rate",
            "exploratory",
            "notice",
            "passed",
        ]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_notice(self, report: AgreementReport) -> str | None:
        return str(EXPLORATORY_NOTICE) if report.exploratory else None


class ReportSerializer(ReportSummarySerializer):
    inputs = ReportInputsSerializer(source="typed_inputs", read_only=True)
    result = ReportResultSerializer(source="typed_result", read_only=True)

    class Meta(ReportSummarySerializer.Meta):
        fields = [*ReportSummarySerializer.Meta.fields, "inputs", "result"]


class ComputeSerializer(serializers.Serializer):
    judge = serializers.CharField(required=False, allow_blank=True)
    run = serializers.CharField(required=False, allow_blank=True)
    resamples = serializers.IntegerField(required=False, default=DEFAULTS.resamples, min_value=0)
    seed = serializers.IntegerField(required=False, default=DEFAULTS.seed, min_value=0)
    # Gate parameters: leave them out to use the dataset's release policy; other values make the report exploratory.
    threshold = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0, max_value=1)
    min_pairs_per_dimension = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0)
    min_pairs_per_ability = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0)
    must_clear = serializers.ChoiceField(choices=ReleasePolicy.Clears.choices, required=False, allow_null=True, default=None)
    exclude_catastrophic = serializers.BooleanField(required=False, default=False)
    post_discussion = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Include accepted post-discussion revisions instead of the blind verdicts: an exploratory report that never sets the release gate.",
    )
    wait = serializers.BooleanField(required=False, default=False, help_text="Compute now and return the report instead of queueing it.")


class QueuedReportSerializer(serializers.Serializer):
    detail = serializers.CharField()
    job = serializers.IntegerField(help_text="The background job computing the report: follow it at job_url.")
    job_url = serializers.URLField()
    exploratory = serializers.BooleanField(help_text="The report will not set the gate: its parameters are not the release policy's.")
    exploratory_reasons = serializers.ListField(child=serializers.CharField())


class CampaignReportsView(ListAPIView[AgreementReport]):
    """Reports of a campaign, newest first (GET); compute a new one (POST: queued, or `wait` for the result)."""

    permission_classes = [IsAdmin]
    serializer_class = ReportSummarySerializer

    def get_queryset(self) -> QuerySet[AgreementReport]:
        return read.campaign_reports(Viewer.of(self.request), self.kwargs["campaign_id"])

    @extend_schema(request=ComputeSerializer, responses={201: ReportSerializer, 202: QueuedReportSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = read.campaign_of(Viewer.of(request), campaign_id)
        data = valid_body(ComputeSerializer, request)
        wait = data.pop("wait")  # a blank judge or run is none, as the services read it
        if wait:
            report = create_agreement_report(campaign=campaign, requested_by=signed_in(request), trigger="api", **data)
            return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)
        queued = request_agreement_report(campaign=campaign, requested_by=signed_in(request), trigger="api", **data)
        body = {
            "detail": "queued",
            "job": queued.job.pk,
            "job_url": reverse("validation-job", args=[queued.job.pk], request=request),
            "exploratory": bool(queued.exploratory),
            "exploratory_reasons": queued.exploratory,
        }
        return Response(QueuedReportSerializer(body).data, status=status.HTTP_202_ACCEPTED)


class BackgroundJobSerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField[Campaign](slug_field="name", read_only=True)
    requested_by = serializers.SlugRelatedField[User](slug_field="username", read_only=True)
    report_url = serializers.SerializerMethodField()

    class Meta:
        model = BackgroundJob
        fields = [
            "id",
            "kind",
            "campaign",
            "status",
            "attempts",
            "last_error",
            "requested_by",
            "trigger",
            "report",
            "report_url",
            "created_at",
            "started_at",
            "finished_at",
            "locked_until",
        ]

    @extend_schema_field(serializers.URLField(allow_null=True, help_text="The report once the job is done; null until then."))
    def get_report_url(self, job: BackgroundJob) -> str | None:
        return reverse("validation-report", args=[job.report_id], request=self.context.get("request")) if job.report_id else None


class BackgroundJobView(RetrieveAPIView[BackgroundJob]):
    """One requested report (or golden-label refresh): pending, running, done with its report, or failed with the error."""

    permission_classes = [IsAdmin]
    serializer_class = BackgroundJobSerializer

    def get_object(self) -> BackgroundJob:
        return read.background_job(Viewer.of(self.request), self.kwargs["pk"])


class ReportDetailView(RetrieveAPIView[AgreementReport]):
    """One immutable report with its inputs and every figure."""

    permission_classes = [IsAdmin]
    serializer_class = ReportSerializer

    def get_object(self) -> AgreementReport:
        return read.report(Viewer.of(self.request), self.kwargs["pk"])


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
        # The export's columns but the model and the revision (the key before the position).
        fields = ["response", "question_id", "criterion_key", "criterion_position", *GOLDEN_HEADER[GOLDEN_HEADER.index("hit") :]]


@extend_schema_view(get=extend_schema(parameters=GoldenLabelFilters.parameters()))
class GoldenLabelsView(ListAPIView[GoldenLabel]):
    """The stored golden standard of a campaign (refreshed by every report and adjudication)."""

    permission_classes = [IsAdmin]
    serializer_class = GoldenLabelSerializer
    _shown: set[int]  # the entries of the page served, set by paginate_queryset

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().list(request, *args, **kwargs)
        read.entries_shown(Viewer.of(request), self._shown, via="api-golden-labels")
        return response

    def paginate_queryset(self, queryset: QuerySet[GoldenLabel, Any]) -> builtins.list[Any] | None:  # `list` here is the view's method
        page = super().paginate_queryset(queryset)
        self._shown = {g.campaign_response_id for g in (page if page is not None else queryset)}
        return page

    def get_queryset(self) -> QuerySet[GoldenLabel]:
        return read.golden_labels(Viewer.of(self.request), self.kwargs["campaign_id"], self.request.query_params)


class QueueEntrySerializer(TypedSerializer[read.QueueEntry]):
    triggers = serializers.ListField(child=serializers.ChoiceField(choices=Adjudication.Trigger.choices))
    judge_reason = serializers.SerializerMethodField(help_text="The judge's reason for its verdict on this unit; null without one.")

    class Meta:
        dataclass = read.QueueEntry
        exclude = ("judge_verdict_id", "discussion_changed")

    def get_judge_reason(self, entry: read.QueueEntry) -> str | None:
        # From the reasons the read model gave for the page (`judge_reasons` in the context): no query here.
        if entry.judge_verdict_id is None:
            return None
        return self.context.get("judge_reasons", {}).get(entry.judge_verdict_id) or None


class QueuePagination(PageWithTotals):
    totals = {
        "needs_decision": "Units that need a decision, over the whole queue you may see (not only this page, whatever the filters).",
        "compared": "Units compared (complete, or rated under a flagged criterion), over the whole queue you may see.",
    }


class QueueView(ComputedListView):
    """The adjudication queue of a campaign, lowest agreement first (responses you rated are left out).

    By default only the units that need a decision; `show=all` lists every compared unit. The
    totals `needs_decision` and `compared` say "N need a decision (of M units compared)".
    """

    permission_classes = [IsAdjudicator]
    serializer_class = QueueEntrySerializer
    pagination_class = QueuePagination

    _reasons: dict[int, str]  # the judge's reasons behind the page's verdicts, set by paginate_queryset

    @extend_schema(parameters=QueueFilters.parameters(), responses=QueueEntrySerializer(many=True))
    def get(self, request: Request, campaign_id: int) -> Response:
        viewer = Viewer.of(request)
        # A page of the stored queue (see `validation.services.queue_summary`), never the whole queue.
        found = read.adjudication_queue(viewer, read.campaign_of(viewer, campaign_id), request.query_params, strict=True)
        return self.paginated(found.entries, totals=found.counts._asdict())

    def paginate_queryset(self, queryset: Any) -> builtins.list[Any] | None:
        page = super().paginate_queryset(queryset)
        self._reasons = read.shown_queue_entries(Viewer.of(self.request), page or [], via="api-adjudication-queue")
        return page

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "judge_reasons": getattr(self, "_reasons", {})}


class AdjudicationSerializer(serializers.Serializer):
    campaign_response_id = serializers.IntegerField()
    criterion_id = serializers.IntegerField()
    hit = serializers.BooleanField()
    cause = serializers.ChoiceField(choices=Adjudication.Cause.choices)
    note = serializers.CharField()
    flag_for_authors = serializers.BooleanField(required=False, default=False)


class AdjudicationResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = Adjudication
        fields = ["id", "hit", "cause", "decided_at"]


class AdjudicateView(APIView):
    """Record a decision as the golden label of one (response, criterion)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(request=AdjudicationSerializer, responses={201: AdjudicationResultSerializer})
    def post(self, request: Request) -> Response:
        data = valid_body(AdjudicationSerializer, request)
        entry, criterion = read.decision_unit(Viewer.of(request), data["campaign_response_id"], data["criterion_id"])
        decision = adjudicate(
            reviewer=signed_in(request),
            campaign_response=entry,
            criterion=criterion,
            hit=data["hit"],
            cause=data["cause"],
            note=data["note"],
            flag_for_authors=data["flag_for_authors"],
        )
        return Response(AdjudicationResultSerializer(decision).data, status=201)


class UnitDiscussionSerializer(TypedSerializer[read.UnitDiscussion]):
    """The experts' discussion of one unit, for its adjudicator: numbered raters, comments, blind verdicts, votes and the tally."""

    votes_hit = serializers.IntegerField()
    votes_miss = serializers.IntegerField()
    post_hits = serializers.IntegerField(help_text="Hit stances after the discussion: each rater's vote, else their blind verdict.")

    class Meta:
        dataclass = read.UnitDiscussion


class UnitDiscussionView(APIView):
    """The discussion of one unit after independence, for its adjudicator (raters numbered as on the adjudication page)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(responses=UnitDiscussionSerializer)
    def get(self, request: Request, campaign_id: int, entry_id: int, criterion_id: int) -> Response:
        viewer = Viewer.of(request)
        discussion = read.unit_discussion(viewer, read.adjudication_unit(viewer, campaign_id, entry_id, criterion_id))
        return Response(UnitDiscussionSerializer(discussion).data)


class UnitCaseInputSerializer(CaseContentSerializer):
    source = serializers.ChoiceField(  # type: ignore[assignment]  # the key is "source"; the metaclass takes it out of the class
        choices=[("decision", "decision"), ("discussion", "discussion")],
        required=False,
        default="decision",
        help_text="decision: the unit's newest adjudication (its verdict is the case's); discussion: the experts' discussion of it.",
    )
    publish = serializers.BooleanField(required=False, default=False)


class UnitCaseView(APIView):
    """Write a case from a unit's newest decision or from its discussion (senior reviewers and admins who did not rate it)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(request=UnitCaseInputSerializer, responses={201: CaseSerializer})
    def post(self, request: Request, campaign_id: int, entry_id: int, criterion_id: int) -> Response:
        viewer = Viewer.of(request)
        found = read.unit_case(viewer, campaign_id, entry_id, criterion_id)
        entry, criterion, decision = found.unit.entry, found.unit.criterion, found.decision
        form = UnitCaseInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data, user = form.validated_data, signed_in(request)
        if data["source"] == "decision":
            if decision is None:
                raise NotFound(_("This unit has no decision yet: decide it first, or write the case from its discussion."))
            case = case_from_adjudication(author=user, adjudication=decision, content=form.content(), publish=data["publish"])
        else:
            case = case_from_discussion(
                author=user, campaign_response=entry, criterion=criterion, content=form.content(), publish=data["publish"]
            )
        read.entries_shown(viewer, [entry.pk], via="api-case-writing")
        return Response(CaseSerializer(case).data, status=201)


class JudgmentImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100)
    campaign = serializers.CharField(max_length=200)
    version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    create_experts = serializers.BooleanField(required=False, default=False)


class ImportedJudgmentsSerializer(serializers.Serializer):
    campaign = serializers.CharField(source="campaign.name")
    campaign_id = serializers.IntegerField(source="campaign.pk")
    campaign_created = serializers.BooleanField(help_text="The import made the campaign (else it added to an existing one).")
    responses_added = serializers.IntegerField(help_text="Responses the import added to the campaign.")
    assignments = serializers.IntegerField(help_text="Submitted assignments written.")
    judgments = serializers.IntegerField(help_text="Judgments written.")
    experts_created = serializers.ListField(child=serializers.CharField(), help_text="Usernames of the experts the import made.")


@extend_schema_view(post=extend_schema(request=JudgmentImportSerializer, responses={201: ImportedJudgmentsSerializer}))
class ImportJudgmentsView(FileImportView[JudgmentImportOutcome]):
    """Import human judgments made elsewhere (same rules and messages as `import_judgments`)."""

    input_serializer = JudgmentImportSerializer

    def run(self, data: dict[str, Any], user: User) -> JudgmentImportOutcome:
        return import_judgments(
            source=data["file"],
            dataset_name=data["dataset"],
            campaign_name=data["campaign"],
            version_label=data.get("version") or None,
            create_experts=data["create_experts"],
            created_by=user,
            name=data["file"].name,
        )

    def respond(self, outcome: JudgmentImportOutcome) -> Response:
        return Response(ImportedJudgmentsSerializer(outcome).data, status=201)


class PolicyChangeSerializer(serializers.Serializer):
    changed_at = serializers.DateTimeField()
    changed_by = serializers.CharField(source="changed_by.username", default=None, allow_null=True)
    reason = serializers.CharField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField()


class ReleasePolicySerializer(serializers.Serializer):
    dataset = serializers.CharField(source="dataset.name")
    threshold = serializers.FloatField()
    min_pairs_per_dimension = serializers.IntegerField()
    min_pairs_per_ability = serializers.IntegerField()
    must_clear = serializers.ChoiceField(choices=ReleasePolicy.Clears.choices)
    alt_test_epsilon = serializers.FloatField(help_text="Cost–benefit margin ε of the alternative annotator test (0 ≤ ε < 1).")
    is_default = serializers.SerializerMethodField(help_text="True when no admin has set the policy: the defaults apply.")
    updated_by = serializers.SerializerMethodField()
    updated_at = serializers.SerializerMethodField()
    history = serializers.SerializerMethodField(help_text="Every change, newest first, with before, after and the reason.")

    def get_is_default(self, policy: ReleasePolicy) -> bool:
        return policy.pk is None

    @extend_schema_field(OpenApiTypes.STR)
    def get_updated_by(self, policy: ReleasePolicy) -> str | None:
        return policy.updated_by.username if policy.pk and policy.updated_by else None

    @extend_schema_field(OpenApiTypes.DATETIME)
    def get_updated_at(self, policy: ReleasePolicy) -> str | None:
        return serializers.DateTimeField().to_representation(policy.updated_at) if policy.pk else None

    @extend_schema_field(PolicyChangeSerializer(many=True))
    def get_history(self, policy: ReleasePolicy) -> Any:
        """From the history the read model gave (`history` in the context): no query here."""
        return PolicyChangeSerializer(self.context["history"], many=True).data


class ReleasePolicyChangeSerializer(RefusesUnknownFields):
    threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
    min_pairs_per_dimension = serializers.IntegerField(required=False, min_value=0, max_value=1_000_000)
    min_pairs_per_ability = serializers.IntegerField(required=False, min_value=0, max_value=1_000_000)
    must_clear = serializers.ChoiceField(choices=ReleasePolicy.Clears.choices, required=False)
    alt_test_epsilon = serializers.FloatField(
        required=False, min_value=0, help_text="Cost–benefit margin ε of the alternative annotator test, from 0 up to (not including) 1."
    )
    reason = serializers.CharField(help_text="Why the policy changes: kept in its history.")


class ReleasePolicyView(APIView):
    """A dataset's release policy and its history (staff, GET); an admin changes it with a reason (PUT).

    The dataset is named by its name or its id. PUT takes any of the policy fields (the others stay)
    and a required `reason`; the change is audited with the policy before and after.
    """

    permission_classes = [role_permission(*STAFF_ROLES)]

    @extend_schema(responses=ReleasePolicySerializer)
    def get(self, request: Request, name: str) -> Response:
        viewer = Viewer.of(request)
        return _policy_answer(read.release_policy(viewer, read.policy_dataset(viewer, name)))

    @extend_schema(request=ReleasePolicyChangeSerializer, responses=ReleasePolicySerializer)
    def put(self, request: Request, name: str) -> Response:
        viewer = Viewer.of(request)
        dataset = read.policy_dataset(viewer, name, to_change=True)
        fields = valid_body(ReleasePolicyChangeSerializer, request)
        reason = fields.pop("reason")
        policy = change_release_policy(dataset=dataset, admin=signed_in(request), reason=reason, **fields)
        return _policy_answer(read.release_policy(viewer, dataset, policy=policy))


def _policy_answer(screen: read.PolicyScreen) -> Response:
    return Response(ReleasePolicySerializer(screen.policy, context={"history": screen.history}).data)


class GateSerializer(serializers.ModelSerializer):
    report = serializers.IntegerField(source="report_id")
    report_url = serializers.SerializerMethodField()
    campaign = serializers.CharField(source="campaign.name")
    min_pairs_per_ability = serializers.IntegerField(source="policy.min_pairs_per_ability", default=None, allow_null=True)
    must_clear = serializers.CharField(source="policy.must_clear", default=None, allow_null=True)
    policy = serializers.JSONField(help_text="The release policy the gate was decided under.")
    ci_items = serializers.IntegerField(
        source="items", allow_null=True, default=None, help_text="Items the CI resampled (all of an item's responses together)."
    )
    ci_experts = serializers.IntegerField(
        allow_null=True,
        default=None,
        help_text="Experts the CI resampled with the items (all of an expert's votes together); null when it resampled items alone.",
    )

    class Meta:
        model = ReleaseGate
        fields = [
            "passed",
            "agreement_rate",
            "ci_low",
            "ci_items",
            "ci_experts",
            "threshold",
            "must_clear",
            "min_pairs_per_dimension",
            "min_pairs_per_ability",
            "reasons",
            "policy",
            "report",
            "report_url",
            "campaign",
            "created_at",
        ]

    def get_report_url(self, gate: ReleaseGate) -> str:
        return reverse("validation-report", args=[gate.report_id], request=self.context.get("request"))


class VersionGateSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version.pk")
    dataset = serializers.CharField(source="version.dataset.name")
    label = serializers.CharField(source="version.label")  # type: ignore[assignment]  # the key is "label"; the metaclass takes it out of the class
    gate = GateSerializer(allow_null=True, help_text="The gate of the newest official report; null when there is none.")
    current_policy = serializers.JSONField(source="policy")
    policy_changed_since = serializers.BooleanField(
        source="policy_changed", help_text="The policy now differs from the one the gate was decided under."
    )


class VersionGateView(APIView):
    """The release decision of a dataset version: the gate of its newest official (non-exploratory) report."""

    permission_classes = [role_permission(*STAFF_ROLES)]

    @extend_schema(responses=VersionGateSerializer)
    def get(self, request: Request, version_id: int) -> Response:
        found = read.version_gate(Viewer.of(request), version_id)
        if found.closed:  # the decision summarises a report: closed while it counts responses the caller judges blind
            raise PermissionDenied(found.closed)
        return Response(VersionGateSerializer(found, context={"request": request}).data)


# --- judge–expert alignment across judge versions -----------------------------------------------------


class AlignmentChangeSerializer(ReportPart):
    """The paired change in agreement from one judge version to another, on the units both judged (n), resampling items."""

    class Meta:
        dataclass = AgreementChange


class JudgeAlignmentSerializer(ReportPart):
    class Meta:
        dataclass = JudgeAlignment


class AlignmentRowSerializer(serializers.Serializer):
    judge = serializers.CharField(source="version.judge")
    run = serializers.CharField(source="version.label")
    rubric_version = serializers.CharField(source="version.rubric_version", help_text="The dataset version the judge runs judged.")
    made_at = serializers.DateTimeField(source="version.made_at")
    endpoint = serializers.CharField(
        source="version.endpoint", allow_null=True, help_text="Made on the platform: the endpoint; null when imported."
    )
    template = serializers.CharField(source="version.template", allow_null=True, help_text="Made on the platform: the template revision.")
    runs = serializers.IntegerField(help_text="Judge runs compared (one per model of the campaign).")
    stale_verdicts = serializers.IntegerField(help_text="Verdicts left out: their criterion changed meaning since.")
    alignment = JudgeAlignmentSerializer(allow_null=True)
    key = serializers.CharField(source="version.key", help_text="The judge version: judge/run@rubric version (for `before`, `after`).")
    previous = serializers.CharField(
        allow_null=True,
        help_text="The same judge's version before, the change is from (judge/run@rubric version); null for the judge's first.",
    )
    change = AlignmentChangeSerializer(allow_null=True, help_text="From `previous`, on the units both judged; null without one.")


class AlignmentComparisonSerializer(serializers.Serializer):
    """The change in agreement from one chosen judge version to another (`?before=KEY&after=KEY`)."""

    before = serializers.CharField(source="before.key")
    after = serializers.CharField(source="after.key")
    change = AlignmentChangeSerializer()


class CampaignAlignmentSerializer(serializers.Serializer):
    campaign = serializers.CharField(source="campaign.name")
    campaign_id = serializers.IntegerField(source="campaign.pk")
    version = serializers.CharField(source="campaign.version.label")
    gold_units = serializers.IntegerField()
    rows = AlignmentRowSerializer(many=True, help_text="Judge versions with units of the blind test, in the order they were made.")
    left_out = serializers.ListField(
        source="left_out_keys",
        child=serializers.CharField(),
        help_text="Judge versions with no unit of the blind test: not compared (judge/run@rubric version).",
    )
    comparison = AlignmentComparisonSerializer(allow_null=True, help_text="The two versions asked for, else null.")
    alt_test_epsilon = serializers.FloatField(help_text="The release policy's margin ε of every row's alternative annotator test.")


class BlindTestChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()


class DatasetAlignmentSerializer(serializers.Serializer):
    dataset = serializers.CharField(source="dataset.name")
    resamples = serializers.IntegerField()
    seed = serializers.IntegerField()
    campaigns = CampaignAlignmentSerializer(
        many=True, help_text="The blind test asked for (`?campaign=<id>`), else the newest; empty when the dataset has none."
    )
    blind_tests = BlindTestChoiceSerializer(
        many=True, help_text="Every blind test with a golden standard, newest first: ask for each by id."
    )


class AlignmentView(APIView):
    """Every judge version of a dataset against one blind test's golden standard (the agreement report's figures).

    One blind test a call (`?campaign=<id>`, by default the newest), with every blind test listed to
    ask for next: each is computed with its resamples on request.
    """

    permission_classes = [IsAdmin]

    validation_error_detail = _("no comparison")

    @extend_schema(responses=DatasetAlignmentSerializer, parameters=AlignmentFilters.parameters())
    def get(self, request: Request, name: str) -> Response:
        return Response(DatasetAlignmentSerializer(read.alignment(Viewer.of(request), name, request.query_params, api=True).page).data)


# --- the gold-set builder -------------------------------------------------------------------------


class HolderSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Campaign.Kind.choices, help_text="gold_set, calibration, or blind_test (a hidden gold check).")
    name = serializers.CharField()


class CandidateSerializer(serializers.Serializer):
    response_id = serializers.IntegerField()
    question_id = serializers.CharField()
    difficulty = serializers.CharField()
    abilities = serializers.ListField(child=serializers.CharField())
    model = serializers.CharField()
    excerpt = serializers.CharField()
    free = serializers.BooleanField(help_text="No gold set, hidden gold check or calibration set holds it (nor its text).")
    held_by = HolderSerializer(many=True)
    criteria = serializers.IntegerField()
    settled = serializers.IntegerField(help_text="Criteria with a verdict a closed blind test settled (unanimous or adjudicated).")
    missing_positions = serializers.ListField(child=serializers.IntegerField(), help_text="1-based positions without one.")
    pickable = serializers.BooleanField()


class CandidatePageSerializer(serializers.Serializer):  # a page of validation.gold_builder.CandidateList
    count = serializers.IntegerField(source="page.paginator.count")
    page = serializers.IntegerField(source="page.number")
    pages = serializers.IntegerField(source="page.paginator.num_pages")
    results = CandidateSerializer(source="rows", many=True)


class GoldBuilderCandidatesView(APIView):
    """The gold-set builder's list: a version's responses, each free or not, with its settled verdicts (admins)."""

    permission_classes = [IsAdmin]

    @extend_schema(parameters=[CandidateQuerySerializer, *CandidateFilters.parameters()], responses=CandidatePageSerializer)
    def get(self, request: Request) -> Response:
        query = valid_query(CandidateQuerySerializer, request)
        filters = CandidateFilters(request.query_params).check().builder_filters()
        listing = read.gold_candidates(Viewer.of(request), query["version"], filters, query["page"])
        return Response(CandidatePageSerializer(listing).data)


class GoldBuilderOutcomeSerializer(serializers.Serializer):
    campaign = serializers.IntegerField(source="campaign.pk")
    name = serializers.CharField(source="campaign.name")
    kind = serializers.CharField(source="campaign.kind")
    responses = serializers.IntegerField()
    items = serializers.IntegerField()


class GoldBuilderCreateView(APIView):
    """Create a gold set or calibration set from free responses and their settled verdicts (the page's service)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=GoldBuilderCreateSerializer, responses={201: GoldBuilderOutcomeSerializer})
    def post(self, request: Request) -> Response:
        d = valid_body(GoldBuilderCreateSerializer, request)
        spec = BuiltSet.from_input(d)
        outcome = create_set_from_settled_verdicts(
            version=d["version"], response_ids=d["responses"], spec=spec, created_by=signed_in(request)
        )
        return Response(GoldBuilderOutcomeSerializer(outcome).data, status=status.HTTP_201_CREATED)


class GoldDraftCreateSerializer(GoldBuilderCreateSerializer):
    pass


class GoldDraftSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    version = serializers.IntegerField(source="version_id")
    campaign = serializers.IntegerField(source="campaign_id", allow_null=True, help_text="The set it became; null until finalised.")


class DraftResponseSerializer(TypedSerializer[ResponseSheet]):
    class Meta:
        dataclass = ResponseSheet
        exclude = ("dialogue",)


class GoldDraftDetailSerializer(serializers.Serializer):
    draft = GoldDraftSerializer()
    responses = DraftResponseSerializer(many=True, help_text="No model names: the reviewers judge the text.")


class DraftVerdictInputSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    hit = serializers.BooleanField()
    explanation = serializers.CharField(allow_blank=True, help_text="Shown to experts as calibration feedback on a miss; required.")


class DraftVerdictsSerializer(serializers.Serializer):
    response = serializers.IntegerField()
    verdicts = DraftVerdictInputSerializer(many=True, allow_empty=False)


class DraftVerdictsSavedSerializer(serializers.Serializer):
    saved = serializers.IntegerField()


class GoldDraftCreateView(APIView):
    """Start a draft of free responses whose verdicts senior reviewers write (admins)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=GoldDraftCreateSerializer, responses={201: GoldDraftSerializer})
    def post(self, request: Request) -> Response:
        d = valid_body(GoldDraftCreateSerializer, request)
        draft = start_gold_draft(
            version=d["version"], response_ids=d["responses"], spec=BuiltSet.from_input(d), created_by=signed_in(request)
        )
        return Response(GoldDraftSerializer(draft).data, status=status.HTTP_201_CREATED)


class GoldDraftDetailView(APIView):
    """A draft's responses and criteria with the verdicts written so far (senior reviewers and admins)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(responses=GoldDraftDetailSerializer)
    def get(self, request: Request, draft_id: int) -> Response:
        viewer = Viewer.of(request)
        draft = read.gold_draft(viewer, draft_id)
        sheets = read.gold_draft_sheets(viewer, draft)
        return Response(GoldDraftDetailSerializer({"draft": draft, "responses": sheets}).data)


class GoldDraftVerdictsView(APIView):
    """Write verdicts with their explanations on one response of a draft (senior reviewers and admins)."""

    permission_classes = [IsAdjudicator]

    @extend_schema(request=DraftVerdictsSerializer, responses={200: DraftVerdictsSavedSerializer})
    def post(self, request: Request, draft_id: int) -> Response:
        draft = read.gold_draft(Viewer.of(request), draft_id)
        d = valid_body(DraftVerdictsSerializer, request)
        verdicts = [(v["criterion"], v["hit"], v["explanation"]) for v in d["verdicts"]]
        saved = write_draft_verdicts(draft=draft, response_id=d["response"], verdicts=verdicts, by=signed_in(request))
        return Response(DraftVerdictsSavedSerializer({"saved": saved}).data)


class GoldDraftFinaliseView(APIView):
    """Create the draft's set once every criterion has a written verdict (admins)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=None, responses={201: GoldBuilderOutcomeSerializer})
    def post(self, request: Request, draft_id: int) -> Response:
        outcome = finalise_gold_draft(draft=read.gold_draft(Viewer.of(request), draft_id), by=signed_in(request))
        return Response(GoldBuilderOutcomeSerializer(outcome).data, status=status.HTTP_201_CREATED)


class PlannedDesignSerializer(serializers.Serializer):
    share = serializers.FloatField()
    raters = serializers.IntegerField()
    items = serializers.IntegerField()
    responses = serializers.IntegerField()
    assignments = serializers.IntegerField()
    judgments = serializers.IntegerField()
    expert_hours = serializers.FloatField()
    money = serializers.FloatField()
    agreement_half_width = serializers.FloatField(allow_null=True, help_text="Expected 95% half-width of the agreement (a share).")
    extended = serializers.BooleanField(help_text="With extra raters where the verdicts split.")
    extended_responses = serializers.IntegerField(help_text="Expected responses given two more raters.")
    difference_half_width = serializers.FloatField(
        allow_null=True, help_text="Expected 95% half-width of a model difference (score points); null when undefined."
    )


class TierTimeSerializer(serializers.Serializer):
    tier = serializers.IntegerField()
    seconds_per_criterion = serializers.FloatField()
    assignments = serializers.IntegerField()


class PlanSerializer(serializers.Serializer):
    pilot = serializers.CharField(allow_null=True)
    assumed = serializers.BooleanField(help_text="True when no pilot was given: the figures are assumptions.")
    pilot_text = serializers.CharField()
    pool = serializers.IntegerField()
    seconds_per_criterion = serializers.FloatField()
    seconds_measured_on = serializers.IntegerField(help_text="Submitted assignments the time was measured on; 0: assumed.")
    seconds_by_tier = TierTimeSerializer(many=True, help_text="The measured median per expert tier (the hours use the measured mix).")
    dataset_items = serializers.IntegerField()
    simulations = serializers.IntegerField()
    reduced = serializers.BooleanField(help_text="Fewer simulations than asked, to answer in time.")
    precision = serializers.FloatField(help_text="Relative Monte-Carlo error of each half-width.")
    difference_reason = serializers.CharField(allow_blank=True)
    designs = PlannedDesignSerializer(many=True)
    recommended = PlannedDesignSerializer(allow_null=True)
    target_met = serializers.BooleanField()


class PlannerView(APIView):
    """Plan a blind test from a pilot or assumptions: expected half-widths and costs of a grid of designs (nothing is written)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=PlanRequestSerializer, responses={200: PlanSerializer})
    def post(self, request: Request) -> Response:
        plan = read.blind_test_plan(Viewer.of(request), valid_body(PlanRequestSerializer, request), agreement_in_points=False)
        return Response(PlanSerializer(plan.json).data)


# --- the judgments' export, filtered or incremental -----------------------------------------------------


@extend_schema(
    parameters=[
        OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=["csv", "jsonl"], description="The file's format."),
        *ExportFilters.parameters(),
    ],
    responses={
        (200, "text/csv"): OpenApiTypes.STR,
        (200, "application/x-ndjson"): OpenApiTypes.STR,
    },
)
class JudgmentsExportView(APIView):
    """A campaign's submitted judgments as CSV or JSON Lines, streamed: all of them, or those a filter keeps.

    The same file, columns and rules as the page's export (`/validation/campaigns/<id>/export/judgments.csv`):
    admins only, nothing from a campaign the caller is blind to, each response recorded as shown.
    """

    permission_classes = [IsAdmin]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        return super().perform_content_negotiation(request, force=True)  # the body is a file, whatever Accept says

    def get(self, request: Request, campaign_id: int, fmt: str) -> HttpResponseBase:
        if fmt not in ("csv", "jsonl"):
            raise NotFound(_("The judgments export is judgments.csv or judgments.jsonl."))
        viewer = Viewer.of(request)
        campaign = read.campaign_of(viewer, campaign_id)
        try:
            chunks = read.export_stream(viewer, campaign, "judgments", fmt, request.query_params)
        except BadFilter as exc:
            raise serializers.ValidationError({"detail": str(exc)}) from exc
        return attachment(chunks, f"campaign-{campaign.pk}-judgments", fmt)
