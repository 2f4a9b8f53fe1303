"""Admin views of the validation records: read-only, since reports, decisions and gates are history."""

from django.contrib import admin

from heartbench_core.admin import ReadOnlyAdmin
from validation.models import (
    Adjudication,
    AgreementReport,
    BackgroundJob,
    CalibratedIndex,
    CalibratedModelRow,
    GoldDraft,
    GoldDraftVerdict,
    GoldenLabel,
    QueueSummary,
    QueueUnit,
    ReleaseGate,
    ReleasePolicy,
    ReleasePolicyChange,
)


@admin.register(Adjudication)
class AdjudicationAdmin(ReadOnlyAdmin):
    list_display = ("campaign_response", "criterion", "hit", "cause", "flagged_for_authors", "decided_by", "decided_at")
    list_filter = ("cause", "flagged_for_authors", "campaign_response__campaign")
    search_fields = ("note",)
    list_select_related = ("campaign_response", "criterion", "decided_by")


@admin.register(GoldenLabel)
class GoldenLabelAdmin(ReadOnlyAdmin):
    list_display = ("campaign", "campaign_response", "criterion", "hit", "provenance", "expert_hits", "expert_ratings", "updated_at")
    list_filter = ("campaign", "provenance", "hit")
    list_select_related = ("campaign", "campaign_response", "criterion")


@admin.register(AgreementReport)
class AgreementReportAdmin(ReadOnlyAdmin):
    list_display = ("id", "campaign", "judge", "run_label", "trigger", "requested_by", "created_at", "duration_ms")
    list_filter = ("campaign", "trigger")
    exclude = ("result",)  # large; read it on the dashboard or through the API


@admin.register(ReleaseGate)
class ReleaseGateAdmin(ReadOnlyAdmin):
    list_display = ("version", "campaign", "report", "threshold", "agreement_rate", "passed", "created_at")
    list_filter = ("passed", "version__dataset")


@admin.register(ReleasePolicy)
class ReleasePolicyAdmin(ReadOnlyAdmin):
    """Read-only here: a policy changes only through its page, which asks for a reason and audits it."""

    list_display = ("dataset", "threshold", "min_pairs_per_dimension", "min_pairs_per_ability", "must_clear", "updated_by", "updated_at")


@admin.register(ReleasePolicyChange)
class ReleasePolicyChangeAdmin(ReadOnlyAdmin):
    list_display = ("policy", "changed_by", "changed_at", "reason")
    list_select_related = ("policy__dataset", "changed_by")


@admin.register(BackgroundJob)
class BackgroundJobAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "campaign", "status", "attempts", "requested_by", "created_at", "finished_at", "last_error")
    list_filter = ("kind", "status", "campaign")
    list_select_related = ("campaign", "requested_by")


@admin.register(CalibratedIndex)
class CalibratedIndexAdmin(ReadOnlyAdmin):
    list_display = ("report", "present", "experts_resampled", "indexed_at")
    list_select_related = ("report",)


@admin.register(CalibratedModelRow)
class CalibratedModelRowAdmin(ReadOnlyAdmin):
    list_display = ("report", "model")
    exclude = ("scores",)
    list_select_related = ("report",)


@admin.register(QueueSummary)
class QueueSummaryAdmin(ReadOnlyAdmin):
    list_display = ("campaign", "needs_decision", "compared", "stale", "computed_at")
    exclude = ("head", "counts")
    list_select_related = ("campaign",)


@admin.register(QueueUnit)
class QueueUnitAdmin(ReadOnlyAdmin):
    list_display = ("summary", "position", "campaign_response_id", "criterion_id", "needs_decision", "decided", "triggers")
    list_select_related = ("summary",)


@admin.register(GoldDraft)
class GoldDraftAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "version", "created_by", "created_at", "campaign")
    list_filter = ("kind",)
    list_select_related = ("version", "created_by", "campaign")


@admin.register(GoldDraftVerdict)
class GoldDraftVerdictAdmin(ReadOnlyAdmin):
    list_display = ("draft", "response", "criterion", "hit", "written_by", "written_at")
    list_filter = ("draft", "hit")
    list_select_related = ("draft", "response", "criterion", "written_by")
