"""API of the knowledge library (under /api/v1/annotation/library/): list, search, create, review and publish.

The same services and visibility rules as the pages (`annotation.knowledge.selectors`): experts
read published FAQ entries and the cases allowed them, without any staff field (status, author,
source, cause); staff read everything except the cases of a campaign they rate in while it runs.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.knowledge import selectors
from annotation.models import CampaignResponse, Case, DatasetGuidelines, FaqEntry
from annotation.services import knowledge as services
from annotation.services.guidelines import current_dataset_guidelines, publish_dataset_guidelines, render_guidelines
from heartbench_core.api import ComputedListView, FileImportView, choice_param, enum_param, uuid_param
from heartbench_core.api_changes import RefusesUnknownFields
from heartbench_core.blindness import refuse_response
from heartbench_core.http import signed_in
from heartbench_core.models import Criterion, Dataset
from heartbench_core.roles import STAFF_ROLES, Role, role_permission

CanRead = role_permission(*STAFF_ROLES, Role.EXPERT)
IsStaff = role_permission(*STAFF_ROLES)
CanWriteFaq = role_permission(*services.FAQ_WRITERS)
CanWriteCases = role_permission(*services.CASE_WRITERS)
CanPublishGuidelines = role_permission(Role.ADMIN, Role.RUBRIC_AUTHOR)


def _as_expert(request: Request) -> bool:
    return not selectors.reads_as_staff(signed_in(request))


# --- serializers ------------------------------------------------------------------------------------


class StaffFieldsMixin:
    """Fields named in `staff_fields` are left out of the answer for experts (they are optional in the schema)."""

    staff_fields: tuple[str, ...] = ()

    def to_representation(self, instance: Any) -> dict[str, Any]:
        body = super().to_representation(instance)  # type: ignore[misc]
        if self.context.get("as_expert"):  # type: ignore[attr-defined]
            for name in self.staff_fields:
                body.pop(name, None)
        return body


class FaqEntrySerializer(StaffFieldsMixin, serializers.ModelSerializer):
    """A FAQ entry; `status`, `author`, `reviewer`, `review_note`, `replaces` and the times of its workflow are staff-only."""

    staff_fields = ("status", "author", "reviewer", "review_note", "replaces", "created_at", "updated_at", "submitted_at", "retired_at")
    dataset = serializers.CharField(source="dataset.name")
    html = serializers.SerializerMethodField(help_text="The answer rendered and sanitised (Markdown).")
    criteria = serializers.SerializerMethodField(
        help_text="Lineage keys of the criteria it is about (they follow a criterion across versions)."
    )
    author = serializers.CharField(source="author.username", required=False)
    reviewer = serializers.CharField(source="reviewer.username", allow_null=True, default=None, required=False)
    replaces = serializers.IntegerField(source="replaces_id", allow_null=True, required=False)

    class Meta:
        model = FaqEntry
        fields = [
            "id",
            "uid",
            "dataset",
            "question",
            "answer",
            "html",
            "tags",
            "abilities",
            "criteria",
            "published_at",
            "status",
            "author",
            "reviewer",
            "review_note",
            "replaces",
            "created_at",
            "updated_at",
            "submitted_at",
            "retired_at",
        ]
        extra_kwargs = {
            name: {"required": False} for name in ("status", "review_note", "created_at", "updated_at", "submitted_at", "retired_at")
        }

    def get_html(self, entry: FaqEntry) -> str:
        return str(render_guidelines(entry.answer))

    def get_criteria(self, entry: FaqEntry) -> list[str]:
        return [str(lineage.key) for lineage in entry.lineages.all()]


class FaqContentSerializer(RefusesUnknownFields):
    question = serializers.CharField(allow_blank=True, max_length=1000)
    answer = serializers.CharField(allow_blank=True, max_length=50_000, help_text="Markdown.")
    tags = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list, max_length=100)
    abilities = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list, max_length=100)
    criteria = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, default=list, max_length=200, help_text="Criterion lineage keys."
    )

    def content(self) -> services.FaqContent:
        data = self.validated_data
        return services.FaqContent(data["question"], data["answer"], data["tags"], data["abilities"], data["criteria"])


class FaqInputSerializer(FaqContentSerializer):
    dataset = serializers.CharField(required=False, help_text="The dataset's name (on creation).")


class FaqReviewSerializer(serializers.Serializer):
    publish = serializers.BooleanField(help_text="True publishes the entry; false sends it back to its author (a note is then required).")
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class CaseSerializer(StaffFieldsMixin, serializers.ModelSerializer):
    """A case; where it came from, its cause, status and authors are staff-only (experts never learn a case's source)."""

    staff_fields = (
        "status",
        "cause",
        "source",
        "invented",
        "source_campaign",
        "source_response",
        "source_adjudication",
        "author",
        "published_by",
        "created_at",
        "updated_at",
        "retired_at",
    )
    dataset = serializers.CharField(source="dataset.name")
    criterion = serializers.UUIDField(source="lineage_id", help_text="The criterion's lineage key.")
    html = serializers.SerializerMethodField(help_text="The reasoning rendered and sanitised (Markdown).")
    source_campaign = serializers.CharField(source="source_campaign.name", allow_null=True, default=None, required=False)
    source_response = serializers.CharField(
        source="source_response.public_id", allow_null=True, default=None, required=False, help_text="The response's opaque id."
    )
    source_adjudication = serializers.IntegerField(source="source_adjudication_id", allow_null=True, required=False)
    author = serializers.CharField(source="author.username", required=False)
    published_by = serializers.CharField(source="published_by.username", allow_null=True, default=None, required=False)

    class Meta:
        model = Case
        fields = [
            "id",
            "uid",
            "dataset",
            "criterion",
            "criterion_revision",
            "criterion_text",
            "title",
            "excerpt",
            "hit",
            "reasoning",
            "html",
            "tags",
            "published_at",
            "status",
            "cause",
            "source",
            "invented",
            "source_campaign",
            "source_response",
            "source_adjudication",
            "author",
            "published_by",
            "created_at",
            "updated_at",
            "retired_at",
        ]
        extra_kwargs = {
            name: {"required": False} for name in ("status", "cause", "source", "invented", "created_at", "updated_at", "retired_at")
        }

    def get_html(self, case: Case) -> str:
        return str(render_guidelines(case.reasoning))


class CaseContentSerializer(RefusesUnknownFields):
    title = serializers.CharField(allow_blank=True, max_length=1000)
    excerpt = serializers.CharField(allow_blank=True, max_length=5000)
    hit = serializers.BooleanField(
        allow_null=True, required=False, default=None, help_text="The decision (from a calibration item: its reference verdict)."
    )
    reasoning = serializers.CharField(allow_blank=True, max_length=50_000, help_text="Markdown.")
    cause = serializers.ChoiceField(choices=Case.Cause.choices, required=False, default=Case.Cause.OTHER)
    tags = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list, max_length=100)
    invented = serializers.BooleanField(required=False, default=False)

    def content(self) -> services.CaseContent:
        d = self.validated_data
        return services.CaseContent(d["title"], d["excerpt"], d["hit"], d["reasoning"], d["cause"], d["tags"], d["invented"])


