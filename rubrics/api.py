"""REST API of the rubrics: criteria, revisions and their review, audit log, stale list, quality, work list, publish.

Staff only: rubric authors edit, senior reviewers review, admins read everything. Experts and
outsiders get 403 everywhere (they never see drafts, weights or review discussions).
"""

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from heartbench_core.api import ChangelogSerializer, ComputedListView, PageWithTotals, valid_body
from heartbench_core.api_types import typed
from heartbench_core.http import signed_in
from heartbench_core.lib.rubric_quality import AmbiguityRule
from heartbench_core.models import Criterion
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import STAFF_ROLES, Role, role_permission
from rubrics import read_models, services
from rubrics.filters import CriterionFilters, RevisionFilters, WorkFilters
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment
from rubrics.serializers import DatasetQuerySerializer

IsStaff = role_permission(*STAFF_ROLES)
IsAuthor = role_permission(Role.RUBRIC_AUTHOR)
IsReviewer = role_permission(Role.SENIOR_REVIEWER)
CanPublish = role_permission(Role.RUBRIC_AUTHOR, Role.ADMIN)


class RubricCriterionSerializer(serializers.ModelSerializer):
    key = serializers.UUIDField(source="lineage_id", read_only=True)
    dataset = serializers.CharField(source="item.version.dataset.name", read_only=True)
    version = serializers.CharField(source="item.version.label", read_only=True)
    question_id = serializers.CharField(source="item.question_id", read_only=True)
    current_revision = serializers.IntegerField(source="lineage.current_revision", read_only=True)
    meaning_revision = serializers.IntegerField(source="lineage.meaning_revision", read_only=True)
    head = serializers.SerializerMethodField()

    class Meta:
        model = Criterion
        fields = [
            "key",
            "dataset",
            "version",
            "question_id",
            "position",
            "ability",
            "weight",
            "text",
            "catastrophic",
            "revision",
            "current_revision",
            "meaning_revision",
            "head",
        ]

    def get_head(self, obj: Criterion) -> int:
        return max(obj.lineage.current_revision, getattr(obj, "drafted", None) or 0)


@extend_schema_view(list=extend_schema(parameters=CriterionFilters.parameters()))
class CriterionViewSet(viewsets.ReadOnlyModelViewSet[Criterion]):
    """Criteria of each dataset's latest version, with their current approved and newest (head) revision."""

    serializer_class = RubricCriterionSerializer
    permission_classes = [IsStaff]
    lookup_field = "lineage_id"
    lookup_url_kwarg = "key"

    def get_queryset(self) -> QuerySet[Criterion]:
        return read_models.latest_criteria(Viewer.of(self.request), self.request.query_params)


class RevisionSerializer(serializers.ModelSerializer):
    key = serializers.UUIDField(source="lineage_id", read_only=True)
    dataset = serializers.CharField(source="dataset.name", read_only=True)
    author = serializers.CharField(source="author.username", read_only=True)
    parent = serializers.IntegerField(source="parent.number", read_only=True, default=None)  # type: ignore[assignment]  # the key is "parent"; the metaclass takes it out of the class
    published_in = serializers.CharField(source="published_in.label", read_only=True, default=None)
    approvals = serializers.IntegerField(read_only=True, help_text="Approvals from the review panel so far.")

    class Meta:
        model = CriterionRevision
        fields = [
            "id",
            "key",
            "number",
            "parent",
            "dataset",
            "question_id",
            "text",
            "ability",
            "weight",
            "catastrophic",
            "change_kind",
            "meaning_changed",
            "reason",
            "author",
            "created_at",
            "status",
            "submitted_at",
            "decided_at",
            "published_in",
            "approvals",
        ]


class RevisionInputSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["edit", "add", "retire"], default="edit")
    key = serializers.UUIDField(required=False, help_text="The criterion (lineage key); not for 'add'.")
    dataset = serializers.CharField(required=False, help_text="For 'add': the dataset.")
    question_id = serializers.CharField(required=False, help_text="For 'add': the item.")
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False, default="")
    ability = serializers.CharField(required=False, allow_blank=True, default="")
    weight = serializers.IntegerField(required=False, allow_null=True, default=None)
    meaning_changed = serializers.BooleanField(required=False, default=False)
    reason = serializers.CharField(required=False, allow_blank=True, default="")
    base_revision = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="The head revision the edit is based on (conflict check)."
    )


