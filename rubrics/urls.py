from django.urls import path

from heartbench_core import names  # noqa: F401 (registers the 'name' converter)
from rubrics import views

app_name = "rubrics"

urlpatterns = [
    path("", views.index, name="index"),
    path("review/", views.review_queue, name="review"),
    path("audit/", views.audit_log, name="audit"),
    path("revisions/<int:pk>/", views.revision_detail, name="revision"),
    path("revisions/<int:pk>/submit/", views.submit_revision, name="submit"),
    path("revisions/<int:pk>/review/", views.review_revision, name="review-revision"),
    path("revisions/<int:pk>/comment/", views.comment, name="comment"),
    path("criteria/<uuid:key>/", views.criterion_row, name="criterion"),
    path("criteria/<uuid:key>/edit/", views.edit_criterion, name="edit"),
    path("criteria/<uuid:key>/retire/", views.retire_criterion, name="retire"),
    path("criteria/<uuid:key>/flag/", views.flag, name="flag"),
    path("criteria/<uuid:key>/history/", views.history, name="history"),
    path("worklist/<str:kind>/<int:pk>/resolve/", views.resolve, name="resolve"),
    path("d/<name:name>/", views.dataset_items, name="dataset"),
    path("d/<name:name>/publish/", views.publish, name="publish"),
    path("d/<name:name>/stale/", views.stale, name="stale"),
    path("d/<name:name>/items/<name:question_id>/", views.editor, name="editor"),
    path("d/<name:name>/items/<name:question_id>/add/", views.add_criterion, name="add"),
]
