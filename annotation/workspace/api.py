"""REST API of the blind workspace: the same services and read models as the pages.

Experts see only their own work, addressed by assignment public id; another expert's id
answers 404 like an id that does not exist. Serializers here are blind by construction: they
name no model, no other expert, no verdict, no gold flag.
"""

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.pagination import CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Assignment, Campaign, CorrectionRequest, ItemProblemReport, Skip, UnclearCriterionReport
from annotation.services import workspace as services
from annotation.services.assignment import assign_next_response, next_response_if_any
from annotation.services.guidelines import GuidelinesInForce, render_guidelines
from annotation.workspace import read_models
from annotation.workspace.filters import OwnAssignmentFilters
from annotation.workspace.selectors import OwnProgress
from annotation.workspace.serializers import AdminCorrectionsQuerySerializer
from heartbench_core.api import KeysetPagination, RecordsShown, valid_body
from heartbench_core.api_types import TypedSerializer
from heartbench_core.http import signed_in
from heartbench_core.paging import decode_place
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission

IsExpert = role_permission(Role.EXPERT)
IsAdmin = role_permission(Role.ADMIN)
CRITERION_KINDS = ("reward", "penalty", "catastrophic")


# --- serializers -----------------------------------------------------------------------------


class JudgmentEntrySerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    rationale = serializers.CharField(
        allow_blank=True, required=False, default="", trim_whitespace=False, max_length=services.RATIONALE_MAX_CHARS
    )
    hit = serializers.BooleanField(allow_null=True, required=False, default=None)


def _entries(rows: list[dict[str, Any]]) -> list[services.DraftEntry]:
    return [services.DraftEntry(criterion_id=r["criterion"], rationale=r.get("rationale", ""), hit=r.get("hit")) for r in rows]


class DraftInputSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=0,
        help_text="The draft version this copy is based on: the assignment's `version`, or that of the last save's answer. "
        "A draft that has moved on since (another tab or client saved) is not overwritten: 409 with the current draft.",
    )
    judgments = JudgmentEntrySerializer(many=True, required=False, default=list)
    active_seconds = serializers.IntegerField(min_value=0, required=False, default=0)
    cursor = serializers.IntegerField(
        min_value=1,
        max_value=services.MAX_CURSOR,
        required=False,
        allow_null=True,
        default=None,
        help_text="Position (from 1) of the criterion the expert is on, so the page returns there (drafts only).",
    )


class TimeInputSerializer(serializers.Serializer):
    active_seconds = serializers.IntegerField(min_value=0)


class NextInputSerializer(serializers.Serializer):
    campaign = serializers.IntegerField()


class CommentInputSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=services.COMMENT_MAX_CHARS)


class UnclearInputSerializer(CommentInputSerializer):
    criterion = serializers.IntegerField()


class SkipInputSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=Skip.Reason.choices, help_text="Why the expert cannot judge the response.")
    note = serializers.CharField(
        max_length=services.COMMENT_MAX_CHARS, required=False, allow_blank=True, default="", help_text="Required when the reason is other."
    )


class CorrectionInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=services.COMMENT_MAX_CHARS)
    judgments = JudgmentEntrySerializer(many=True)


class CorrectionDecisionInputSerializer(serializers.Serializer):
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

    def get_url(self, obj: Assignment) -> str:
        return reverse("annotation:judge", args=[obj.public_id])


class DialogueTurnSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="The speaker: A or B.")
    content = serializers.CharField()


class WorkspaceCriterionSerializer(serializers.Serializer):
    """A criterion as the expert judges it; its weight only when the campaign shows weights."""

    id = serializers.IntegerField(source="criterion.pk")
    number = serializers.IntegerField(help_text="Its number on the judging page.")
    kind = serializers.ChoiceField(choices=CRITERION_KINDS)
    ability = serializers.CharField(source="criterion.ability")
    ability_name = serializers.CharField()
    text = serializers.CharField(source="criterion.text")
    weight = serializers.IntegerField(
        source="criterion.weight", required=False, allow_null=True, help_text="Present only when the campaign shows weights."
    )

    def to_representation(self, row: read_models.CriterionRow) -> dict[str, Any]:
        body = super().to_representation(row)
        if not self.context.get("show_weights"):
            del body["weight"]
        return body


