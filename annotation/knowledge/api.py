"""API of the knowledge library (under /api/v1/annotation/library/): list, search, create, review and publish.

The same services and read models as the pages (`annotation.knowledge.read_models`): experts
read published FAQ entries and the cases allowed them, without any staff field (status, author,
source, cause); staff read everything except the cases of a campaign they rate in while it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.knowledge import read_models
from annotation.knowledge.filters import CaseFilters, FaqFilters
from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry
from annotation.knowledge.services import knowledge as services
from annotation.knowledge.services.knowledge_io import LibraryImportOutcome
from annotation.services.guidelines import publish_dataset_guidelines, render_guidelines
from heartbench_core.api import ComputedListView, FileImportView, valid_body
from heartbench_core.api_changes import RefusesUnknownFields
from heartbench_core.api_types import TypedSerializer, typed
from heartbench_core.http import attachment, signed_in
from heartbench_core.lib.search import Segment
from heartbench_core.models import Dataset
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, role_permission

CanRead = role_permission(*STAFF_ROLES, Role.EXPERT)
IsStaff = role_permission(*STAFF_ROLES)
CanWriteFaq = role_permission(*services.FAQ_WRITERS)
CanWriteCases = role_permission(*services.CASE_WRITERS)
CanPublishGuidelines = role_permission(Role.ADMIN, Role.RUBRIC_AUTHOR)


def _as_expert(request: Request) -> bool:
    return not read_models.reads_as_staff(Viewer.of(request))


def _read_one(request: Request, pk: int, read: Callable[..., Any], serializer: type[serializers.Serializer], kind: str) -> Response:
    """One FAQ entry or case as the viewer may read it (an expert: without the staff fields, and the opening recorded)."""
    as_expert = _as_expert(request)
    found = read(Viewer.of(request), pk, as_expert=as_expert)
    if as_expert:
        services.record_open(user=signed_in(request), **{kind: found})
    return Response(serializer(found, context={"as_expert": as_expert}).data)


def _faq(request: Request, entry: FaqEntry) -> dict[str, Any]:
    """A FAQ entry a write returned, as the staff's answer shows it (its criteria read with it)."""
    return FaqEntrySerializer(read_models.with_criteria(Viewer.of(request), [entry])[0]).data


# --- serializers ------------------------------------------------------------------------------------


