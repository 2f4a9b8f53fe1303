from django.urls import include, path
from rest_framework.routers import DefaultRouter

from rubrics import api

router = DefaultRouter()
router.register("criteria", api.CriterionViewSet, basename="rubrics-criterion")
router.register("revisions", api.RevisionViewSet, basename="rubrics-revision")
router.register("audit", api.AuditViewSet, basename="rubrics-audit")

urlpatterns = [
    path("stale/", api.StaleView.as_view(), name="rubrics-api-stale"),
    path("quality/", api.QualityView.as_view(), name="rubrics-api-quality"),
    path("worklist/", api.WorkListView.as_view(), name="rubrics-api-worklist"),
    path("flags/", api.FlagView.as_view(), name="rubrics-api-flag"),
    path("publish/", api.PublishView.as_view(), name="rubrics-api-publish"),
    path("", include(router.urls)),
]