class GuidelinesSerializer(serializers.Serializer):
    """The guidelines in force (the campaign's own, else its dataset's): the Markdown as written and as the page shows it."""

    source = serializers.ChoiceField(  # type: ignore[assignment]  # the key is "source"; the metaclass takes it out of the class
        choices=[("campaign", "campaign"), ("dataset", "dataset")],
        help_text="campaign: the campaign's own guidelines; dataset: its dataset's (a campaign's own override them).",
    )
    revision = serializers.IntegerField()
    body = serializers.CharField(help_text="Markdown.")
    html = serializers.SerializerMethodField(help_text="The body rendered and sanitised, as the judging page shows it.")
    change_note = serializers.CharField()
    created_at = serializers.DateTimeField()

    def get_html(self, guidelines: GuidelinesInForce) -> str:
        return str(render_guidelines(guidelines.body))


class NoWorkSerializer(serializers.Serializer):
    """Why a campaign gives the expert no new work, and what to do about it."""

    code = serializers.ChoiceField(choices=read_models.NO_WORK_CODES)
    message = serializers.CharField(help_text="The reason in words, in the expert's language.")
    action_url = serializers.CharField(allow_blank=True, help_text="A page that helps (an open draft, the profile), or empty.")
    calibration = serializers.IntegerField(
        source="calibration.pk", allow_null=True, default=None, help_text="A calibration campaign to start (POST next/ with it)."
    )
    available_from = serializers.DateTimeField(allow_null=True, help_text="When a retake becomes possible.")
    deadline_passed = serializers.BooleanField()


class ExpertCampaignSerializer(serializers.Serializer):
    """A campaign as its expert sees it: its settings for the judging page, its guidelines, and why it gives no work (if so)."""

    id = serializers.IntegerField(source="campaign.pk")
    name = serializers.CharField(source="campaign.name")
    kind = serializers.ChoiceField(source="campaign.kind", choices=Campaign.Kind.choices)
    status = serializers.ChoiceField(source="campaign.status", choices=Campaign.Status.choices)
    status_reason = serializers.CharField(source="campaign.status_reason")
    deadline = serializers.DateTimeField(source="campaign.deadline", allow_null=True)
    rationale_min_chars = serializers.IntegerField(source="campaign.rationale_min_chars")
    show_weights = serializers.BooleanField(source="campaign.show_weights")
    guidelines = GuidelinesSerializer(allow_null=True)
    no_work = NoWorkSerializer(allow_null=True, help_text="Null when the campaign has work for the expert now (POST next/ to take it).")


class OwnJudgmentSerializer(serializers.Serializer):
    criterion = serializers.IntegerField(source="criterion.pk")
    rationale = serializers.CharField()
    hit = serializers.BooleanField(allow_null=True, help_text="Null until the expert says hit or miss.")


class WorkProgressSerializer(TypedSerializer[OwnProgress]):
    class Meta:
        dataclass = OwnProgress


