from django.urls import include, path
from rest_framework.routers import DefaultRouter

from heartbench_core import api

router = DefaultRouter()
router.register("datasets", api.DatasetViewSet, basename="dataset")
router.register("versions", api.VersionViewSet, basename="version")
router.register("items", api.ItemViewSet, basename="item")
router.register("models", api.LanguageModelViewSet, basename="model")
router.register("responses", api.ResponseViewSet, basename="response")

urlpatterns = [
    path("import/heartbench/", api.ImportHeartbenchView.as_view(), name="api-import-heartbench"),
    path("import/responses/", api.ImportResponsesView.as_view(), name="api-import-responses"),
    path("", include(router.urls)),
]
