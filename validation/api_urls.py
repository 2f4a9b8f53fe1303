from django.urls import path

from heartbench_core import names  # noqa: F401 (registers the 'name' converter: any stored name is one segment)
from validation import api

urlpatterns = [
    path("campaigns/<int:campaign_id>/reports/", api.CampaignReportsView.as_view(), name="validation-reports"),
    path("reports/<int:pk>/", api.ReportDetailView.as_view(), name="validation-report"),
    path("jobs/<int:pk>/", api.BackgroundJobView.as_view(), name="validation-job"),
    path("campaigns/<int:campaign_id>/export/judgments.<str:fmt>", api.JudgmentsExportView.as_view(), name="validation-judgments-export"),
    path("campaigns/<int:campaign_id>/golden-labels/", api.GoldenLabelsView.as_view(), name="validation-golden-labels"),
    path("campaigns/<int:campaign_id>/queue/", api.QueueView.as_view(), name="validation-queue"),
    path("adjudications/", api.AdjudicateView.as_view(), name="validation-adjudicate"),
    path(
        "campaigns/<int:campaign_id>/units/<int:entry_id>/<int:criterion_id>/discussion/",
        api.UnitDiscussionView.as_view(),
        name="validation-unit-discussion",
    ),
    path(
        "campaigns/<int:campaign_id>/units/<int:entry_id>/<int:criterion_id>/case/", api.UnitCaseView.as_view(), name="validation-unit-case"
    ),
    path("gold-builder/", api.GoldBuilderCreateView.as_view(), name="validation-gold-builder"),
    path("planner/", api.PlannerView.as_view(), name="validation-planner"),
    path("gold-builder/candidates/", api.GoldBuilderCandidatesView.as_view(), name="validation-gold-builder-candidates"),
    path("gold-drafts/", api.GoldDraftCreateView.as_view(), name="validation-gold-drafts"),
    path("gold-drafts/<int:draft_id>/", api.GoldDraftDetailView.as_view(), name="validation-gold-draft"),
    path("gold-drafts/<int:draft_id>/verdicts/", api.GoldDraftVerdictsView.as_view(), name="validation-gold-draft-verdicts"),
    path("gold-drafts/<int:draft_id>/finalise/", api.GoldDraftFinaliseView.as_view(), name="validation-gold-draft-finalise"),
    path("judgments/import/", api.ImportJudgmentsView.as_view(), name="validation-import-judgments"),
    path("datasets/<name:name>/release-policy/", api.ReleasePolicyView.as_view(), name="validation-release-policy"),
    path("datasets/<name:name>/alignment/", api.AlignmentView.as_view(), name="validation-alignment"),
    path("versions/<int:version_id>/gate/", api.VersionGateView.as_view(), name="validation-version-gate"),
]