class AssignmentDetailSerializer(serializers.Serializer):
    """One of the expert's assignments (the assignment summary's fields, then what the judging page shows)."""

    id = serializers.CharField(source="assignment.public_id")
    campaign = CampaignBriefSerializer(source="assignment.campaign_response.campaign")
    question_id = serializers.CharField(source="assignment.campaign_response.item.question_id")
    status = serializers.ChoiceField(source="assignment.status", choices=Assignment.Status.choices)
    reserved_at = serializers.DateTimeField(source="assignment.reserved_at")
    expires_at = serializers.DateTimeField(source="assignment.expires_at", allow_null=True)
    draft_saved_at = serializers.DateTimeField(source="assignment.draft_saved_at", allow_null=True)
    submitted_at = serializers.DateTimeField(source="assignment.submitted_at", allow_null=True)
    url = serializers.SerializerMethodField(help_text="The judging page of the assignment.")
    dialogue = DialogueTurnSerializer(many=True)
    response = serializers.CharField(source="response_text")
    rationale_min_chars = serializers.IntegerField(source="campaign.rationale_min_chars")
    show_weights = serializers.BooleanField(source="campaign.show_weights")
    deadline = serializers.DateTimeField(source="campaign.deadline", allow_null=True)
    guidelines = GuidelinesSerializer(
        allow_null=True, help_text="The guidelines in force (the campaign's, else its dataset's); null when none."
    )
    cursor = serializers.IntegerField(help_text="Position (from 1) of the criterion the expert was on.")
    version = serializers.IntegerField(
        source="assignment.draft_version", help_text="The draft's version: what the next save or the submission is based on."
    )
    lapsed = serializers.BooleanField(help_text="The reservation lapsed: read-only until taken back (POST reclaim/).")
    slot_open = serializers.BooleanField(help_text="For lapsed work: whether it can be taken back now.")
    skipped = serializers.CharField(
        help_text="The expert skipped this response: their reason, in the caller's language (empty when they did not). It is not "
        "taken back."
    )
    on_hold = serializers.CharField(
        help_text="Pre-assigned work of a paused or closed campaign, or of an expert paused or away: why it waits, in the "
        "caller's language (empty when it does not). Drafts still save; submission waits until the work resumes."
    )
    criteria = serializers.SerializerMethodField()
    judgments = serializers.SerializerMethodField(help_text="The expert's own judgments so far (criteria with a rationale or a hit/miss).")
    progress = WorkProgressSerializer(help_text="The expert's progress in the campaign.")
    active_seconds = serializers.IntegerField(source="assignment.active_seconds")
    next = serializers.CharField(source="next_public_id", allow_null=True, help_text="The expert's next open assignment, if any.")
    discussion_open = serializers.BooleanField()
    unclear_reported = serializers.SerializerMethodField(help_text="Criteria (ids) the expert reported as unclear.")
    problem_reported = serializers.BooleanField()

    def get_url(self, page: read_models.JudgingPage) -> str:
        return reverse("annotation:judge", args=[page.assignment.public_id])

    @extend_schema_field(WorkspaceCriterionSerializer(many=True))
    def get_criteria(self, page: read_models.JudgingPage) -> list[Any]:
        return WorkspaceCriterionSerializer(page.rows, many=True, context={"show_weights": page.campaign.show_weights}).data  # type: ignore[return-value]  # many=True: a list; the stubs type .data as a dict

    @extend_schema_field(OwnJudgmentSerializer(many=True))
    def get_judgments(self, page: read_models.JudgingPage) -> list[Any]:
        return OwnJudgmentSerializer([r for r in page.rows if r.rationale or r.hit is not None], many=True).data  # type: ignore[return-value]  # many=True: a list; the stubs type .data as a dict

    def get_unclear_reported(self, page: read_models.JudgingPage) -> list[int]:
        return [r.criterion.pk for r in page.rows if r.reported_unclear]


class DraftSavedSerializer(serializers.ModelSerializer):
    saved_at = serializers.DateTimeField(source="draft_saved_at")
    version = serializers.IntegerField(source="draft_version", help_text="The draft's version now: base the next save on it.")

    class Meta:
        model = Assignment
        fields = ["saved_at", "version", "active_seconds", "expires_at", "cursor"]


class SavedJudgmentSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    rationale = serializers.CharField(allow_blank=True)
    hit = serializers.BooleanField(allow_null=True)


class CurrentDraftSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The draft's version now: send the merged judgments based on it.")
    saved_at = serializers.DateTimeField(allow_null=True)
    judgments = SavedJudgmentSerializer(many=True, help_text="Every criterion the draft holds, as saved.")


class DraftConflictSerializer(serializers.Serializer):
    """A save or submission based on an older version of the draft: nothing was written."""

    detail = serializers.CharField()
    current = CurrentDraftSerializer()


class ActiveTimeSerializer(serializers.Serializer):
    active_seconds = serializers.IntegerField(help_text="Time on task so far, in seconds.")


class SubmittedSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="public_id")
    calibration_result = serializers.SerializerMethodField(
        help_text="The calibration attempt this submission finished (read it at calibration-results/<id>/), else null."
    )

    class Meta:
        model = Assignment
        fields = ["id", "status", "submitted_at", "calibration_result"]

    def get_calibration_result(self, assignment: Assignment) -> int | None:
        return self.context.get("calibration_result")


class UnclearReportSerializer(serializers.ModelSerializer):
    criterion = serializers.IntegerField(source="criterion_id")

    class Meta:
        model = UnclearCriterionReport
        fields = ["id", "criterion", "created_at"]


class SkipSerializer(serializers.ModelSerializer):
    """What the expert skipped and why: their own words only, nothing about the response."""

    assignment = serializers.CharField(source="assignment.public_id")
    next = serializers.SerializerMethodField(help_text="The expert's next open assignment in the campaign, if one was reserved.")

    class Meta:
        model = Skip
        fields = ["assignment", "reason", "note", "created_at", "next"]

    def get_next(self, skip: Skip) -> str | None:
        return self.context.get("next")


class ProblemReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = ItemProblemReport
        fields = ["id", "created_at"]


class DiscussionCommentSerializer(serializers.Serializer):
    author = serializers.CharField(source="author_label", help_text="A pseudonym, the same for one participant throughout the thread.")
    own = serializers.BooleanField(source="is_own")
    criterion_number = serializers.IntegerField(allow_null=True, help_text="The criterion the comment is about, if any.")
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


class StanceSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    number = serializers.IntegerField()
    hit = serializers.IntegerField(help_text="Participants whose stance is hit.")
    miss = serializers.IntegerField(help_text="Participants whose stance is miss.")
    mine = serializers.BooleanField(allow_null=True, help_text="The expert's own stance; null when they have none.")


class DiscussionSerializer(serializers.Serializer):
    """The thread of a response: its comments and, per criterion, the participants' hit/miss stances."""

    comments = DiscussionCommentSerializer(many=True)
    stances = serializers.SerializerMethodField()

    @extend_schema_field(StanceSerializer(many=True))
    def get_stances(self, thread: read_models.Discussion) -> list[Any]:
        rows = [
            {"criterion": row.criterion.pk, "number": row.number, "hit": tally["hit"], "miss": tally["miss"], "mine": tally["mine"]}
            for row, tally in thread.stances
        ]
        return StanceSerializer(rows, many=True).data  # type: ignore[return-value]  # many=True: a list; the stubs type .data as a dict


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
            "id",
            "assignment",
            "status",
            "reason",
            "original",
            "proposed",
            "created_at",
            "decided_at",
            "decision_note",
            "after_discussion",
            "accept_effect",
        ]

    def get_accept_effect(self, obj: CorrectionRequest) -> str:
        return ACCEPT_EFFECTS[bool(obj.after_discussion)]


class AdminCorrectionSerializer(CorrectionSerializer):
    expert = serializers.CharField(source="assignment.expert.username")
    campaign = serializers.CharField(source="assignment.campaign_response.campaign.name")
    question_id = serializers.CharField(source="assignment.campaign_response.item.question_id")

    class Meta(CorrectionSerializer.Meta):
        fields = [*CorrectionSerializer.Meta.fields, "expert", "campaign", "question_id"]


# --- views -----------------------------------------------------------------------------------


class ExpertView(APIView):
    permission_classes = [IsExpert]

    def own(self, request: Request, public_id: str) -> Assignment:
        return read_models.own_work(Viewer.of(request), public_id)

    def own_open_discussion(self, request: Request, public_id: str) -> Assignment:
        """`own`, and 404 while the response's discussion is closed (before the input is looked at)."""
        assignment = self.own(request, public_id)
        if not services.discussion_open_for(assignment):
            raise Http404(_("No such discussion."))
        return assignment

    def own_ref(self, request: Request, public_id: str) -> Assignment:
        """`own` for writes whose service locks and re-reads the row: the same 404, a lighter read."""
        return read_models.own_work_ref(Viewer.of(request), public_id)


