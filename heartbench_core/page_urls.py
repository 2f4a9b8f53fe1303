from django.urls import path

from heartbench_core import names, views  # noqa: F401 (names registers the 'name' converter)
from heartbench_core.leaderboard import views as leaderboard

app_name = "core"

urlpatterns = [
    path("", views.dataset_list, name="datasets"),
    path("<name:name>/", views.dataset_detail, name="dataset"),
    path("<name:name>/diff/", views.version_diff, name="diff"),
    path("<name:name>/v/<name:label>/", views.version_detail, name="version"),
    path("<name:name>/v/<name:label>/items/<name:question_id>/", views.item_detail, name="item"),
    path("<name:name>/v/<name:label>/leaderboard/", leaderboard.leaderboard, name="leaderboard"),
    path("<name:name>/v/<name:label>/leaderboard/<path:model>/", leaderboard.leaderboard_model, name="leaderboard-model"),
]
