"""Django admin for campaign management: quality policy, profiles, campaigns, alerts.

Day-to-day work happens on the management pages (/work/manage/); the admin is for the quality
policy and for inspection.
"""

from django.contrib import admin

from annotation.models import (
    AdminAlert,
    Assignment,
    CalibrationResult,
    Campaign,
    CampaignSettings,
    ExpertProfile,
    ExpertQuality,
    Qualification,
    QualityPolicy,
    TierChange,
)


@admin.register(QualityPolicy)
class QualityPolicyAdmin(admin.ModelAdmin):
    list_display = ["__str__", "gold_window", "gold_min_checks", "gold_pause_below", "certificate_min_submitted", "certificate_min_quality"]

    def has_add_permission(self, request):
        return not QualityPolicy.objects.exists()

    def has_delete_permission(self, request, obj=None):
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