# Left out for experts, last in the answer (optional in the schema).
FAQ_STAFF_FIELDS = ("status", "author", "reviewer", "review_note", "replaces", "created_at", "updated_at", "submitted_at", "retired_at")
CASE_STAFF_FIELDS = (
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


class MarkdownHtml(serializers.CharField):
    """The Markdown text named by `source`, rendered and sanitised."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value: str) -> str:
        return str(render_guidelines(value))


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

    staff_fields = FAQ_STAFF_FIELDS
    dataset = serializers.CharField(source="dataset.name")
    html = MarkdownHtml(source="answer", help_text="The answer rendered and sanitised (Markdown).")
    criteria = serializers.ListField(
        child=serializers.CharField(),
        source="criterion_keys",
        read_only=True,
        help_text="Lineage keys of the criteria it is about (they follow a criterion across versions).",
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
            *FAQ_STAFF_FIELDS,
        ]
        extra_kwargs = {name: {"required": False} for name in FAQ_STAFF_FIELDS}  # the declared ones say it themselves


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

    staff_fields = CASE_STAFF_FIELDS
    dataset = serializers.CharField(source="dataset.name")
    criterion = serializers.UUIDField(source="lineage_id", help_text="The criterion's lineage key.")
    html = MarkdownHtml(source="reasoning", help_text="The reasoning rendered and sanitised (Markdown).")
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
            *CASE_STAFF_FIELDS,
        ]
        extra_kwargs = {name: {"required": False} for name in CASE_STAFF_FIELDS}  # the declared ones say it themselves


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
    html = MarkdownHtml(source="body")

    class Meta:
        model = DatasetGuidelines
        fields = ["revision", "body", "html", "change_note", "author", "created_at"]


class GuidelinesInputSerializer(serializers.Serializer):
    body = serializers.CharField(allow_blank=True, max_length=100_000, help_text="Markdown.")
    change_note = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)


class HitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=[("faq", "faq"), ("case", "case"), ("guidelines", "guidelines")])
    id = serializers.SerializerMethodField(help_text="The FAQ entry's or case's id (null for a guidelines section).")
    title = typed(Segment)(many=True)
    snippet = typed(Segment)(many=True)
    score = serializers.FloatField(help_text="Relevance (docs/knowledge.md, Search): larger is better.")
    heading = serializers.CharField(help_text="For a guidelines section: which guidelines.")

    def get_id(self, hit: read_models.Hit) -> int | None:
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

    def get_terms(self, results: read_models.SearchResults) -> list[str]:
        return [t.text for t in results.terms]


# --- views -------------------------------------------------------------------------------------------


def _dataset(request: Request, name: str | None) -> Dataset | None:
    return read_models.dataset_named(Viewer.of(request), name) if name else None


class _LibraryList(ComputedListView):
    """A list everyone with a role reads (experts without the staff fields) and `writers` add to."""

    writers: type[BasePermission]

    def get_permissions(self) -> list[Any]:
        return [self.writers()] if self.request.method == "POST" else [CanRead()]

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "as_expert": _as_expert(self.request)}


class FaqListView(_LibraryList):
    """FAQ entries (experts: published ones); writers create drafts."""

    serializer_class = FaqEntrySerializer
    writers = CanWriteFaq

    @extend_schema(parameters=FaqFilters.parameters(), responses=FaqEntrySerializer(many=True))
    def get(self, request: Request) -> Response:
        return self.paginated(read_models.faq_list(Viewer.of(request), request.query_params))  # type: ignore[arg-type]

    @extend_schema(request=FaqInputSerializer, responses={201: FaqEntrySerializer})
    def post(self, request: Request) -> Response:
        form = FaqInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        dataset = _dataset(request, form.validated_data.get("dataset"))
        if dataset is None:
            raise serializers.ValidationError({"dataset": ["This field is required."]})
        entry = services.create_faq_entry(author=signed_in(request), dataset=dataset, content=form.content())
        return Response(_faq(request, entry), status=201)


class FaqDetailView(APIView):
    """One FAQ entry; its author edits a draft (PATCH)."""

    def get_permissions(self) -> list[Any]:
        return [CanWriteFaq()] if self.request.method == "PATCH" else [CanRead()]

    @extend_schema(responses=FaqEntrySerializer)
    def get(self, request: Request, pk: int) -> Response:
        return _read_one(request, pk, read_models.faq_entry, FaqEntrySerializer, "faq")

    @extend_schema(request=FaqContentSerializer, responses=FaqEntrySerializer)
    def patch(self, request: Request, pk: int) -> Response:
        entry = read_models.faq_entry(Viewer.of(request), pk, as_expert=False, must_be="author")
        form = FaqContentSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return Response(_faq(request, services.edit_faq_entry(entry=entry, editor=signed_in(request), content=form.content())))


class _FaqAction(APIView):
    permission_classes = [CanWriteFaq]

    def entry(self, request: Request, pk: int, *, must_be: read_models.Who | None = None) -> FaqEntry:
        return read_models.faq_entry(Viewer.of(request), pk, as_expert=False, must_be=must_be)


class FaqSubmitView(_FaqAction):
    """Send a draft to review (its author)."""

    @extend_schema(request=None, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(_faq(request, services.submit_faq_entry(entry=self.entry(request, pk), author=signed_in(request))))


class FaqReviewView(_FaqAction):
    """Publish an entry in review, or send it back with a note (a writer other than its author)."""

    @extend_schema(request=FaqReviewSerializer, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        entry = self.entry(request, pk, must_be="reviewer")
        data = valid_body(FaqReviewSerializer, request)
        reviewed = services.review_faq_entry(entry=entry, reviewer=signed_in(request), approve=data["publish"], note=data["note"])
        return Response(_faq(request, reviewed))


class FaqRetireView(_FaqAction):
    """Take an entry out of use."""

    @extend_schema(request=None, responses=FaqEntrySerializer)
    def post(self, request: Request, pk: int) -> Response:
        return Response(_faq(request, services.retire_faq_entry(entry=self.entry(request, pk), by=signed_in(request))))


class FaqReviseView(_FaqAction):
    """Start a new draft that replaces a published entry once it is reviewed and published."""

    @extend_schema(request=None, responses={201: FaqEntrySerializer})
    def post(self, request: Request, pk: int) -> Response:
        draft = services.revise_faq_entry(entry=self.entry(request, pk), author=signed_in(request))
        return Response(_faq(request, draft), status=201)


class CaseListView(_LibraryList):
    """Cases (experts: those the library's rules allow them); senior reviewers and admins write them from scratch or from a calibration item."""

    serializer_class = CaseSerializer
    writers = CanWriteCases

    @extend_schema(parameters=CaseFilters.parameters(), responses=CaseSerializer(many=True))
    def get(self, request: Request) -> Response:
        return self.paginated(read_models.case_list(Viewer.of(request), request.query_params))  # type: ignore[arg-type]

    @extend_schema(request=CaseInputSerializer, responses={201: CaseSerializer})
    def post(self, request: Request) -> Response:
        user = signed_in(request)
        form = CaseInputSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if data.get("criterion") is not None:
            criterion = read_models.criterion_snapshot(Viewer.of(request), data["criterion"])
            if criterion is None:
                raise serializers.ValidationError({"criterion": ["No criterion has this key."]})
            case = services.create_case(author=user, criterion=criterion, content=form.content(), publish=data["publish"])
        else:
            entry, criterion = read_models.calibration_item(Viewer.of(request), data["calibration_entry"], data["calibration_criterion"])
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
        return _read_one(request, pk, read_models.case, CaseSerializer, "case")

    @extend_schema(request=CaseContentSerializer, responses=CaseSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        found = read_models.case(Viewer.of(request), pk, as_expert=False)
        form = CaseContentSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return Response(CaseSerializer(services.edit_case(case=found, editor=signed_in(request), content=form.content())).data)


class _CaseAction(APIView):
    permission_classes = [CanWriteCases]
    act: Callable[..., Case]

    @extend_schema(request=None, responses=CaseSerializer)
    def post(self, request: Request, pk: int) -> Response:
        found = read_models.case(Viewer.of(request), pk, as_expert=False)
        return Response(CaseSerializer(type(self).act(case=found, by=signed_in(request))).data)  # the class's service, not bound


class CasePublishView(_CaseAction):
    """Publish a draft case."""

    act = services.publish_case


class CaseRetireView(_CaseAction):
    """Take a case out of use."""

    act = services.retire_case


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text="Words, in Chinese or English; every term must match.")
    dataset = serializers.CharField(required=False, max_length=200)
    key = serializers.UUIDField(required=False, help_text="The criterion in focus: entries linked to it rank higher.")


class SearchView(APIView):
    """Search FAQ entries, cases and the datasets' current guidelines, ranked, with the matches marked in each snippet."""

    permission_classes = [CanRead]

    @extend_schema(parameters=[SearchQuerySerializer], responses=SearchResultsSerializer)
    def get(self, request: Request) -> Response:
        query = valid_query(SearchQuerySerializer, request)
        dataset = _dataset(request, query.get("dataset"))
        results = read_models.search(Viewer.of(request), query["q"], dataset=dataset, lineage_key=query.get("key"))
        return Response(SearchResultsSerializer(results).data)


class DatasetGuidelinesView(APIView):
    """A dataset's guidelines, every revision newest first (staff); admins and rubric authors publish a new one."""

    def get_permissions(self) -> list[Any]:
        return [CanPublishGuidelines()] if self.request.method == "POST" else [IsStaff()]

    @extend_schema(responses=DatasetGuidelinesRevisionSerializer(many=True))
    def get(self, request: Request, name: str) -> Response:
        history = read_models.dataset_guidelines(Viewer.of(request), name).history
        return Response(DatasetGuidelinesRevisionSerializer(history, many=True).data)

    @extend_schema(request=GuidelinesInputSerializer, responses={201: DatasetGuidelinesRevisionSerializer})
    def post(self, request: Request, name: str) -> Response:
        dataset = read_models.dataset_named(Viewer.of(request), name)
        data = valid_body(GuidelinesInputSerializer, request)
        published = publish_dataset_guidelines(
            dataset=dataset, body=data["body"], change_note=data["change_note"], author=signed_in(request)
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
    permission_classes = [role_permission(Role.EXPERT)]  # beside their own assignment only (`read_models.panel_assignment`)


class PanelView(_OwnAssignment):
    """The library beside one of the expert's assignments: entries on the criterion in focus, and search (an expert's view)."""

    @extend_schema(parameters=[PanelQuerySerializer], responses=PanelSerializer)
    def get(self, request: Request, public_id: str) -> Response:
        assignment = read_models.panel_assignment(Viewer.of(request), public_id)
        asked = valid_query(PanelQuerySerializer, request)
        viewer = Viewer.of(request)
        criterion = read_models.criterion_in_focus(viewer, assignment, asked.get("criterion"))
        query = (asked.get("q") or "").strip()
        panel = read_models.panel(viewer, assignment, criterion, query=query, with_guidelines=False)
        knowledge = panel.knowledge
        body = {
            "criterion": criterion.pk if criterion else None,
            "faq": read_models.with_criteria(viewer, knowledge.faq) if knowledge else [],
            "ability_faq": read_models.with_criteria(viewer, knowledge.ability_faq) if knowledge else [],
            "cases": knowledge.cases if knowledge else [],
            "search": panel.results,
        }
        return Response(PanelSerializer(body, context={"as_expert": True}).data)


class PanelOpenView(_OwnAssignment):
    """Record that the expert opened an entry beside this assignment (and, with `helped`, whether it helped)."""

    @extend_schema(request=OpenInputSerializer, responses={201: OpenSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = read_models.panel_assignment(Viewer.of(request), public_id)
        data, user = valid_body(OpenInputSerializer, request), signed_in(request)
        criterion = read_models.criterion_in_focus(Viewer.of(request), assignment, data.get("criterion"))
        faq, case = read_models.panel_entry(Viewer.of(request), faq_id=data.get("faq"), case_id=data.get("case"))
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
    def get(self, request: Request) -> HttpResponseBase:
        from annotation.knowledge.services.knowledge_io import export_lines

        dataset = _dataset(request, request.query_params.get("dataset"))
        return attachment("".join(export_lines(dataset=dataset, viewer=signed_in(request))), "library", "jsonl")


class LibraryImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A file export_library wrote.")


class LibraryImportedSerializer(TypedSerializer[LibraryImportOutcome]):
    class Meta:
        dataclass = LibraryImportOutcome


@extend_schema_view(post=extend_schema(request=LibraryImportSerializer, responses={201: LibraryImportedSerializer}))
class ImportView(FileImportView[Any]):
    """Import a library file (admins): the same rules and messages as `import_library`; any bad line and nothing is written."""

    input_serializer = LibraryImportSerializer

    def run(self, data: dict[str, Any], user: Any) -> Any:
        from annotation.knowledge.services.knowledge_io import import_library

        return import_library(source=data["file"], name=data["file"].name)

    def respond(self, outcome: Any) -> Response:
        return Response(LibraryImportedSerializer(outcome).data, status=201)
