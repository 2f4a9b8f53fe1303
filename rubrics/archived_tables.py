"""The rubric's history on a campaign's dataset, as a campaign archive carries it: which wording every judgment was made against, and why it changed."""

from django.db.models import Q

from heartbench_core.campaign_archive import ArchivedTable, ArchiveScope
from heartbench_core.models import CriterionLineage


def _audit_entries(scope: ArchiveScope) -> Q:
    lineages = CriterionLineage.objects.filter(dataset=scope.dataset_id).values("key")
    return Q(dataset=scope.dataset_id) | Q(criterion_key__in=lineages)


CAMPAIGN_ARCHIVE = (
    ArchivedTable("rubrics.CriterionRevision", lambda s: Q(dataset=s.dataset_id)),
    ArchivedTable("rubrics.ReviewDecision", lambda s: Q(revision__dataset=s.dataset_id)),
    ArchivedTable("rubrics.RevisionComment", lambda s: Q(revision__dataset=s.dataset_id)),
    ArchivedTable("rubrics.CriterionFlag", lambda s: Q(lineage__dataset=s.dataset_id)),
    ArchivedTable("rubrics.AuditEntry", _audit_entries, soft_links=(("criterion_key", "heartbench_core.CriterionLineage"),)),
)
