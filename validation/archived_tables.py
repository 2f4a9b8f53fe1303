"""The validation app's tables a campaign archive carries: adjudications, golden labels, reports, gates and the dataset's release policy."""

from django.db.models import Q

from heartbench_core.campaign_archive import ArchivedTable

CAMPAIGN_ARCHIVE = (
    ArchivedTable("validation.Adjudication", lambda s: Q(campaign_response__campaign__in=s.campaign_ids)),
    ArchivedTable("validation.GoldenLabel", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("validation.AgreementReport", lambda s: Q(campaign__in=s.campaign_ids)),
    ArchivedTable("validation.ReleaseGate", lambda s: Q(campaign__in=s.campaign_ids)),
    # The dataset's release policy decides which later reports set the gate: it travels with the dataset.
    ArchivedTable("validation.ReleasePolicy", lambda s: Q(dataset=s.dataset_id)),
    ArchivedTable("validation.ReleasePolicyChange", lambda s: Q(policy__dataset=s.dataset_id)),
)
