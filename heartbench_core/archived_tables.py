"""The core's tables a campaign archive carries: the campaign's dataset, its responses and the judge's verdicts on them."""

from django.db.models import Q

from heartbench_core.campaign_archive import ArchivedTable, ArchiveScope


def _language_models(scope: ArchiveScope) -> Q:
    # `campaigns` is the campaign app's relation to the models it samples: a name, not an import.
    return Q(responses__dataset=scope.dataset_id) | Q(campaigns__in=scope.campaign_ids)


CAMPAIGN_ARCHIVE = (
    ArchivedTable("heartbench_core.Dataset", lambda s: Q(pk=s.dataset_id)),
    ArchivedTable("heartbench_core.DatasetVersion", lambda s: Q(dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.Item", lambda s: Q(version__dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.CriterionLineage", lambda s: Q(dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.Criterion", lambda s: Q(item__version__dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.LanguageModel", _language_models),
    ArchivedTable("heartbench_core.ModelResponse", lambda s: Q(dataset=s.dataset_id)),
    # Who saw which response unblinded: without it a restored installation would serve them blind again.
    ArchivedTable("heartbench_core.StaffExposure", lambda s: Q(response__dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.JudgeRun", lambda s: Q(version__dataset=s.dataset_id)),
    ArchivedTable("heartbench_core.JudgeVerdict", lambda s: Q(run__version__dataset=s.dataset_id)),
)
