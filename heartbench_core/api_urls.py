from django.urls import include, path
from rest_framework.routers import DefaultRouter

from heartbench_core import api, api_endpoint_runs, api_judge_runs, api_people, api_scores

router = DefaultRouter()
router.register("datasets", api.DatasetViewSet, basename="dataset")
router.register("versions", api.VersionViewSet, basename="version")
router.register("items", api.ItemViewSet, basename="item")
router.register("models", api.LanguageModelViewSet, basename="model")
router.register("responses", api.ResponseViewSet, basename="response")
router.register("judge-runs", api_judge_runs.JudgeRunViewSet, basename="judge-run")
router.register("people", api_people.PersonViewSet, basename="person")
router.register("endpoints", api_endpoint_runs.EndpointViewSet, basename="endpoint")
router.register("judge-templates", api_endpoint_runs.JudgeTemplateViewSet, basename="judge-template")
router.register("endpoint-runs", api_endpoint_runs.EndpointRunViewSet, basename="endpoint-run")

urlpatterns = [
    path("import/heartbench/", api.ImportHeartbenchView.as_view(), name="api-import-heartbench"),
    path("import/responses/", api.ImportResponsesView.as_view(), name="api-import-responses"),
    path("import/verdicts/", api_judge_runs.ImportVerdictsView.as_view(), name="api-import-verdicts"),
    path("scores/", api_scores.ScoresView.as_view(), name="api-scores"),
    path("scores/leaderboard/", api_scores.LeaderboardView.as_view(), name="api-leaderboard"),
    path("", include(router.urls)),
]
