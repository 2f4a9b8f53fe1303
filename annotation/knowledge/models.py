"""The knowledge library's data: dataset guidelines, the FAQ, the case library, what experts open, and the fingerprints of responses its quote check reads.

Reads and the visibility rules are in `annotation.knowledge.selectors`; writes in
`annotation.knowledge.services.knowledge` and `annotation.services.guidelines` (docs/knowledge.md). The tables
belong to the `annotation` app (`annotation.models` imports this module so Django registers them).
"""

import uuid
from typing import Self

from django.conf import settings as django_settings
from django.db import models
from django.utils.translation import pgettext_lazy

from annotation.models import Campaign
from heartbench_core.models import CriterionLineage, Dataset, ModelResponse


class DatasetGuidelines(models.Model):
    """One revision of a dataset's guidelines (Markdown), in force in every campaign of the dataset without its own; never edited."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="guidelines")
    revision = models.PositiveIntegerField()
    body = models.TextField(help_text="Markdown; rendered sanitised.")
    change_note = models.CharField(max_length=300, blank=True)
    author = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "-revision"]
        verbose_name_plural = "dataset guidelines"
        constraints = [models.UniqueConstraint(fields=["dataset", "revision"], name="uniq_dataset_guidelines_revision")]

    def __str__(self) -> str:
        return f"guidelines of dataset {self.dataset_id} r{self.revision}"


class FaqEntryQuerySet(models.QuerySet["FaqEntry"]):
    def published(self) -> Self:
        """Entries experts read: reviewed and published, not retired."""
        return self.filter(status=FaqEntry.Status.PUBLISHED)


class FaqEntry(models.Model):
    """A question and its answer, linked to abilities and to criterion lineages; reviewed by someone else before it is published.

    A published entry is not edited: a revision is a new entry that `replaces` it, and publishing
    the revision retires the entry it replaces, so what an expert read can always be shown again.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("FAQ entry status", "Draft")
        IN_REVIEW = "in_review", pgettext_lazy("FAQ entry status", "In review")
        PUBLISHED = "published", pgettext_lazy("FAQ entry status", "Published")
        RETIRED = "retired", pgettext_lazy("FAQ entry status", "Retired")

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False, help_text="Identity across exports and imports.")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="faq_entries")
    question = models.CharField(max_length=300)
    answer = models.TextField(help_text="Markdown; rendered sanitised.")
    tags = models.JSONField(default=list, blank=True)
    abilities = models.JSONField(default=list, blank=True, help_text="Ability labels as spelled in the data (e.g. 温暖).")
    ability_labels = models.TextField(
        blank=True, editable=False, help_text='The abilities as " 温暖 情绪理解 " (what the judging panel filters on).'
    )
    lineages = models.ManyToManyField(CriterionLineage, blank=True, related_name="faq_entries", help_text="Criteria across versions.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    author = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reviewer = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="Who published it."
    )
    review_note = models.TextField(blank=True, help_text="Why a reviewer sent it back (shown to its author).")
    replaces = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="revisions")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    # What search reads: question, tags, abilities and answer, normalised (heartbench_core.lib.search.normalise),
    # and the text's pairs of Chinese characters as words (heartbench_core.lib.search.pair_document).
    search_title = models.TextField(blank=True, editable=False)
    search_text = models.TextField(blank=True, editable=False)
    search_pairs = models.TextField(blank=True, editable=False)

    objects = FaqEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-published_at", "-id"]
        verbose_name = "FAQ entry"
        verbose_name_plural = "FAQ entries"
        indexes = [models.Index(fields=["dataset", "status"])]
        constraints = [
            # Published means reviewed: the reviewer is recorded, and is never the author.
            models.CheckConstraint(
                condition=~models.Q(status="published") | (models.Q(reviewer__isnull=False) & ~models.Q(reviewer=models.F("author"))),
                name="faq_published_by_another_reviewer",
            ),
        ]

    def __str__(self) -> str:
        return f"FAQ {self.pk}: {self.question[:40]}"

    @property
    def criterion_keys(self) -> list[str]:
        """Lineage keys of its criteria: the read models that show an entry read `lineages` with it, so this reads no row."""
        return [str(lineage.key) for lineage in self.lineages.all()]


class CaseQuerySet(models.QuerySet["Case"]):
    def published(self) -> Self:
        """Cases published and not retired (who may read which is `annotation.knowledge.selectors`)."""
        return self.filter(status=Case.Status.PUBLISHED)


