from django.urls import path

from heartbench_core import views, views_scoring

app_name = "core"

urlpatterns = [
    path("", views.dataset_list, name="datasets"),
    path("<str:name>/", views.dataset_detail, name="dataset"),
    path("<str:name>/diff/", views.version_diff, name="diff"),
    path("<str:name>/v/<str:label>/", views.version_detail, name="version"),
    path("<str:name>/v/<str:label>/items/<str:question_id>/", views.item_detail, name="item"),
    path("<str:name>/v/<str:label>/leaderboard/", views_scoring.leaderboard, name="leaderboard"),
    path("<str:name>/v/<str:label>/leaderboard/<path:model>/", views_scoring.leaderboard_model, name="leaderboard-model"),
]
