"""Pages of the knowledge library (under /work/library/)."""

from django.urls import path

from annotation.knowledge import views
from heartbench_core import names  # noqa: F401 (registers the 'name' converter)

urlpatterns = [
    path("library/", views.index, name="library"),
    path("library/review/", views.review_queue, name="faq_review_queue"),
    path("library/faq/new/", views.faq_create, name="faq_create"),
    path("library/faq/<int:pk>/", views.faq_detail, name="faq"),
    path("library/faq/<int:pk>/edit/", views.faq_edit, name="faq_edit"),
    path("library/faq/<int:pk>/submit/", views.faq_submit, name="faq_submit"),
    path("library/faq/<int:pk>/review/", views.faq_review, name="faq_review"),
    path("library/faq/<int:pk>/retire/", views.faq_retire, name="faq_retire"),
    path("library/faq/<int:pk>/revise/", views.faq_revise, name="faq_revise"),
    path("library/cases/new/", views.case_create, name="case_create"),
    path("library/cases/<int:pk>/", views.case_detail, name="case"),
    path("library/cases/<int:pk>/edit/", views.case_edit, name="case_edit"),
    path("library/cases/<int:pk>/publish/", views.case_publish, name="case_publish"),
    path("library/cases/<int:pk>/retire/", views.case_retire, name="case_retire"),
    path("library/guidelines/<name:name>/", views.dataset_guidelines, name="dataset_guidelines"),
    path("library/export.jsonl", views.export, name="library_export"),
    path("library/import/", views.import_file, name="library_import"),
    # Beside the judging page: the expert's own assignment.
    path("a/<str:public_id>/library/", views.judge_library, name="judge_library"),
    # One entry, named in the query (?faq=<id> or ?case=<id>, and the criterion in focus), and "did this help?" (posted).
    path("a/<str:public_id>/library/entry/", views.judge_library_entry, name="judge_library_entry"),
    path("a/<str:public_id>/library/helped/", views.judge_library_helped, name="judge_library_helped"),
]
