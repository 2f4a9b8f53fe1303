"""REST API of the blind workspace: the same services and selectors as the pages.

Experts see only their own work, addressed by assignment public id; another expert's id
answers 404 like an id that does not exist. Serializers here are blind by construction: they
name no model, no other expert, no verdict, no gold flag.
"""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors_workspace as selectors
from annotation.models import Assignment, Campaign, CorrectionRequest
from annotation.services import workspace as services
from annotation.services.assignment import assign_next_response
from heartbench_core.api import choice_param, enum_param, error_response, valid_query
from heartbench_core.blindness import blind_scope, record_exposures, refuse_response
from heartbench_core.roles import Role, role_permission

IsExpert = role_permission(Role.EXPERT)
IsAdmin = role_permission(Role.ADMIN)


# --- serializers -----------------------------------------------------------------------------


class JudgmentEntrySerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    rationale = serializers.CharField(allow_blank=True, required=False, default="", trim_whitespace=False, max_length=services.RATIONALE_MAX_CHARS)
    hit = serializers.BooleanField(allow_null=True, required=False, default=None)


def _entries(rows) -> list[services.DraftEntry]:
    return [services.DraftEntry(criterion_id=r["criterion"], rationale=r.get("rationale", ""), hit=r.get("hit")) for r in rows]


class DraftInputSerializer(serializers.Serializer):
    judgments = JudgmentEntrySerializer(many=True, required=False, default=list)
    active_seconds = serializers.IntegerField(min_value=0, required=False, default=0)


class TimeInputSerializer(serializers.Serializer):
    active_seconds = serializers.IntegerField(min_value=0)


class NextInputSerializer(serializers.Serializer):
    campaign = serializers.IntegerField()


class CommentInputSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=services.COMMENT_MAX_CHARS)


class UnclearInputSerializer(CommentInputSerializer):
    criterion = serializers.IntegerField()


class CorrectionInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=services.COMMENT_MAX_CHARS)
    judgments = JudgmentEntrySerializer(many=True)


class DecisionInputSerializer(serializers.Serializer):
    accept = serializers.BooleanField()
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=services.COMMENT_MAX_CHARS)


class DiscussionCommentInputSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=services.COMMENT_MAX_CHARS)
    criterion = serializers.IntegerField(required=False, allow_null=True, default=None)


class DiscussionVoteInputSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    hit = serializers.BooleanField()


class CampaignBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Campaign
        fields = ["id", "name", "kind"]


class AssignmentSummarySerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="public_id")
    campaign = CampaignBriefSerializer(source="campaign_response.campaign")
    question_id = serializers.CharField(source="campaign_response.item.question_id")
    url = serializers.SerializerMethodField()

    class Meta:
        model = Assignment
        fields = ["id", "campaign", "question_id", "status", "reserved_at", "expires_at", "draft_saved_at", "submitted_at", "url"]

    def get_url(self, obj) -> str:
        return reverse("annotation:judge", args=[obj.public_id])


def criterion_payload(row: selectors.CriterionRow, *, show_weights: bool) -> dict:
    body = {
        "id": row.criterion.pk,
        "number": row.number,
        "kind": row.kind,
        "ability": row.criterion.ability,
        "ability_name": row.ability_name,
        "text": row.criterion.text,
    }
    if show_weights:
        body["weight"] = row.criterion.weight
    return body


def detail_payload(page: selectors.JudgingPage) -> dict:
    a = page.assignment
    return {
        **AssignmentSummarySerializer(a).data,
        "dialogue": [{"role": t.get("role"), "content": t.get("content")} for t in page.dialogue],
        "response": page.response_text,
        "rationale_min_chars": page.campaign.rationale_min_chars,
        "show_weights": page.campaign.show_weights,
        "criteria": [criterion_payload(r, show_weights=page.campaign.show_weights) for r in page.rows],
        "judgments": [{"criterion": r.criterion.pk, "rationale": r.rationale, "hit": r.hit} for r in page.rows if r.rationale or r.hit is not None],
        "progress": {"done": page.progress.done, "assigned": page.progress.assigned, "total": page.progress.total},
        "active_seconds": a.active_seconds,
        "next": page.next_public_id,
        "discussion_open": page.discussion_open,
        "unclear_reported": [r.criterion.pk for r in page.rows if r.reported_unclear],
        "problem_reported": page.problem_reported,
    }


