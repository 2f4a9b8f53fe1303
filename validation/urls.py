from django.urls import path

from heartbench_core import names  # noqa: F401 (registers the 'name' converter: any stored name is one segment)
from validation import views

app_name = "validation"

urlpatterns = [
    path("", views.index, name="index"),
    path("gold-builder/", views.gold_builder, name="gold-builder"),
    path("planner/", views.planner, name="planner"),
    path("gold-drafts/", views.gold_drafts, name="gold-drafts"),
    path("gold-drafts/<int:draft_id>/", views.gold_draft, name="gold-draft"),
    path("gold-drafts/<int:draft_id>/responses/<int:response_id>/", views.gold_draft_write, name="gold-draft-write"),
    path("gold-drafts/<int:draft_id>/finalise/", views.gold_draft_finalise, name="gold-draft-finalise"),
    path("adjudication/", views.adjudication_index, name="adjudication-index"),
    path("campaigns/<int:campaign_id>/", views.dashboard, name="dashboard"),
    path("campaigns/<int:campaign_id>/reports/<int:report_id>/", views.dashboard, name="report"),
    path("campaigns/<int:campaign_id>/compute/", views.compute, name="compute"),
    path("campaigns/<int:campaign_id>/adjudication/", views.queue, name="queue"),
    path(
        "campaigns/<int:campaign_id>/adjudication/<int:entry_id>/<int:criterion_id>/",
        views.adjudication,
        name="adjudicate",
    ),
    path(
        "campaigns/<int:campaign_id>/adjudication/<int:entry_id>/<int:criterion_id>/case/",
        views.unit_case,
        name="unit-case",
    ),
    path("campaigns/<int:campaign_id>/export/<str:what>.<str:fmt>", views.export, name="export"),
    path("datasets/<name:name>/release-policy/", views.release_policy, name="release-policy"),
    path("datasets/<name:name>/alignment/", views.alignment, name="alignment"),
    path("versions/<int:version_id>/gate/", views.version_gate, name="version-gate"),
]