class CaseInputSerializer(CaseContentSerializer):
    criterion = serializers.UUIDField(required=False, help_text="A criterion's lineage key (a case written from scratch).")
    calibration_entry = serializers.IntegerField(required=False, help_text="A calibration item (campaign response id)…")
    calibration_criterion = serializers.IntegerField(required=False, help_text="…and the id of its criterion.")
    publish = serializers.BooleanField(required=False, default=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        by_key = attrs.get("criterion") is not None
        by_item = attrs.get("calibration_entry") is not None and attrs.get("calibration_criterion") is not None
        if by_key == by_item:
            raise serializers.ValidationError({"criterion": ["Give either criterion, or calibration_entry and calibration_criterion."]})
        return attrs


class DatasetGuidelinesRevisionSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", allow_null=True, default=None)
    html = serializers.SerializerMethodField()

    class Meta:
        model = DatasetGuidelines
        fields = ["revision", "body", "html", "change_note", "author", "created_at"]

    def get_html(self, guidelines: DatasetGuidelines) -> str:
        return str(render_guidelines(guidelines.body))


class GuidelinesInputSerializer(serializers.Serializer):
    body = serializers.CharField(allow_blank=True, max_length=100_000, help_text="Markdown.")
    change_note = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)


class SegmentSerializer(serializers.Serializer):
    text = serializers.CharField()
    marked = serializers.BooleanField(help_text="True where the query matched.")


class HitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[("faq", "faq"), ("case", "case"), ("guidelines", "guidelines")])
    id = serializers.SerializerMethodField(help_text="The FAQ entry's or case's id (null for a guidelines section).")
    title = SegmentSerializer(many=True)
    snippet = SegmentSerializer(many=True)
    score = serializers.FloatField(help_text="Relevance (docs/knowledge.md, Search): larger is better.")
    heading = serializers.CharField(help_text="For a guidelines section: which guidelines.")

    def get_id(self, hit: selectors.Hit) -> int | None:
        found = hit.faq or hit.case
        return found.pk if found is not None else None


class SearchResultsSerializer(serializers.Serializer):
    query = serializers.CharField()
    terms = serializers.SerializerMethodField(help_text="The terms the query was split into (normalised).")
    faq_total = serializers.IntegerField(help_text="FAQ entries that match (the list holds the best of them).")
    case_total = serializers.IntegerField()
    guidelines = HitSerializer(many=True)
    faq = HitSerializer(many=True)
    cases = HitSerializer(many=True)

    def get_terms(self, results: selectors.SearchResults) -> list[str]:
        return [t.text for t in results.terms]


# --- views -------------------------------------------------------------------------------------------


def _dataset(name: str | None) -> Dataset | None:
    return get_object_or_404(Dataset, name=name) if name else None


def _as_expert_lists(rows: QuerySet[Any], dataset: Dataset | None, lineage_lookup: str, key: Any) -> QuerySet[Any]:
    """What an expert's list shows of the entries visible to them: one dataset's, one criterion's, newest published first."""
    rows = rows.select_related("dataset")
    rows = rows.filter(dataset=dataset) if dataset else rows
    rows = rows.filter(**{lineage_lookup: key}) if key else rows
    return rows.order_by("-published_at", "-id")


LIST_PARAMETERS = [
    OpenApiParameter("dataset", str, description="A dataset's name."),
    OpenApiParameter("key", OpenApiTypes.UUID, description="A criterion's lineage key."),
]


