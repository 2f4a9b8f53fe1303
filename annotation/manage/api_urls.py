"""API of campaign management (under /api/v1/annotation/): profiles and calibration results for
experts and admins; campaigns, calibrations, assignments and alerts for admins under manage/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from annotation.manage import api, needs_action_api

router = SimpleRouter()
router.register("profiles", api.ProfileViewSet, basename="api-profile")
router.register("calibration-results", api.CalibrationResultViewSet, basename="api-calibration-result")
router.register("manage/campaigns", api.CampaignViewSet, basename="api-campaign")
router.register("manage/assignments", api.AssignmentViewSet, basename="api-manage-assignment")
router.register("manage/alerts", api.AlertViewSet, basename="api-alert")

urlpatterns = [
    path("manage/needs-action/", needs_action_api.NeedsActionView.as_view(), name="api-needs-action"),
    path("manage/reports/<str:kind>/<int:report_id>/resolve/", needs_action_api.ReportResolveView.as_view(), name="api-report-resolve"),
    path("my-reports/", needs_action_api.MyReportsView.as_view(), name="api-my-reports"),
    path("manage/calibrations/", api.CalibrationCreateView.as_view(), name="api-calibration-create"),
    path("manage/gold-sets/", api.GoldSetCreateView.as_view(), name="api-gold-set-create"),
    path("manage/dual-roles/", api.DualRoleConflictsView.as_view(), name="api-dual-roles"),
    path("manage/pay-policy/", api.PayPolicyView.as_view(), name="api-pay-policy"),
    *router.urls,
]