class Case(models.Model):
    """A lesson of one decision on one criterion: a short excerpt of a response, the decision (hit/miss) and the reasoning.

    Never a model's identity. `source_campaign` and `source_response` say where it came from, only
    so that the visibility rules can keep it from the experts of running work: a case from a
    campaign reaches experts once that campaign is closed, or once it is rewritten on an invented
    response (`invented`), and never while its response is in a campaign they rate in.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("case status", "Draft")
        PUBLISHED = "published", pgettext_lazy("case status", "Published")
        RETIRED = "retired", pgettext_lazy("case status", "Retired")

    class Source(models.TextChoices):
        ADJUDICATION = "adjudication", pgettext_lazy("where a case came from", "Adjudication decision")
        DISCUSSION = "discussion", pgettext_lazy("where a case came from", "Experts' discussion")
        CALIBRATION = "calibration", pgettext_lazy("where a case came from", "Calibration item")
        WRITTEN = "written", pgettext_lazy("where a case came from", "Written from scratch")

    # The causes of an adjudication decision (validation.Adjudication.Cause is this class).
    class Cause(models.TextChoices):
        AMBIGUOUS_CRITERION = "ambiguous_criterion", pgettext_lazy("adjudication cause", "Ambiguous criterion")
        GUIDELINE_GAP = "guideline_gap", pgettext_lazy("adjudication cause", "Guideline gap")
        RATER_ERROR = "rater_error", pgettext_lazy("adjudication cause", "Rater error")
        JUDGE_ERROR = "judge_error", pgettext_lazy("adjudication cause", "Judge error")
        OTHER = "other", pgettext_lazy("adjudication cause", "Other")

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False, help_text="Identity across exports and imports.")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="cases")
    lineage = models.ForeignKey(
        CriterionLineage, on_delete=models.PROTECT, related_name="cases", help_text="The criterion across versions."
    )
    criterion_revision = models.PositiveIntegerField(help_text="Revision of the criterion the decision was made on.")
    criterion_text = models.TextField(help_text="The criterion's wording in that revision.")
    title = models.CharField(max_length=200)
    excerpt = models.TextField(help_text="A short excerpt of the response (or an invented one).")
    hit = models.BooleanField(help_text="The decision: the criterion is hit (True) or missed (False) by the excerpt.")
    reasoning = models.TextField(help_text="Markdown; why, in words an expert can apply.")
    cause = models.CharField(max_length=30, choices=Cause.choices, default=Cause.OTHER)
    tags = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=15, choices=Source.choices, default=Source.WRITTEN)
    source_campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    source_response = models.ForeignKey(ModelResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    source_adjudication_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="validation.Adjudication it was written from.")
    invented = models.BooleanField(
        default=False, help_text="The excerpt was rewritten on an invented response (shares no text with the real one)."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    author = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    published_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    search_title = models.TextField(blank=True, editable=False)
    search_text = models.TextField(blank=True, editable=False)
    search_pairs = models.TextField(blank=True, editable=False)

    objects = CaseQuerySet.as_manager()

    class Meta:
        ordering = ["-published_at", "-id"]
        indexes = [models.Index(fields=["dataset", "status"]), models.Index(fields=["lineage", "status"])]
        constraints = [
            # A case from a campaign names the response it came from, or the visibility rules could not protect running work.
            models.CheckConstraint(
                condition=models.Q(source_campaign__isnull=True) | models.Q(source_response__isnull=False),
                name="case_from_a_campaign_names_its_response",
            ),
        ]

    def __str__(self) -> str:
        return f"case {self.pk}: {self.title[:40]}"


class LibraryOpen(models.Model):
    """An expert opened a FAQ entry or a case (and perhaps said it helped). Their own action only: nothing of others or of gold."""

    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    faq = models.ForeignKey(FaqEntry, null=True, blank=True, on_delete=models.CASCADE, related_name="opens")
    case = models.ForeignKey(Case, null=True, blank=True, on_delete=models.CASCADE, related_name="opens")
    campaign = models.ForeignKey(
        Campaign,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Opened from a judging page of this campaign.",
    )
    lineage = models.ForeignKey(
        CriterionLineage, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The criterion in focus, if any."
    )
    helped = models.BooleanField(null=True, blank=True, help_text="The expert said it helped (True) or not (False).")
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-opened_at", "-id"]
        indexes = [models.Index(fields=["user", "-opened_at"])]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(faq__isnull=False) & models.Q(case__isnull=True))
                | (models.Q(faq__isnull=True) & models.Q(case__isnull=False)),
                name="library_open_names_one_entry",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} opened {'faq ' + str(self.faq_id) if self.faq_id else 'case ' + str(self.case_id)}"


class FingerprintedResponse(models.Model):
    """A model response whose fingerprints are in `ResponseFingerprint` (the library's quote check adds them on first need)."""

    response = models.OneToOneField(ModelResponse, primary_key=True, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"response {self.response_id} fingerprinted"


class ResponseFingerprint(models.Model):
    """One fingerprint of a model response's text (heartbench_core.lib.quotes): how a library text quoting it is found.

    Derived from the response's text (which never changes) and rebuilt on demand, so never backed up.
    """

    response = models.ForeignKey(ModelResponse, on_delete=models.CASCADE, related_name="+")
    value = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["value", "response"], name="fingerprint_value_response")]

    def __str__(self) -> str:
        return f"{self.response_id}: {self.value}"