ACCEPT_EFFECTS = {
    False: "replaces_judgments",
    True: "records_revision",
}


class CorrectionSerializer(serializers.ModelSerializer):
    assignment = serializers.CharField(source="assignment.public_id")
    after_discussion = serializers.BooleanField(
        read_only=True,
        help_text="Requested after the expert saw the discussion: accepting records a post-discussion revision and leaves the blind verdict as submitted.",
    )
    accept_effect = serializers.SerializerMethodField(
        help_text="What accepting does: `replaces_judgments` (requested blind) or `records_revision` (after the discussion; the blind verdict stays)."
    )

    class Meta:
        model = CorrectionRequest
        fields = [
            "id", "assignment", "status", "reason", "original", "proposed", "created_at", "decided_at", "decision_note",
            "after_discussion", "accept_effect",
        ]

    def get_accept_effect(self, obj) -> str:
        return ACCEPT_EFFECTS[bool(obj.after_discussion)]


class AdminCorrectionSerializer(CorrectionSerializer):
    expert = serializers.CharField(source="assignment.expert.username")
    campaign = serializers.CharField(source="assignment.campaign_response.campaign.name")
    question_id = serializers.CharField(source="assignment.campaign_response.item.question_id")

    class Meta(CorrectionSerializer.Meta):
        fields = [*CorrectionSerializer.Meta.fields, "expert", "campaign", "question_id"]


class AdminCorrectionsQuerySerializer(serializers.Serializer):
    # "applying" only exists inside the accepting transaction: never listed.
    status = serializers.ChoiceField(
        choices=[*(s for s in CorrectionRequest.Status.values if s != CorrectionRequest.Status.APPLYING), "all"],
        default=CorrectionRequest.Status.PENDING.value,
        help_text="Pending unless asked otherwise.",
    )
    campaign = serializers.CharField(required=False, help_text="Only this campaign: its name or its id.")

    def validate_campaign(self, value: str) -> Campaign:
        found = Campaign.objects.filter(name=value).first()
        if found is None and value.isdecimal():
            found = Campaign.objects.filter(pk=int(value)).first()
        if found is None:
            raise serializers.ValidationError(f"no campaign named {value!r} or with that id")
        return found


# --- views -----------------------------------------------------------------------------------


class ExpertView(APIView):
    permission_classes = [IsExpert]

    def own(self, request, public_id: str) -> Assignment:
        return selectors.assignment_for_expert(request.user, public_id)

    def own_open_discussion(self, request, public_id: str) -> Assignment:
        """`own`, and 404 while the response's discussion is closed (before the input is looked at)."""
        assignment = self.own(request, public_id)
        if not services.discussion_open_for(assignment):
            raise Http404("No such discussion.")
        return assignment

    def own_ref(self, request, public_id: str) -> Assignment:
        """`own` for writes whose service locks and re-reads the row: the same 404, a lighter read."""
        return selectors.assignment_ref_for_expert(request.user, public_id)


OWN_STATUSES = (Assignment.Status.RESERVED, Assignment.Status.SUBMITTED)


