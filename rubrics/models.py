"""Criterion revisions, their review, the authors' work list and the append-only audit log.

A `CriterionRevision` is one proposed state of one criterion lineage (core `CriterionLineage`).
Its content never changes once written (services never update it, and database triggers
refuse it, see migration 0002); only its workflow `status` and the version it was published in
move. Decisions, comments and audit entries are append-only rows of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import pgettext_lazy

from heartbench_core.lib.taxonomy import english_name
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion

if TYPE_CHECKING:
    from django.utils.safestring import SafeString

    from rubrics.services import Content


class RevisionQuerySet(models.QuerySet["CriterionRevision"]):
    def open(self) -> Self:
        """Drafts and revisions awaiting review: what a new edit of the same criterion supersedes."""
        return self.filter(status__in=CriterionRevision.OPEN_STATUSES)

    def awaiting_publication(self) -> Self:
        """Approved revisions no version has published yet: what the next `publish_revisions` applies."""
        return self.filter(status=CriterionRevision.Status.APPROVED, published_in__isnull=True)


class CriterionRevision(models.Model):
    class Kind(models.TextChoices):
        ADDITION = "addition", pgettext_lazy("criterion revision kind", "Addition")
        WORDING = "wording", pgettext_lazy("criterion revision kind", "Wording (same meaning)")
        SEMANTIC = "semantic", pgettext_lazy("criterion revision kind", "Semantic (meaning changed)")
        RETIREMENT = "retirement", pgettext_lazy("criterion revision kind", "Retirement")

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("criterion revision status", "Draft")
        SUBMITTED = "submitted", pgettext_lazy("criterion revision status", "Submitted for review")
        APPROVED = "approved", pgettext_lazy("criterion revision status", "Approved")
        REJECTED = "rejected", pgettext_lazy("criterion revision status", "Rejected")
        SUPERSEDED = "superseded", pgettext_lazy("criterion revision status", "Superseded")

    OPEN_STATUSES = (Status.DRAFT, Status.SUBMITTED)

    lineage = models.ForeignKey(CriterionLineage, on_delete=models.PROTECT, related_name="revisions")
    number = models.PositiveIntegerField(help_text="Revision number within the lineage (imports count too).")
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="children",
        help_text="The revision this one was written on top of (None: on top of an imported snapshot).",
    )
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="+")
    question_id = models.CharField(max_length=64)
    edited_from_version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="+")
    edited_from = models.ForeignKey(
        Criterion,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The snapshot the author was looking at (None for an addition).",
    )
    text = models.TextField()
    ability = models.CharField(max_length=40)
    weight = models.SmallIntegerField(null=True, blank=True)
    catastrophic = models.BooleanField(default=False)
    change_kind = models.CharField(max_length=12, choices=Kind.choices)
    meaning_changed = models.BooleanField(default=False, help_text="The author said the meaning changed.")
    reason = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="criterion_revisions")
    created_at = models.DateTimeField(auto_now_add=True)
    # Workflow state: the only columns that move.
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    published_in = models.ForeignKey(DatasetVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    objects = RevisionQuerySet.as_manager()

    # Set by the review queue page for its template, never stored: the diff against the approved text, and that text.
    diff_html: tuple[SafeString, Content | None]

    class Meta:
        ordering = ["lineage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["lineage", "number"], name="uniq_revision_number"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="revision_reason_required"),
            models.CheckConstraint(condition=~models.Q(text=""), name="revision_text_required"),
            models.CheckConstraint(
                condition=models.Q(weight__isnull=True) | (models.Q(weight__gte=-10, weight__lte=10) & ~models.Q(weight=0)),
                name="revision_weight_range",
            ),
        ]
        indexes = [models.Index(fields=["status"]), models.Index(fields=["dataset", "question_id"])]

    def __str__(self) -> str:
        return f"{self.question_id} {str(self.lineage_id)[:8]} r{self.number} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("rubrics:revision", args=[self.pk])

    @property
    def ability_name(self) -> str:
        """English name of the ability label."""
        return english_name(self.ability)

    @property
    def is_open(self) -> bool:
        """True while the revision is a draft or awaiting review."""
        return self.status in self.OPEN_STATUSES


class ReviewDecision(models.Model):
    """One senior reviewer's approve/reject of one revision (append-only)."""

    class Verdict(models.TextChoices):
        APPROVE = "approve", pgettext_lazy("review verdict", "Approve")
        REJECT = "reject", pgettext_lazy("review verdict", "Reject")

    revision = models.ForeignKey(CriterionRevision, on_delete=models.PROTECT, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["revision", "reviewer"], name="one_decision_per_reviewer")]

    def __str__(self) -> str:
        return f"{self.reviewer_id} {self.verdict} r{self.revision_id}"


class RevisionComment(models.Model):
    """A threaded comment on a revision (staff only; experts never see review discussions)."""

    revision = models.ForeignKey(CriterionRevision, on_delete=models.PROTECT, related_name="comments")
    reply_to = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="replies")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"comment {self.pk} on r{self.revision_id}"


class CriterionFlag(models.Model):
    """A criterion put on the authors' work list by a person or another part of the platform."""

    lineage = models.ForeignKey(CriterionLineage, on_delete=models.PROTECT, related_name="flags")
    reason = models.TextField()
    source = models.CharField(max_length=40, help_text="Where the flag came from, e.g. 'adjudication', 'author'.")
    flagged_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"flag {self.pk} ({self.source})"


class AuditEntry(models.Model):
    """One rubric action: who, what, when, why, before and after. Append-only (database triggers refuse changes)."""

    class Action(models.TextChoices):
        CREATED = "created", pgettext_lazy("audit action", "Created")
        EDITED = "edited", pgettext_lazy("audit action", "Edited")
        RETIRED = "retired", pgettext_lazy("audit action", "Retired")
        SUBMITTED = "submitted", pgettext_lazy("audit action", "Submitted")
        REVIEWED = "reviewed", pgettext_lazy("audit action", "Panel decision")
        APPROVED = "approved", pgettext_lazy("audit action", "Approved")
        REJECTED = "rejected", pgettext_lazy("audit action", "Rejected")
        SUPERSEDED = "superseded", pgettext_lazy("audit action", "Superseded")
        COMMENTED = "commented", pgettext_lazy("audit action", "Commented")
        PUBLISHED = "published", pgettext_lazy("audit action", "Published")
        FLAGGED = "flagged", pgettext_lazy("audit action", "Flagged")
        RESOLVED = "resolved", pgettext_lazy("audit action", "Resolved")

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    actor_name = models.CharField(max_length=150, blank=True, help_text="Username at the time (kept if renamed).")
    action = models.CharField(max_length=12, choices=Action.choices)
    dataset = models.ForeignKey(Dataset, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    question_id = models.CharField(max_length=64, blank=True)
    criterion_key = models.UUIDField(null=True, blank=True)
    revision_number = models.PositiveIntegerField(null=True, blank=True)
    object_type = models.CharField(max_length=40)
    object_id = models.CharField(max_length=64)
    reason = models.TextField(blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["criterion_key"]), models.Index(fields=["question_id"]), models.Index(fields=["action"])]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_type}:{self.object_id}"
