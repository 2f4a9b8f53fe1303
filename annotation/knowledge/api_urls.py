"""API of the knowledge library (under /api/v1/annotation/library/)."""

from django.urls import path

from annotation.knowledge import api
from heartbench_core import names  # noqa: F401 (registers the 'name' converter)

urlpatterns = [
    path("library/search/", api.SearchView.as_view(), name="api-library-search"),
    path("library/faq/", api.FaqListView.as_view(), name="api-library-faq-list"),
    path("library/faq/<int:pk>/", api.FaqDetailView.as_view(), name="api-library-faq"),
    path("library/faq/<int:pk>/submit/", api.FaqSubmitView.as_view(), name="api-library-faq-submit"),
    path("library/faq/<int:pk>/review/", api.FaqReviewView.as_view(), name="api-library-faq-review"),
    path("library/faq/<int:pk>/retire/", api.FaqRetireView.as_view(), name="api-library-faq-retire"),
    path("library/faq/<int:pk>/revise/", api.FaqReviseView.as_view(), name="api-library-faq-revise"),
    path("library/cases/", api.CaseListView.as_view(), name="api-library-case-list"),
    path("library/cases/<int:pk>/", api.CaseDetailView.as_view(), name="api-library-case"),
    path("library/cases/<int:pk>/publish/", api.CasePublishView.as_view(), name="api-library-case-publish"),
    path("library/cases/<int:pk>/retire/", api.CaseRetireView.as_view(), name="api-library-case-retire"),
    path("library/guidelines/<name:name>/", api.DatasetGuidelinesView.as_view(), name="api-library-guidelines"),
    path("library/export/", api.ExportView.as_view(), name="api-library-export"),
    path("library/import/", api.ImportView.as_view(), name="api-library-import"),
    path("assignments/<str:public_id>/library/", api.PanelView.as_view(), name="api-ws-library"),
    path("assignments/<str:public_id>/library/opens/", api.PanelOpenView.as_view(), name="api-ws-library-opens"),
]