class FaqListView(ComputedListView):
    """FAQ entries (experts: published ones); writers create drafts."""

    serializer_class = FaqEntrySerializer

    def get_permissions(self) -> list[Any]:
        return [CanWriteFaq()] if self.request.method == "POST" else [CanRead()]

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "as_expert": _as_expert(self.request)}

    @extend_schema(
        parameters=[*LIST_PARAMETERS, enum_param("status", FaqEntry.Status.values, "Staff only.")], responses=FaqEntrySerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        status = choice_param(request, "status", FaqEntry.Status.values) or ""
        key, dataset = uuid_param(request, "key"), _dataset(request.query_params.get("dataset"))
        if _as_expert(request):
            rows: QuerySet[FaqEntry] = _as_expert_lists(selectors.visible_faq(user, as_expert=True), dataset, "lineages", key)
        else:
            rows = selectors.faq_list(user, dataset=dataset, status=status, lineage_key=key)
        return self.paginated(rows.prefetch_related("lineages"))  # type: ignore[arg-type]

    @extend_schema(request=FaqInputSerializer, responses={201: FaqEntrySerializer})
    def post(self, request: Request) -> Response:
        form = FaqInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        dataset = _dataset(form.validated_data.get("dataset"))
        if dataset is None:
            raise serializers.ValidationError({"dataset": ["This field is required."]})
        entry = services.create_faq_entry(author=signed_in(request), dataset=dataset, content=form.content())
        return Response(FaqEntrySerializer(entry).data, status=201)


class FaqDetailView(APIView):
    """One FAQ entry; its author edits a draft (PATCH)."""

    def get_permissions(self) -> list[Any]:
        return [CanWriteFaq()] if self.request.method == "PATCH" else [CanRead()]

    @extend_schema(responses=FaqEntrySerializer)
    def get(self, request: Request, pk: int) -> Response:
        as_expert = _as_expert(request)
        entry = selectors.faq_entry(signed_in(request), pk, as_expert=as_expert)
        if as_expert:
            services.record_open(user=signed_in(request), faq=entry)
        return Response(FaqEntrySerializer(entry, context={"as_expert": as_expert}).data)

    @extend_schema(request=FaqContentSerializer, responses=FaqEntrySerializer)
    def patch(self, request: Request, pk: int) -> Response:
        entry = selectors.faq_entry(signed_in(request), pk, as_expert=False)
        if entry.author_id != signed_in(request).pk:
            raise PermissionDenied(gettext("Only its author edits a FAQ entry."))
        form = FaqContentSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return Response(FaqEntrySerializer(services.edit_faq_entry(entry=entry, editor=signed_in(request), content=form.content())).data)


class _FaqAction(APIView):
    permission_classes = [CanWriteFaq]

    def entry(self, request: Request, pk: int) -> FaqEntry:
        return selectors.faq_entry(signed_in(request), pk, as_expert=False)


class FaqSubmitView(_FaqAction):
    """Send a draft to review (its author)."""

    @extend_schema(request=None, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(FaqEntrySerializer(services.submit_faq_entry(entry=self.entry(request, pk), author=signed_in(request))).data)


class FaqReviewView(_FaqAction):
    """Publish an entry in review, or send it back with a note (a writer other than its author)."""

    @extend_schema(request=FaqReviewSerializer, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        entry = self.entry(request, pk)
        if entry.author_id == signed_in(request).pk:
            raise PermissionDenied(gettext("Someone other than its author reviews a FAQ entry."))
        form = FaqReviewSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        entry = services.review_faq_entry(
            entry=self.entry(request, pk),
            reviewer=signed_in(request),
            approve=form.validated_data["publish"],
            note=form.validated_data["note"],
        )
        return Response(FaqEntrySerializer(entry).data)


class FaqRetireView(_FaqAction):
    """Take an entry out of use."""

    @extend_schema(request=None, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(FaqEntrySerializer(services.retire_faq_entry(entry=self.entry(request, pk), by=signed_in(request))).data)


class FaqReviseView(_FaqAction):
    """Start a new draft that replaces a published entry once it is reviewed and published."""

    @extend_schema(request=None, responses={201: FaqEntrySerializer})
    def post(self, request: Request, pk: int) -> Response:
        draft = services.revise_faq_entry(entry=self.entry(request, pk), author=signed_in(request))
        return Response(FaqEntrySerializer(draft).data, status=201)


class CaseListView(ComputedListView):
    """Cases (experts: those the library's rules allow them); senior reviewers and admins write them from scratch or from a calibration item."""

    serializer_class = CaseSerializer

    def get_permissions(self) -> list[Any]:
        return [CanWriteCases()] if self.request.method == "POST" else [CanRead()]

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "as_expert": _as_expert(self.request)}

    @extend_schema(
        parameters=[*LIST_PARAMETERS, enum_param("status", Case.Status.values, "Staff only.")], responses=CaseSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        status = choice_param(request, "status", Case.Status.values) or ""
        key, dataset = uuid_param(request, "key"), _dataset(request.query_params.get("dataset"))
        if _as_expert(request):
            rows: QuerySet[Case] = _as_expert_lists(selectors.visible_cases(user, as_expert=True), dataset, "lineage_id", key)
        else:
            rows = selectors.case_list(user, dataset=dataset, status=status, lineage_key=key).select_related(
                "source_response", "published_by"
            )
        return self.paginated(rows)  # type: ignore[arg-type]

    @extend_schema(request=CaseInputSerializer, responses={201: CaseSerializer})
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        form = CaseInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if data.get("criterion") is not None:
            criterion = selectors.latest_snapshots([data["criterion"]]).get(str(data["criterion"]))
            if criterion is None:
                raise serializers.ValidationError({"criterion": ["No criterion has this key."]})
            case = services.create_case(author=user, criterion=criterion, content=form.content(), publish=data["publish"])
        else:
            entry = get_object_or_404(CampaignResponse.objects.select_related("campaign", "response"), pk=data["calibration_entry"])
            refuse_response(user, entry.response_id)
            criterion = get_object_or_404(
                Criterion.objects.select_related("lineage"), pk=data["calibration_criterion"], item_id=entry.item_id
            )
            case = services.case_from_calibration(
                author=user, campaign_response=entry, criterion=criterion, content=form.content(), publish=data["publish"]
            )
        return Response(CaseSerializer(case).data, status=201)


class CaseDetailView(APIView):
    """One case; senior reviewers and admins edit a draft (PATCH)."""

    def get_permissions(self) -> list[Any]:
        return [CanWriteCases()] if self.request.method == "PATCH" else [CanRead()]

    @extend_schema(responses=CaseSerializer)
    def get(self, request: Request, pk: int) -> Response:
        as_expert = _as_expert(request)
        found = selectors.case(signed_in(request), pk, as_expert=as_expert)
        if as_expert:
            services.record_open(user=signed_in(request), case=found)
        return Response(CaseSerializer(found, context={"as_expert": as_expert}).data)

    @extend_schema(request=CaseContentSerializer, responses=CaseSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        found = selectors.case(signed_in(request), pk, as_expert=False)
        form = CaseContentSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return Response(CaseSerializer(services.edit_case(case=found, editor=signed_in(request), content=form.content())).data)


class CasePublishView(APIView):
    """Publish a draft case."""

    permission_classes = [CanWriteCases]

    @extend_schema(request=None, responses=CaseSerializer)
    def post(self, request: Request, pk: int) -> Response:
        found = selectors.case(signed_in(request), pk, as_expert=False)
        return Response(CaseSerializer(services.publish_case(case=found, by=signed_in(request))).data)


class CaseRetireView(APIView):
    """Take a case out of use."""

    permission_classes = [CanWriteCases]

    @extend_schema(request=None, responses=CaseSerializer)
    def post(self, request: Request, pk: int) -> Response:
        found = selectors.case(signed_in(request), pk, as_expert=False)
        return Response(CaseSerializer(services.retire_case(case=found, by=signed_in(request))).data)


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="Words, in Chinese or English; every term must match.")
    dataset = serializers.CharField(required=False, max_length=200)
    key = serializers.UUIDField(required=False, help_text="The criterion in focus: entries linked to it rank higher.")


class SearchView(APIView):
    """Search FAQ entries, cases and the datasets' current guidelines, ranked, with the matches marked in each snippet."""

    permission_classes = [CanRead]

    @extend_schema(parameters=[SearchQuerySerializer], responses=SearchResultsSerializer)
    def get(self, request: Request) -> Response:
        form = SearchQuerySerializer(data=request.query_params)
        form.is_valid(raise_exception=True)
        dataset = _dataset(form.validated_data.get("dataset"))
        documents = []
        for d in [dataset] if dataset else Dataset.objects.order_by("name"):
            current = current_dataset_guidelines(d)
            if current is not None:
                documents.append((d.name, current.body))
        results = selectors.search(
            signed_in(request),
            form.validated_data["q"],
            as_expert=_as_expert(request),
            dataset=dataset,
            lineage_key=form.validated_data.get("key"),
            guidelines=documents,
        )
        return Response(SearchResultsSerializer(results).data)


class DatasetGuidelinesView(APIView):
    """A dataset's guidelines, every revision newest first (staff); admins and rubric authors publish a new one."""

    def get_permissions(self) -> list[Any]:
        return [CanPublishGuidelines()] if self.request.method == "POST" else [IsStaff()]

    @extend_schema(responses=DatasetGuidelinesRevisionSerializer(many=True))
    def get(self, request: Request, name: str) -> Response:
        dataset = get_object_or_404(Dataset, name=name)
        return Response(DatasetGuidelinesRevisionSerializer(selectors.dataset_guidelines_history(dataset), many=True).data)

    @extend_schema(request=GuidelinesInputSerializer, responses={201: DatasetGuidelinesRevisionSerializer})
    def post(self, request: Request, name: str) -> Response:
        dataset = get_object_or_404(Dataset, name=name)
        form = GuidelinesInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        published = publish_dataset_guidelines(
            dataset=dataset, body=form.validated_data["body"], change_note=form.validated_data["change_note"], author=signed_in(request)
        )
        return Response(DatasetGuidelinesRevisionSerializer(published).data, status=201)


# --- beside the judging page: the expert's own assignment ------------------------------------------------


class PanelQuerySerializer(serializers.Serializer):
    criterion = serializers.IntegerField(required=False, help_text="The criterion in focus (its id, as in the assignment's criteria).")
    q = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="Search words.")


class PanelSerializer(serializers.Serializer):
    criterion = serializers.IntegerField(allow_null=True, help_text="The criterion in focus.")
    faq = FaqEntrySerializer(many=True, help_text="Published FAQ entries on the criterion (by its lineage key, across versions).")
    ability_faq = FaqEntrySerializer(many=True, help_text="Published FAQ entries on the criterion's ability.")
    cases = CaseSerializer(many=True, help_text="Cases on the criterion that the library's rules let the expert read.")
    search = SearchResultsSerializer(allow_null=True, help_text="Results of `q` (null without one).")


class OpenInputSerializer(serializers.Serializer):
    faq = serializers.IntegerField(required=False)
    case = serializers.IntegerField(required=False)
    criterion = serializers.IntegerField(required=False, help_text="The criterion in focus when it was opened.")
    helped = serializers.BooleanField(required=False, allow_null=True, default=None, help_text="The expert says it helped (or not).")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if (attrs.get("faq") is None) == (attrs.get("case") is None):
            raise serializers.ValidationError({"faq": ["Name one entry: faq or case."]})
        return attrs


class OpenSerializer(serializers.Serializer):
    faq = serializers.IntegerField(source="faq_id", allow_null=True)
    case = serializers.IntegerField(source="case_id", allow_null=True)
    helped = serializers.BooleanField(allow_null=True)
    opened_at = serializers.DateTimeField()


class _OwnAssignment(APIView):
    permission_classes = [role_permission(Role.EXPERT)]

    def own(self, request: Request, public_id: str) -> Any:
        from annotation.workspace import selectors as workspace_selectors

        return workspace_selectors.lapsed_or_held_assignment_for_expert(signed_in(request), public_id)

    def focus(self, assignment: Any, criterion_id: int | None) -> Criterion | None:
        if criterion_id is None:
            return None
        return get_object_or_404(Criterion.objects.select_related("lineage"), pk=criterion_id, item_id=assignment.campaign_response.item_id)


class PanelView(_OwnAssignment):
    """The library beside one of the expert's assignments: entries on the criterion in focus, and search (an expert's view)."""

    @extend_schema(parameters=[PanelQuerySerializer], responses=PanelSerializer)
    def get(self, request: Request, public_id: str) -> Response:
        from annotation.services.guidelines import guidelines_in_force

        assignment = self.own(request, public_id)
        form = PanelQuerySerializer(data=request.query_params)
        form.is_valid(raise_exception=True)
        criterion = self.focus(assignment, form.validated_data.get("criterion"))
        user, campaign = signed_in(request), assignment.campaign_response.campaign
        knowledge = selectors.for_criterion(user, criterion, as_expert=True) if criterion else None
        query = (form.validated_data.get("q") or "").strip()
        results = (
            selectors.search(
                user,
                query,
                as_expert=True,
                dataset=campaign.version.dataset,
                lineage_key=criterion.lineage_id if criterion else None,
                guidelines=selectors.guidelines_documents(guidelines_in_force(campaign)),
            )
            if query
            else None
        )
        body = {
            "criterion": criterion.pk if criterion else None,
            "faq": knowledge.faq if knowledge else [],
            "ability_faq": knowledge.ability_faq if knowledge else [],
            "cases": knowledge.cases if knowledge else [],
            "search": results,
        }
        return Response(PanelSerializer(body, context={"as_expert": True}).data)


class PanelOpenView(_OwnAssignment):
    """Record that the expert opened an entry beside this assignment (and, with `helped`, whether it helped)."""

    @extend_schema(request=OpenInputSerializer, responses={201: OpenSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own(request, public_id)
        form = OpenInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data, user = form.validated_data, signed_in(request)
        criterion = self.focus(assignment, data.get("criterion"))
        faq = selectors.faq_entry(user, data["faq"], as_expert=True) if data.get("faq") is not None else None
        case = selectors.case(user, data["case"], as_expert=True) if data.get("case") is not None else None
        campaign = assignment.campaign_response.campaign
        if data["helped"] is None:
            row = services.record_open(
                user=user, faq=faq, case=case, campaign=campaign, lineage_id=criterion.lineage_id if criterion else None
            )
        else:
            row = services.mark_helped(user=user, faq=faq, case=case, campaign=campaign, helped=data["helped"])
        return Response(OpenSerializer(row).data, status=201)


# --- the whole library as JSON Lines ---------------------------------------------------------------------


class ExportView(APIView):
    """The library (`?dataset=` for one dataset's) as `export_library` writes it; without the cases of a campaign you rate in."""

    permission_classes = [IsStaff]

    @extend_schema(
        parameters=[OpenApiParameter("dataset", str, description="A dataset's name.")], responses={(200, "application/x-ndjson"): str}
    )
    def get(self, request: Request) -> HttpResponse:
        from annotation.services.knowledge_io import export_lines

        dataset = _dataset(request.query_params.get("dataset"))
        response = HttpResponse(
            "".join(export_lines(dataset=dataset, viewer=signed_in(request))), content_type="application/x-ndjson; charset=utf-8"
        )
        response["Content-Disposition"] = 'attachment; filename="library.jsonl"'
        return response


class LibraryImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A file export_library wrote.")


class LibraryImportedSerializer(serializers.Serializer):
    guidelines = serializers.IntegerField(help_text="Guidelines revisions imported.")
    faq = serializers.IntegerField(help_text="FAQ entries imported.")
    cases = serializers.IntegerField(help_text="Cases imported.")
    already_present = serializers.IntegerField(help_text="Records already here (same uid, same revision), left as they are.")
    lines = serializers.IntegerField()
    to_review = serializers.IntegerField(help_text="FAQ entries published in the file: imported waiting for a review here.")


@extend_schema_view(post=extend_schema(request=LibraryImportSerializer, responses={201: LibraryImportedSerializer}))
class ImportView(FileImportView[Any]):
    """Import a library file (admins): the same rules and messages as `import_library`; any bad line and nothing is written."""

    input_serializer = LibraryImportSerializer

    def run(self, data: dict[str, Any], user: Any) -> Any:
        from annotation.services.knowledge_io import import_library

        return import_library(source=data["file"], name=data["file"].name)

    def respond(self, outcome: Any) -> Response:
        return Response(LibraryImportedSerializer(outcome).data, status=201)
