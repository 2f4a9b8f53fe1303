"""API of the blind workspace (under /api/v1/annotation/)."""

from django.urls import path

from annotation.workspace import api

urlpatterns = [
    path("assignments/", api.MyAssignmentsView.as_view(), name="api-ws-assignments"),
    path("next/", api.NextResponseView.as_view(), name="api-ws-next"),
    path("campaigns/<int:campaign_id>/", api.ExpertCampaignView.as_view(), name="api-ws-campaign"),
    path("assignments/<str:public_id>/", api.AssignmentDetailView.as_view(), name="api-ws-assignment"),
    path("assignments/<str:public_id>/draft/", api.DraftView.as_view(), name="api-ws-draft"),
    path("assignments/<str:public_id>/reclaim/", api.ReclaimView.as_view(), name="api-ws-reclaim"),
    path("assignments/<str:public_id>/time/", api.TimeView.as_view(), name="api-ws-time"),
    path("assignments/<str:public_id>/submit/", api.SubmitView.as_view(), name="api-ws-submit"),
    path("assignments/<str:public_id>/skip/", api.SkipView.as_view(), name="api-ws-skip"),
    path("assignments/<str:public_id>/unclear/", api.UnclearReportView.as_view(), name="api-ws-unclear"),
    path("assignments/<str:public_id>/problem/", api.ProblemReportView.as_view(), name="api-ws-problem"),
    path("assignments/<str:public_id>/corrections/", api.CorrectionsView.as_view(), name="api-ws-corrections"),
    path("assignments/<str:public_id>/discussion/", api.DiscussionView.as_view(), name="api-ws-discussion"),
    path("assignments/<str:public_id>/discussion/votes/", api.DiscussionVoteView.as_view(), name="api-ws-discussion-votes"),
    path("corrections/", api.AdminCorrectionsView.as_view(), name="api-ws-admin-corrections"),
    path("corrections/<int:correction_id>/decide/", api.DecideCorrectionView.as_view(), name="api-ws-decide-correction"),
]