class MyAssignmentsView(ListAPIView):
    """The expert's own reserved and submitted assignments, newest first, in the API's default pages."""

    permission_classes = [IsExpert]
    serializer_class = AssignmentSummarySerializer
    # No ordering parameter: an expert's list orders by reservation time only, so nothing sorts by
    # a field the summary does not show.
    filter_backends: list = []

    def get_queryset(self):
        qs = selectors.own_assignments(self.request.user)
        if wanted := choice_param(self.request, "status", OWN_STATUSES):
            qs = qs.filter(status=wanted)
        return qs

    @extend_schema(parameters=[enum_param("status", OWN_STATUSES)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class NextResponseView(ExpertView):
    """Reserve the next response of a campaign (or return the expert's open reservation there)."""

    @extend_schema(request=NextInputSerializer, responses={200: serializers.DictField(), 204: None})
    def post(self, request):
        data = _valid(NextInputSerializer, request)
        campaign = get_object_or_404(selectors.campaigns_for_expert(request.user).select_related("settings"), pk=data["campaign"])
        try:
            assignment = assign_next_response(expert=request.user, campaign=campaign)
        except DjangoValidationError as exc:
            return error_response(exc)
        except PermissionDenied as exc:
            return Response({"detail": str(exc)}, status=403)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        assignment = selectors.assignment_for_expert(request.user, assignment.public_id)
        return Response(detail_payload(selectors.judging_page(assignment)))


class AssignmentDetailView(ExpertView):
    """One of the expert's assignments: dialogue, response, criteria and their own judgments."""

    @extend_schema(responses=serializers.DictField())
    def get(self, request, public_id):
        return Response(detail_payload(selectors.judging_page(self.own(request, public_id))))


class DraftView(ExpertView):
    """Autosave: upsert rationale and hit/miss of some criteria (and report time on task)."""

    @extend_schema(request=DraftInputSerializer, responses=serializers.DictField())
    def post(self, request, public_id):
        assignment = self.own_ref(request, public_id)
        data = _valid(DraftInputSerializer, request)
        try:
            saved = services.save_draft(
                assignment=assignment, expert=request.user, entries=_entries(data["judgments"]), active_seconds=data["active_seconds"]
            )
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"saved_at": saved.draft_saved_at, "active_seconds": saved.active_seconds, "expires_at": saved.expires_at})


class TimeView(ExpertView):
    """Report time on task (seconds with the page visible)."""

    @extend_schema(request=TimeInputSerializer, responses=serializers.DictField())
    def post(self, request, public_id):
        assignment = self.own_ref(request, public_id)
        data = _valid(TimeInputSerializer, request)
        try:
            total = services.record_active_time(assignment=assignment, expert=request.user, seconds=data["active_seconds"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"active_seconds": total})


class SubmitView(ExpertView):
    """Submit: every criterion needs a rationale and then hit/miss; immutable afterwards."""

    @extend_schema(request=DraftInputSerializer, responses=serializers.DictField())
    def post(self, request, public_id):
        assignment = self.own_ref(request, public_id)
        data = _valid(DraftInputSerializer, request)
        try:
            if data["judgments"]:
                services.save_draft(assignment=assignment, expert=request.user, entries=_entries(data["judgments"]))
            done = services.submit_assignment(assignment=assignment, expert=request.user, active_seconds=data["active_seconds"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"id": done.public_id, "status": done.status, "submitted_at": done.submitted_at})


class UnclearReportView(ExpertView):
    """Report a criterion as unclear (goes to the rubric authors' work list)."""

    @extend_schema(request=UnclearInputSerializer, responses={201: serializers.DictField()})
    def post(self, request, public_id):
        assignment = self.own(request, public_id)
        data = _valid(UnclearInputSerializer, request)
        try:
            report = services.report_unclear_criterion(
                assignment=assignment, expert=request.user, criterion_id=data["criterion"], comment=data["comment"]
            )
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"id": report.pk, "criterion": report.criterion_id, "created_at": report.created_at}, status=201)