class OwnAssignmentsPagination(KeysetPagination):
    """The expert's own assignments, read by keyset: the hundredth page costs what the first does, and `count` comes from the
    expert's tallies instead of counting their rows.
    """

    cursor_key = "public_id"

    def paginate_queryset(  # type: ignore[override]  # pages assignments only
        self, queryset: QuerySet[Assignment], request: Request, view: APIView | None = None
    ) -> list[Assignment]:
        size = self.get_page_size(request) or 50
        raw = request.query_params.get(self.page_query_param, "1")
        if not raw.isdecimal() or int(raw) < 1:
            raise NotFound(self.invalid_page_message.format(page_number=raw, message=Paginator.default_error_messages["invalid_page"]))
        number = int(raw)
        count = view.count_all() if isinstance(view, MyAssignmentsView) else queryset.count()
        after = request.query_params.get(self.after_query_param)
        if after is not None:
            reserved_at, public_id = self._decode(after)
            rows = list(view.rows_after(reserved_at, public_id)[: size + 1]) if isinstance(view, MyAssignmentsView) else []
        else:
            offset = (number - 1) * size
            if number > 1 and offset >= count:
                raise NotFound(self.invalid_page_message.format(page_number=raw, message=Paginator.default_error_messages["no_results"]))
            rows = list(queryset[offset : offset + size + 1])
        return self.keyset_page(request, (rows[:size], len(rows) > size), number=number, count=count)

    def get_paginated_response(self, data: Any) -> Response:
        return self.keyset_response(data)

    def get_next_link(self) -> str | None:
        return self.keyset_next(self.number + 1)

    def get_previous_link(self) -> str | None:
        return None if self.number <= 1 else self.keyset_previous_link()

    @staticmethod
    def _decode(cursor: str) -> tuple[datetime, str]:
        place = decode_place(cursor)
        if place is None or not re.fullmatch(r"[\w-]{1,32}", place[1], re.ASCII):
            raise NotFound(CursorPagination.invalid_cursor_message)
        return place


class MyAssignmentsView(ListAPIView[Assignment]):
    """The expert's own reserved and submitted assignments, newest first, in the API's default pages (continued by keyset)."""

    permission_classes = [IsExpert]
    serializer_class = AssignmentSummarySerializer
    pagination_class = OwnAssignmentsPagination
    # No ordering parameter: an expert's list orders by reservation time only, so nothing sorts by
    # a field the summary does not show.
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Assignment]:
        return read_models.own_assignments(Viewer.of(self.request), self.request.query_params)

    def rows_after(self, reserved_at: datetime, public_id: str) -> QuerySet[Assignment]:
        """The list past the row (reserved_at, public_id): where a page given by `after` continues."""
        return read_models.own_assignments(Viewer.of(self.request), self.request.query_params, after=(reserved_at, public_id))

    def count_all(self) -> int:
        """The list's length, from the expert's tallies."""
        return read_models.own_assignment_count(Viewer.of(self.request), self.request.query_params)

    @extend_schema(parameters=OwnAssignmentFilters.parameters())
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class NextResponseView(ExpertView):
    """Reserve the next response of a campaign (or return the expert's open reservation there)."""

    @extend_schema(request=NextInputSerializer, responses={200: AssignmentDetailSerializer, 204: None})
    def post(self, request: Request) -> Response:
        expert, viewer = signed_in(request), Viewer.of(request)
        data = valid_body(NextInputSerializer, request)
        campaign = read_models.expert_campaign(viewer, data["campaign"])
        assignment = assign_next_response(expert=expert, campaign=campaign)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(AssignmentDetailSerializer(read_models.judging_screen(viewer, assignment.public_id, lapsed_too=False)).data)


