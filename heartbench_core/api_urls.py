from django.urls import include, path
from rest_framework.routers import DefaultRouter

from heartbench_core.datasets import api as datasets_api
from heartbench_core.judging import api as judging_api
from heartbench_core.judging import api_runs as runs_api
from heartbench_core.leaderboard import api as leaderboard_api
from heartbench_core.people import api as people_api

router = DefaultRouter()
router.register("datasets", datasets_api.DatasetViewSet, basename="dataset")
router.register("versions", datasets_api.VersionViewSet, basename="version")
router.register("items", datasets_api.ItemViewSet, basename="item")
router.register("models", datasets_api.LanguageModelViewSet, basename="model")
router.register("responses", datasets_api.ResponseViewSet, basename="response")
router.register("judge-runs", judging_api.JudgeRunViewSet, basename="judge-run")
router.register("people", people_api.PersonViewSet, basename="person")
router.register("endpoints", runs_api.EndpointViewSet, basename="endpoint")
router.register("judge-templates", runs_api.JudgeTemplateViewSet, basename="judge-template")
router.register("endpoint-runs", runs_api.EndpointRunViewSet, basename="endpoint-run")

urlpatterns = [
    path("import/heartbench/", datasets_api.ImportHeartbenchView.as_view(), name="api-import-heartbench"),
    path("import/responses/", datasets_api.ImportResponsesView.as_view(), name="api-import-responses"),
    path("import/verdicts/", judging_api.ImportVerdictsView.as_view(), name="api-import-verdicts"),
    path("scores/", leaderboard_api.ScoresView.as_view(), name="api-scores"),
    path("scores/leaderboard/", leaderboard_api.LeaderboardView.as_view(), name="api-leaderboard"),
    path("", include(router.urls)),
]
