"""Django admin for campaign management: quality policy, profiles, campaigns, alerts.

Day-to-day work happens on the management pages (/work/manage/); the admin is for the quality
policy and for inspection.
"""

from django.contrib import admin
from django.http import HttpRequest

from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry, FingerprintedResponse, LibraryOpen, ResponseFingerprint
from annotation.models import (
    AdminAlert,
    Assignment,
    CalibrationResult,
    Campaign,
    CampaignGuidelines,
    CampaignResponse,
    CampaignSettings,
    CampaignTally,
    CorrectionRequest,
    DiscussionComment,
    DiscussionVote,
    ExpertCampaignTally,
    ExpertProfile,
    ExpertQuality,
    GoldLabel,
    ItemProblemReport,
    Judgment,
    PayDecision,
    ProgressMove,
    Qualification,
    QualityPolicy,
    ResponseTally,
    Skip,
    SubmissionHour,
    TierChange,
    UnclearCriterionReport,
)
from heartbench_core.admin import ReadOnlyAdmin


@admin.register(QualityPolicy)
class QualityPolicyAdmin(admin.ModelAdmin):
    list_display = ["__str__", "gold_window", "gold_min_checks", "gold_pause_below", "certificate_min_submitted", "certificate_min_quality"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return not QualityPolicy.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: QualityPolicy | None = None) -> bool:
        return False


@admin.register(ExpertProfile)
class ExpertProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "availability", "tier", "tier_override", "capacity", "updated_at"]
    list_filter = ["availability", "tier"]
    search_fields = ["user__username"]


class CampaignSettingsInline(admin.StackedInline):
    model = CampaignSettings
    fk_name = "campaign"
    can_delete = False


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "status", "version", "overlap", "sample_fraction", "created_at"]
    list_filter = ["kind", "status"]
    # The seed is shown on the campaign's page, to staff who are not its experts; the admin has no per-campaign rule.
    exclude = ["seed"]
    inlines = [CampaignSettingsInline]
    filter_horizontal = ["experts", "language_models"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["public_id", "expert", "status", "reserved_at", "expires_at", "submitted_at"]
    list_filter = ["status"]
    search_fields = ["public_id", "expert__username"]
    raw_id_fields = ["campaign_response", "expert"]


admin.site.register(CalibrationResult, list_display=["campaign", "expert", "attempt", "score", "passed", "completed_at"])
admin.site.register(Qualification, list_display=["expert", "dimension", "source", "granted_at"])
admin.site.register(ExpertQuality, list_display=["profile", "calibration_score", "gold_accuracy", "gold_checks", "certified_at"])
admin.site.register(TierChange, list_display=["profile", "old_tier", "new_tier", "override", "changed_at"])
admin.site.register(AdminAlert, list_display=["kind", "expert", "campaign", "created_at", "resolved_at"])


# Records of the experts' work: shown read-only, because their changes go through the workspace
# services (immutability after submission, corrections decided by an admin, blindness).
admin.site.register(CampaignSettings)
admin.site.register(
    CampaignResponse,
    ReadOnlyAdmin,
    list_display=["campaign", "response", "item", "is_gold", "order_key"],
    list_filter=["campaign", "is_gold"],
)
admin.site.register(GoldLabel, ReadOnlyAdmin, list_display=["campaign_response", "criterion", "hit"])
admin.site.register(Judgment, ReadOnlyAdmin, list_display=["assignment", "criterion", "hit", "updated_at"])
admin.site.register(UnclearCriterionReport, ReadOnlyAdmin, list_display=["assignment", "criterion", "created_at", "resolved_at"])
admin.site.register(ItemProblemReport, ReadOnlyAdmin, list_display=["assignment", "created_at", "resolved_at"])
admin.site.register(CorrectionRequest, ReadOnlyAdmin, list_display=["assignment", "status", "created_at"])
admin.site.register(DiscussionComment, ReadOnlyAdmin, list_display=["campaign_response", "created_at"])
admin.site.register(DiscussionVote, ReadOnlyAdmin)
# Guidelines are revisions (publish_guidelines adds one, never edits) and pay decisions are made on the payments page.
admin.site.register(CampaignGuidelines, ReadOnlyAdmin, list_display=["campaign", "revision", "author", "created_at"])
# The knowledge library: written through its pages and services (review, visibility checks, search columns); inspected here.
admin.site.register(DatasetGuidelines, ReadOnlyAdmin, list_display=["dataset", "revision", "author", "created_at"])
admin.site.register(
    FaqEntry, ReadOnlyAdmin, list_display=["question", "dataset", "status", "author", "reviewer", "published_at"], list_filter=["status"]
)
admin.site.register(
    Case,
    ReadOnlyAdmin,
    list_display=["title", "dataset", "hit", "source", "invented", "status", "published_at"],
    list_filter=["status", "source"],
)
admin.site.register(LibraryOpen, ReadOnlyAdmin, list_display=["user", "faq", "case", "campaign", "helped", "opened_at"])
# The index of the quote check (annotation.knowledge.services.quotes), derived from responses' texts.
admin.site.register(FingerprintedResponse, ReadOnlyAdmin, list_display=["response"])
admin.site.register(ResponseFingerprint, ReadOnlyAdmin, list_display=["response", "value"])
admin.site.register(PayDecision, ReadOnlyAdmin, list_display=["campaign", "expert", "pay", "decided_by", "decided_at"])
admin.site.register(Skip, ReadOnlyAdmin, list_display=["campaign", "expert", "assignment", "reason", "created_at"], list_filter=["reason"])

# Counts kept by database triggers (migration 0010): shown, never edited; `recount` rebuilds them.
admin.site.register(CampaignTally, ReadOnlyAdmin, list_display=["campaign", "responses", "gold_responses"])
admin.site.register(ResponseTally, ReadOnlyAdmin, list_display=["campaign_response", "campaign", "submitted", "reserved"])
admin.site.register(ExpertCampaignTally, ReadOnlyAdmin, list_display=["expert", "campaign", "reserved", "submitted", "expired"])
admin.site.register(SubmissionHour, ReadOnlyAdmin, list_display=["campaign", "hour", "submitted"])
admin.site.register(ProgressMove, ReadOnlyAdmin, list_display=["campaign_id", "is_gold", "submitted", "reserving", "responses"])