class ExpertCampaignView(ExpertView):
    """One of the expert's campaigns: settings, current guidelines, and why it gives no new work (if it does not)."""

    @extend_schema(responses=ExpertCampaignSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(ExpertCampaignSerializer(read_models.campaign_card(Viewer.of(request), campaign_id)).data)


class ReclaimView(ExpertView):
    """Take back, with its draft, a response whose reservation lapsed, while its slot is open (409 when it went to others)."""

    @extend_schema(request=None, responses=AssignmentDetailSerializer)
    def post(self, request: Request, public_id: str) -> Response:
        expert, viewer = signed_in(request), Viewer.of(request)
        services.reclaim_assignment(assignment=read_models.own_work(viewer, public_id, lapsed_too=True), expert=expert)
        return Response(AssignmentDetailSerializer(read_models.judging_screen(viewer, public_id, lapsed_too=False)).data)


class AssignmentDetailView(ExpertView):
    """One of the expert's assignments: dialogue, response, criteria and their own judgments."""

    @extend_schema(responses=AssignmentDetailSerializer)
    def get(self, request: Request, public_id: str) -> Response:
        return Response(AssignmentDetailSerializer(read_models.judging_screen(Viewer.of(request), public_id)).data)


class DraftView(ExpertView):
    """Autosave: upsert rationale and hit/miss of some criteria (and report time on task), based on the draft's version."""

    @extend_schema(request=DraftInputSerializer, responses={200: DraftSavedSerializer, 409: DraftConflictSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own_ref(request, public_id)
        data = valid_body(DraftInputSerializer, request)
        saved = services.save_draft(
            assignment=assignment,
            expert=signed_in(request),
            entries=_entries(data["judgments"]),
            active_seconds=data["active_seconds"],
            cursor=data["cursor"],
            based_on=data["version"],
        )
        return Response(DraftSavedSerializer(saved).data)


class TimeView(ExpertView):
    """Report time on task (seconds with the page visible)."""

    @extend_schema(request=TimeInputSerializer, responses=ActiveTimeSerializer)
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own_ref(request, public_id)
        data = valid_body(TimeInputSerializer, request)
        total = services.record_active_time(assignment=assignment, expert=signed_in(request), seconds=data["active_seconds"])
        return Response(ActiveTimeSerializer({"active_seconds": total}).data)


class SubmitView(ExpertView):
    """Submit: every criterion needs a rationale and then hit/miss; immutable afterwards (based on a version, as a draft save is)."""

    @extend_schema(request=DraftInputSerializer, responses={200: SubmittedSerializer, 409: DraftConflictSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own_ref(request, public_id)
        data = valid_body(DraftInputSerializer, request)
        entries = _entries(data["judgments"])
        done = services.submit_with_draft(
            assignment=assignment,
            expert=signed_in(request),
            entries=entries,
            active_seconds=data["active_seconds"],
            based_on=data["version"],
        )
        finished = read_models.attempt_finished_by(Viewer.of(request), done)
        return Response(SubmittedSerializer(done, context={"calibration_result": None if finished is None else finished.pk}).data)


class UnclearReportView(ExpertView):
    """Report a criterion as unclear (goes to the rubric authors' work list)."""

    @extend_schema(request=UnclearInputSerializer, responses={201: UnclearReportSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own(request, public_id)
        data = valid_body(UnclearInputSerializer, request)
        report = services.report_unclear_criterion(
            assignment=assignment, expert=signed_in(request), criterion_id=data["criterion"], comment=data["comment"]
        )
        return Response(UnclearReportSerializer(report).data, status=201)


class ProblemReportView(ExpertView):
    """Report a problem with the item or the response as a whole."""

    @extend_schema(request=CommentInputSerializer, responses={201: ProblemReportSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own(request, public_id)
        data = valid_body(CommentInputSerializer, request)
        report = services.report_item_problem(assignment=assignment, expert=signed_in(request), comment=data["comment"])
        return Response(ProblemReportSerializer(report).data, status=201)


class SkipView(ExpertView):
    """Skip an open response the expert cannot judge, with a reason; it goes to another expert, and the next one is reserved."""

    @extend_schema(request=SkipInputSerializer, responses={201: SkipSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        expert = signed_in(request)
        assignment = self.own_ref(request, public_id)
        data = valid_body(SkipInputSerializer, request)
        skip = services.skip_assignment(assignment=assignment, expert=expert, reason=data["reason"], note=data["note"])
        following = next_response_if_any(expert=expert, campaign=skip.campaign)
        next_id = following.public_id if following is not None else None
        return Response(SkipSerializer(skip, context={"next": next_id}).data, status=201)


class CorrectionsView(ExpertView):
    """The expert's correction requests on one submitted response; POST asks for a new one."""

    @extend_schema(responses=CorrectionSerializer(many=True))
    def get(self, request: Request, public_id: str) -> Response:
        own = read_models.own_corrections(Viewer.of(request), self.own(request, public_id))
        return Response(CorrectionSerializer(own, many=True).data)

    @extend_schema(request=CorrectionInputSerializer, responses={201: CorrectionSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own(request, public_id)
        data = valid_body(CorrectionInputSerializer, request)
        correction = services.request_correction(
            assignment=assignment, expert=signed_in(request), reason=data["reason"], entries=_entries(data["judgments"])
        )
        return Response(CorrectionSerializer(correction).data, status=201)


class DiscussionView(ExpertView):
    """The discussion of a response, for the experts who judged it, once all k judgments are in."""

    @extend_schema(responses=DiscussionSerializer)
    def get(self, request: Request, public_id: str) -> Response:
        assignment = self.own(request, public_id)
        thread = read_models.discussion(Viewer.of(request), assignment)
        # The thread shows other raters' stances: a correction requested from now on is a post-discussion revision.
        services.mark_discussion_seen(assignment=assignment, expert=signed_in(request))
        return Response(DiscussionSerializer(thread).data)

    @extend_schema(request=DiscussionCommentInputSerializer, responses={201: DiscussionSerializer})
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own_open_discussion(request, public_id)
        data = valid_body(DiscussionCommentInputSerializer, request)
        services.post_comment(assignment=assignment, expert=signed_in(request), body=data["body"], criterion_id=data["criterion"])
        return Response(DiscussionSerializer(read_models.discussion(Viewer.of(request), assignment)).data, status=201)


class DiscussionVoteView(ExpertView):
    """Set the expert's hit/miss stance on a criterion in the discussion."""

    @extend_schema(request=DiscussionVoteInputSerializer, responses=DiscussionSerializer)
    def post(self, request: Request, public_id: str) -> Response:
        assignment = self.own_open_discussion(request, public_id)
        data = valid_body(DiscussionVoteInputSerializer, request)
        services.cast_vote(assignment=assignment, expert=signed_in(request), criterion_id=data["criterion"], hit=data["hit"])
        return Response(DiscussionSerializer(read_models.discussion(Viewer.of(request), assignment)).data)


class AdminCorrectionsView(RecordsShown, ListAPIView[CorrectionRequest]):
    """Correction requests, oldest first (pending by default; ?status=accepted|refused|all, ?campaign=)."""

    permission_classes = [IsAdmin]
    serializer_class = AdminCorrectionSerializer
    ordering_fields = ["created_at", "decided_at"]
    ordering = ["created_at", "id"]

    def get_queryset(self) -> QuerySet[CorrectionRequest]:
        query = valid_query(AdminCorrectionsQuerySerializer, self.request)
        # An admin who is an expert of an open campaign does not see its raters' judgments (heartbench_core.blindness).
        return read_models.corrections(Viewer.of(self.request), status=query["status"], campaign=query.get("campaign"))

    @extend_schema(parameters=[AdminCorrectionsQuerySerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def record(self, rows: Sequence[CorrectionRequest]) -> None:
        read_models.corrections_shown(Viewer.of(self.request), rows)  # they show other raters' judgments


class DecideCorrectionView(APIView):
    """Accept or refuse a correction; both versions are kept.

    Accepting applies the corrected judgments when the correction was requested blind; one
    requested after the expert saw the discussion (`after_discussion`) is recorded as a
    post-discussion revision and the blind verdict stays as submitted.
    """

    permission_classes = [IsAdmin]

    @extend_schema(request=CorrectionDecisionInputSerializer, responses=AdminCorrectionSerializer)
    def post(self, request: Request, correction_id: int) -> Response:
        correction = read_models.correction_to_decide(Viewer.of(request), correction_id)
        data = valid_body(CorrectionDecisionInputSerializer, request)
        decided = services.decide_correction(correction=correction, admin=signed_in(request), accept=data["accept"], note=data["note"])
        return Response(AdminCorrectionSerializer(decided).data)
