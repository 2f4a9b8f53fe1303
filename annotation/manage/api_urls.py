"""API of campaign management (under /api/v1/annotation/): profiles and calibration results for
experts and admins; campaigns, calibrations, assignments and alerts for admins under manage/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from annotation.manage import api

router = SimpleRouter()
router.register("profiles", api.ProfileViewSet, basename="api-profile")
router.register("calibration-results", api.CalibrationResultViewSet, basename="api-calibration-result")
router.register("manage/campaigns", api.CampaignViewSet, basename="api-campaign")
router.register("manage/assignments", api.AssignmentViewSet, basename="api-manage-assignment")
router.register("manage/alerts", api.AlertViewSet, basename="api-alert")

urlpatterns = [
    path("manage/calibrations/", api.CalibrationCreateView.as_view(), name="api-calibration-create"),
    path("manage/gold-sets/", api.GoldSetCreateView.as_view(), name="api-gold-set-create"),
    path("manage/dual-roles/", api.DualRoleConflictsView.as_view(), name="api-dual-roles"),
    *router.urls,
]
