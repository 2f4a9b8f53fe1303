"""Admin views of the rubric workflow: read-only, because every change must go through the services
(which check the panel rules and write the audit log)."""

from django.contrib import admin

from heartbench_core.admin import ReadOnlyAdmin
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment


@admin.register(CriterionRevision)
class CriterionRevisionAdmin(ReadOnlyAdmin):
    list_display = ("question_id", "number", "change_kind", "status", "ability", "weight", "author", "created_at")
    list_filter = ("dataset", "status", "change_kind")
    search_fields = ("question_id", "text", "reason")
    list_select_related = ("author",)


@admin.register(ReviewDecision)
class ReviewDecisionAdmin(ReadOnlyAdmin):
    list_display = ("revision", "reviewer", "verdict", "created_at")
    list_filter = ("verdict",)


@admin.register(RevisionComment)
class RevisionCommentAdmin(ReadOnlyAdmin):
    list_display = ("revision", "author", "created_at")


@admin.register(CriterionFlag)
class CriterionFlagAdmin(ReadOnlyAdmin):
    list_display = ("lineage", "source", "flagged_by", "created_at", "resolved_at")
    list_filter = ("source",)


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor_name", "action", "object_type", "object_id", "question_id")
    list_filter = ("action", "object_type", "dataset")
    search_fields = ("actor_name", "question_id", "object_id")