class DecisionInputSerializer(serializers.Serializer):
    comment = serializers.CharField(required=False, allow_blank=True, default="")


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True)

    class Meta:
        model = RevisionComment
        fields = ["id", "reply_to", "author", "body", "created_at"]
        read_only_fields = ["id", "author", "created_at"]


@extend_schema_view(list=extend_schema(parameters=RevisionFilters.parameters()))
class RevisionViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet[CriterionRevision]):
    """Criterion revisions: propose (edit/add/retire), submit, approve or reject, and comment."""

    serializer_class = RevisionSerializer
    permission_classes = [IsStaff]

    def get_permissions(self) -> list[BasePermission]:
        if self.action in ("create", "submit"):
            return [IsAuthor()]
        if self.action in ("approve", "reject"):
            return [IsReviewer()]
        return [IsStaff()]

    def get_queryset(self) -> QuerySet[CriterionRevision]:
        return read_models.revisions(Viewer.of(self.request), self.request.query_params)

    def _read(self, rev: CriterionRevision) -> dict[str, Any]:
        """The revision as the list shows it (with its approvals), read again after a service changed it."""
        return RevisionSerializer(read_models.listed_revision(Viewer.of(self.request), rev.pk)).data

    @extend_schema(request=RevisionInputSerializer, responses={201: RevisionSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        d = valid_body(RevisionInputSerializer, request)
        author = signed_in(request)
        content = {name: d[name] for name in ("text", "ability", "weight", "reason")}
        if d["action"] == "add":
            if not d.get("dataset") or not d.get("question_id"):
                raise DjangoValidationError({"dataset": gettext("'add' needs dataset and question_id")})
            dataset = read_models.dataset(Viewer.of(request), d["dataset"], field="dataset")
            rev = services.add_criterion(author=author, dataset=dataset, question_id=d["question_id"], **content)
        elif not d.get("key"):
            raise DjangoValidationError({"key": gettext("name the criterion (its key)")})
        elif d["action"] == "retire":
            rev = services.retire_criterion(author=author, key=d["key"], reason=d["reason"], base_revision=d["base_revision"])
        else:
            base = {"base_revision": d["base_revision"], "meaning_changed": d["meaning_changed"]}
            rev = services.edit_criterion(author=author, key=d["key"], **content, **base)
        return Response(self._read(rev), status=201)

    @extend_schema(request=None, responses={200: RevisionSerializer})
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str | None = None) -> Response:
        rev = services.submit_revision(revision=self.get_object(), user=signed_in(request))
        return Response(self._read(rev))

    def _decide(self, request: Request, verdict: str) -> Response:
        comment = valid_body(DecisionInputSerializer, request)["comment"]
        rev = services.review_revision(revision=self.get_object(), reviewer=signed_in(request), verdict=verdict, comment=comment)
        return Response(self._read(rev))

    @extend_schema(request=DecisionInputSerializer, responses={200: RevisionSerializer})
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        """One panel seat approves; the revision is applied when the whole panel has approved."""
        return self._decide(request, ReviewDecision.Verdict.APPROVE)

    @extend_schema(request=DecisionInputSerializer, responses={200: RevisionSerializer})
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        """Reject with a comment: the revision goes back to its author."""
        return self._decide(request, ReviewDecision.Verdict.REJECT)

    # Reading and writing are two handlers: a branch on the method sent HEAD (a safe method, so
    # no CSRF check) down the writing path.
    @extend_schema(responses={200: CommentSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)  # one revision's discussion, not a page
    def comments(self, request: Request, pk: str | None = None) -> Response:
        return Response(CommentSerializer(read_models.comments(Viewer.of(request), self.get_object()), many=True).data)

    @extend_schema(request=CommentSerializer, responses={201: CommentSerializer})
    @comments.mapping.post
    def add_comment(self, request: Request, pk: str | None = None) -> Response:
        rev = self.get_object()
        d = valid_body(CommentSerializer, request)
        comment = services.comment_on_revision(revision=rev, author=signed_in(request), body=d["body"], reply_to=d.get("reply_to"))
        return Response(CommentSerializer(comment).data, status=201)


class AuditEntrySerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="dataset.name", read_only=True, default=None)
    person = serializers.CharField(source="actor_name", read_only=True)

    class Meta:
        model = AuditEntry
        fields = [
            "id",
            "created_at",
            "person",
            "action",
            "dataset",
            "question_id",
            "criterion_key",
            "revision_number",
            "object_type",
            "object_id",
            "reason",
            "before",
            "after",
        ]


@extend_schema_view(
    list=extend_schema(
        parameters=[OpenApiParameter(name, str) for name in ("dataset", "item", "person", "action")]
        + [OpenApiParameter("criterion", str, description="A criterion key (UUID) or the start of one; anything else is a 400.")]
        + [OpenApiParameter(name, OpenApiTypes.DATE) for name in ("since", "until")]
    )
)
class AuditViewSet(viewsets.ReadOnlyModelViewSet[AuditEntry]):
    """The append-only audit log; filter with ?dataset, item, criterion, person, action, since, until (YYYY-MM-DD)."""

    serializer_class = AuditEntrySerializer
    permission_classes = [IsStaff]
    filter_backends = []

    def get_queryset(self) -> QuerySet[AuditEntry]:
        log = read_models.audit_log(Viewer.of(self.request), self.request.query_params)
        log.filters.check()  # a bad value: a 400 naming its parameter
        return log.entries


DATASET_PARAM = OpenApiParameter("dataset", str, required=True)


class StaleRowSerializer(serializers.Serializer):
    response = serializers.CharField(help_text="The response's opaque public id.")
    question_id = serializers.CharField()
    criterion_key = serializers.UUIDField()
    judged_revision = serializers.IntegerField(help_text="The criterion revision the judgments and verdicts were made against.")
    meaning_revision = serializers.IntegerField(help_text="The revision that last changed the criterion's meaning.")
    judgments = serializers.IntegerField(help_text="Stale expert judgments on this response and criterion.")
    verdicts = serializers.IntegerField(help_text="Stale judge verdicts on this response and criterion.")


class StalePagination(PageWithTotals):
    totals = {
        "responses": "Responses to re-check, over every row (not only this page).",
        "judgments": "Stale expert judgments, over every row.",
        "verdicts": "Stale judge verdicts, over every row.",
    }


class StaleView(ComputedListView):
    """Responses with judgments or verdicts made against an older meaning of a criterion (for re-checking).

    Ordered by question, criterion and response; the totals cover every row the filters keep.
    """

    permission_classes = [IsStaff]
    serializer_class = StaleRowSerializer
    pagination_class = StalePagination

    @extend_schema(parameters=[DatasetQuerySerializer], responses=StaleRowSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = valid_query(DatasetQuerySerializer, request)
        found = read_models.stale_list(Viewer.of(request), query["dataset"], question_id=query.get("question_id"))
        return self.paginated(found.rows, totals=found.totals)


class SignalSerializer(serializers.Serializer):
    """A statistic with the number of units it was computed from; null, with the reason, when undefined."""

    value = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(help_text="Units the value was computed from.")
    reason = serializers.CharField(allow_null=True, help_text="Why the value is null; null when it is defined.")


class HitRateSerializer(SignalSerializer):
    models = serializers.IntegerField(help_text="Models whose responses the judge judged.")
    saturated = serializers.BooleanField(
        help_text="Every response of two or more models was hit: the criterion no longer separates models."
    )


class AgreementSignalSerializer(SignalSerializer):
    pairs = serializers.IntegerField(required=False, help_text="Rater pairs compared; absent when the value is undefined.")


class JudgeHumanSignalSerializer(SignalSerializer):
    without_majority = serializers.IntegerField(help_text="Responses left out: their experts had no strict majority.")


class CriterionQualitySerializer(serializers.Serializer):
    hit_rate = HitRateSerializer(help_text="Share of responses the judge marked hit.")
    agreement = AgreementSignalSerializer(help_text="Experts' pairwise agreement.")
    alpha = SignalSerializer(help_text="Krippendorff's alpha (nominal) of the experts.")
    judge_human = JudgeHumanSignalSerializer(help_text="Share of responses where the judge agrees with the experts' majority.")
    ambiguous = serializers.BooleanField(help_text="Experts agree less than the ambiguity rule allows.")


class RubricQualitySerializer(serializers.Serializer):
    ambiguity_rule = typed(AmbiguityRule)()
    criteria = serializers.DictField(child=CriterionQualitySerializer(), help_text="The signals of each criterion, by its key.")


class QualityView(APIView):
    """Rubric-quality signals per criterion: hit rate, human agreement, judge–human agreement, ambiguity."""

    permission_classes = [IsStaff]

    @extend_schema(parameters=[DATASET_PARAM, OpenApiParameter("question_id", str)], responses={200: RubricQualitySerializer})
    def get(self, request: Request) -> Response:
        # An expert of an open campaign: no response of its dataset counts.
        found = read_models.rubric_quality(
            Viewer.of(request), request.query_params.get("dataset", ""), question_id=request.query_params.get("question_id") or None
        )
        criteria = {
            str(key): {name: (v.as_dict() if hasattr(v, "as_dict") else v) for name, v in signals.items()}
            for key, signals in found.criteria.items()
        }
        return Response(RubricQualitySerializer({"ambiguity_rule": found.ambiguity_rule, "criteria": criteria}).data)


class WorkItemSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=read_models.WORK_KINDS)
    severity = serializers.ChoiceField(
        choices=list(read_models.SEVERITY_NAMES.values()),
        source="severity_name",
        help_text="high: ambiguous, or flagged from adjudication; medium: unclear report, other flag, stale; low: saturated.",
    )
    dataset = serializers.CharField()
    question_id = serializers.CharField(help_text="Empty when the criterion is not in the latest version.")
    criterion_key = serializers.UUIDField()
    ability = serializers.CharField(help_text="The criterion's ability label in the latest version (empty when not in it).")
    text = serializers.CharField(help_text="The criterion's text.")
    detail = serializers.CharField(help_text="Why it is listed: the signal, the expert's comment, or the flag's reason.")
    created_at = serializers.DateTimeField(allow_null=True, help_text="When reported or flagged; null for computed signals.")
    object_id = serializers.IntegerField(allow_null=True, help_text="The unclear report or flag, to resolve; null for signals.")


class WorkListView(ComputedListView):
    """The rubric authors' work list: ambiguous, stale and saturated criteria, unclear reports, open flags.

    Most severe first (`sort=severity`, the default; see docs/rubrics.md), or by item (`sort=item`).
    """

    permission_classes = [IsStaff]
    serializer_class = WorkItemSerializer

    @extend_schema(parameters=WorkFilters.parameters(), responses=WorkItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        return self.paginated(read_models.work_list_api(Viewer.of(request), request.query_params))


class PublishInputSerializer(serializers.Serializer):
    dataset = serializers.CharField()
    label = serializers.CharField(required=False, allow_blank=True, default="")  # type: ignore[assignment]  # the key is "label"; the metaclass takes it out of the class
    note = serializers.CharField(required=False, allow_blank=True, default="")


class PublishedVersionSerializer(serializers.Serializer):
    version = serializers.CharField(source="label", help_text="The new version's label.")
    number = serializers.IntegerField()
    changelog = ChangelogSerializer(help_text="What changed from the version it was published on.")


class PublishView(APIView):
    """Freeze every approved, unpublished revision into a new dataset version (with its changelog)."""

    permission_classes = [CanPublish]

    @extend_schema(request=PublishInputSerializer, responses={201: PublishedVersionSerializer})
    def post(self, request: Request) -> Response:
        d = valid_body(PublishInputSerializer, request)
        version = services.publish_revisions(
            dataset=read_models.dataset(Viewer.of(request), d["dataset"], field="dataset"),
            user=signed_in(request),
            label=d["label"] or None,
            note=d["note"],
        )
        return Response(PublishedVersionSerializer(version).data, status=201)


class FlagInputSerializer(serializers.Serializer):
    key = serializers.UUIDField()
    reason = serializers.CharField(allow_blank=True)


class FlagSerializer(serializers.ModelSerializer):
    key = serializers.UUIDField(source="lineage_id", help_text="The criterion's lineage key.")

    class Meta:
        model = CriterionFlag
        fields = ["id", "key", "reason"]


class FlagView(APIView):
    """Put a criterion on the authors' work list."""

    permission_classes = [IsStaff]

    @extend_schema(request=FlagInputSerializer, responses={201: FlagSerializer})
    def post(self, request: Request) -> Response:
        d = valid_body(FlagInputSerializer, request)
        lineage = read_models.criterion_lineage(Viewer.of(request), d["key"])
        flag = services.flag_criterion(lineage=lineage, reason=d["reason"], source="api", flagged_by=signed_in(request))
        return Response(FlagSerializer(flag).data, status=201)