class ProblemReportView(ExpertView):
    """Report a problem with the item or the response as a whole."""

    @extend_schema(request=CommentInputSerializer, responses={201: serializers.DictField()})
    def post(self, request, public_id):
        assignment = self.own(request, public_id)
        data = _valid(CommentInputSerializer, request)
        try:
            report = services.report_item_problem(assignment=assignment, expert=request.user, comment=data["comment"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response({"id": report.pk, "created_at": report.created_at}, status=201)


class CorrectionsView(ExpertView):
    """The expert's correction requests on one submitted response; POST asks for a new one."""

    @extend_schema(responses=CorrectionSerializer(many=True))
    def get(self, request, public_id):
        assignment = self.own(request, public_id)
        return Response(CorrectionSerializer(assignment.correction_requests.order_by("-created_at"), many=True).data)

    @extend_schema(request=CorrectionInputSerializer, responses={201: CorrectionSerializer})
    def post(self, request, public_id):
        assignment = self.own(request, public_id)
        data = _valid(CorrectionInputSerializer, request)
        try:
            correction = services.request_correction(
                assignment=assignment, expert=request.user, reason=data["reason"], entries=_entries(data["judgments"])
            )
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response(CorrectionSerializer(correction).data, status=201)


class DiscussionView(ExpertView):
    """The discussion of a response, for the experts who judged it, once all k judgments are in."""

    @extend_schema(responses=serializers.DictField())
    def get(self, request, public_id):
        assignment = self.own(request, public_id)
        thread = selectors.discussion(assignment)
        # The thread shows other raters' stances: a correction requested from now on is a post-discussion revision.
        services.mark_discussion_seen(assignment=assignment, expert=request.user)
        return Response(_thread_payload(thread))

    @extend_schema(request=DiscussionCommentInputSerializer, responses={201: serializers.DictField()})
    def post(self, request, public_id):
        assignment = self.own_open_discussion(request, public_id)
        data = _valid(DiscussionCommentInputSerializer, request)
        try:
            services.post_comment(assignment=assignment, expert=request.user, body=data["body"], criterion_id=data["criterion"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response(_thread_payload(selectors.discussion(assignment)), status=201)


class DiscussionVoteView(ExpertView):
    """Set the expert's hit/miss stance on a criterion in the discussion."""

    @extend_schema(request=DiscussionVoteInputSerializer, responses=serializers.DictField())
    def post(self, request, public_id):
        assignment = self.own_open_discussion(request, public_id)
        data = _valid(DiscussionVoteInputSerializer, request)
        try:
            services.cast_vote(assignment=assignment, expert=request.user, criterion_id=data["criterion"], hit=data["hit"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response(_thread_payload(selectors.discussion(assignment)))


def _thread_payload(thread: selectors.Discussion) -> dict:
    return {
        "comments": [
            {"author": c.author_label, "own": c.is_own, "criterion_number": c.criterion_number, "body": c.body, "created_at": c.created_at}
            for c in thread.comments
        ],
        "stances": [
            {"criterion": row.criterion.pk, "number": row.number, "hit": tally["hit"], "miss": tally["miss"], "mine": tally["mine"]}
            for row, tally in thread.stances
        ],
    }


class AdminCorrectionsView(ListAPIView):
    """Correction requests, oldest first (pending by default; ?status=accepted|refused|all, ?campaign=)."""

    permission_classes = [IsAdmin]
    serializer_class = AdminCorrectionSerializer
    ordering_fields = ["created_at", "decided_at"]
    ordering = ["created_at", "id"]

    def get_queryset(self):
        query = valid_query(AdminCorrectionsQuerySerializer, self.request)
        qs = CorrectionRequest.objects.select_related(
            "assignment__expert", "assignment__campaign_response__campaign", "assignment__campaign_response__item"
        )
        if query["status"] != "all":
            qs = qs.filter(status=query["status"])
        if campaign := query.get("campaign"):
            qs = qs.filter(assignment__campaign_response__campaign=campaign)
        # An admin who is an expert of an open campaign does not see its raters' judgments (heartbench_core.blindness).
        return blind_scope(self.request.user).visible_responses(qs, "assignment__campaign_response__response_id")

    @extend_schema(parameters=[AdminCorrectionsQuerySerializer])
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        record_exposures(user=request.user, response_ids=self._shown, via="api-corrections")
        return response

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        self._shown = [c.assignment.campaign_response.response_id for c in (page if page is not None else queryset)]
        return page


class DecideCorrectionView(APIView):
    """Accept or refuse a correction; both versions are kept.

    Accepting applies the corrected judgments when the correction was requested blind; one
    requested after the expert saw the discussion (`after_discussion`) is recorded as a
    post-discussion revision and the blind verdict stays as submitted.
    """

    permission_classes = [IsAdmin]

    @extend_schema(request=DecisionInputSerializer, responses=AdminCorrectionSerializer)
    def post(self, request, correction_id):
        correction = get_object_or_404(CorrectionRequest.objects.select_related("assignment__campaign_response"), pk=correction_id)
        refuse_response(request.user, correction.assignment.campaign_response.response_id)
        data = _valid(DecisionInputSerializer, request)
        try:
            decided = services.decide_correction(correction=correction, admin=request.user, accept=data["accept"], note=data["note"])
        except DjangoValidationError as exc:
            return error_response(exc)
        return Response(AdminCorrectionSerializer(decided).data)


def _valid(serializer_class, request) -> dict:
    form = serializer_class(data=request.data)
    form.is_valid(raise_exception=True)
    return form.validated_data
