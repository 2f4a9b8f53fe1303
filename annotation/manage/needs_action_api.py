"""API of the "needs action" home (admins), the resolve action on an expert's report (admins), and an expert's own reports.

The same read models and service as the pages; an expert's reports carry nothing about models,
gold checks or other raters.
"""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.manage import read_models
from annotation.models import ItemProblemReport, UnclearCriterionReport
from annotation.services.reports import REPLY_MAX_CHARS, REPORT_KINDS, resolve_report
from heartbench_core.api import ComputedListView, valid_body
from heartbench_core.http import signed_in
from heartbench_core.query_params import valid_query
from heartbench_core.read_models import Viewer
from heartbench_core.roles import Role, role_permission

IsAdmin = role_permission(Role.ADMIN)
IsExpert = role_permission(Role.EXPERT)


class NeedsActionSectionSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    count = serializers.IntegerField(help_text="Rows of the section that need action.")


class NeedsActionSerializer(serializers.Serializer):
    corrections = serializers.IntegerField(help_text="Pending correction requests.")
    problem_reports = serializers.IntegerField(help_text="Unresolved problem reports from experts.")
    unclear_reports = serializers.IntegerField(help_text="Unresolved unclear-criterion reports.")
    alerts = serializers.IntegerField(help_text="Open risk alerts the caller may read.")
    unavailable_experts = serializers.IntegerField(help_text="Experts paused or away.")
    total = serializers.IntegerField(help_text="The navigation badge: the five counts above added up.")
    unfillable_slots = serializers.IntegerField(help_text="Open slots of active blind tests no eligible expert can take.")
    behind_schedule = serializers.IntegerField(help_text="Running blind tests whose projected finish misses their deadline.")
    sections = NeedsActionSectionSerializer(many=True, help_text="Sections other apps add (the release gate per dataset version).")


class NeedsActionView(APIView):
    """Admin: the counts of the "needs action" home, with the same blindness rules as the page."""

    permission_classes = [IsAdmin]

    @extend_schema(responses=NeedsActionSerializer)
    def get(self, request: Request) -> Response:
        home = read_models.needs_action(Viewer.of(request)).home
        counts = ("corrections", "problem_reports", "unclear_reports", "alerts", "unavailable_experts", "total")
        data = {name: getattr(home.counts, name) for name in counts}
        return Response(
            NeedsActionSerializer(
                {**data, "unfillable_slots": home.unfillable_count, "behind_schedule": home.behind_count, "sections": home.extra}
            ).data
        )


class ReportReplySerializer(serializers.Serializer):
    reply = serializers.CharField(max_length=REPLY_MAX_CHARS, help_text="What the reporting expert reads.")


class ExpertReportSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(REPORT_KINDS))
    id = serializers.IntegerField()
    campaign = serializers.CharField(help_text="The campaign's name.")
    assignment = serializers.CharField(help_text="The public id of the reporting expert's assignment.")
    criterion = serializers.CharField(allow_null=True, help_text="The criterion's text (unclear-criterion reports only).")
    comment = serializers.CharField()
    created_at = serializers.DateTimeField()
    resolved_at = serializers.DateTimeField(allow_null=True)
    reply = serializers.CharField(allow_blank=True)


def _report_row(kind: str, report: ItemProblemReport | UnclearCriterionReport) -> dict:
    return {
        "kind": kind,
        "id": report.pk,
        "campaign": report.assignment.campaign_response.campaign.name,
        "assignment": report.assignment.public_id,
        "criterion": report.criterion.text if isinstance(report, UnclearCriterionReport) else None,
        "comment": report.comment,
        "created_at": report.created_at,
        "resolved_at": report.resolved_at,
        "reply": report.reply,
    }


class ReportResolveView(APIView):
    """Admin: reply to an expert's report and resolve it (once)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=ReportReplySerializer, responses={200: ExpertReportSerializer})
    def post(self, request: Request, kind: str, report_id: int) -> Response:
        if kind not in REPORT_KINDS:
            raise Http404(_("unknown kind of report"))
        report = read_models.expert_report(Viewer.of(request), kind, report_id)
        reply = valid_body(ReportReplySerializer, request)["reply"]
        resolved = resolve_report(report=report, by=signed_in(request), reply=reply)
        return Response(ExpertReportSerializer(_report_row(kind, resolved)).data)


class MyReportsQuerySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(REPORT_KINDS), required=False, help_text="Only reports of this kind.")
    status = serializers.ChoiceField(choices=["open", "resolved"], required=False, help_text="Only open or only resolved reports.")


class MyReportsView(ComputedListView):
    """Expert: their own reports, newest first, with status and the admins' reply."""

    permission_classes = [IsExpert]
    serializer_class = ExpertReportSerializer

    @extend_schema(parameters=[MyReportsQuerySerializer], responses=ExpertReportSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = valid_query(MyReportsQuerySerializer, request)
        rows = [_report_row(kind, r) for kind, r in read_models.own_reports(Viewer.of(request))]
        if kind := query.get("kind"):
            rows = [r for r in rows if r["kind"] == kind]
        if status := query.get("status"):
            rows = [r for r in rows if (r["resolved_at"] is None) == (status == "open")]
        return self.paginated(rows)
