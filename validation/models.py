"""Golden standard, adjudication, immutable agreement reports and the release gate.

A `GoldenLabel` is the human verdict on one (campaign response, criterion): the strict majority
of the submitted expert judgments, or a senior reviewer's adjudication. Majority labels are
derived data, refreshed from the judgments by `validation.services.golden.refresh_golden_labels`;
adjudications are decisions, kept as an append-only log (`Adjudication`) that always wins.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from annotation.models import Campaign, CampaignResponse
from heartbench_core.models import Criterion, Dataset, DatasetVersion


class Adjudication(models.Model):
    """A senior reviewer's decision on one (campaign response, criterion); the newest decision wins."""

    class Cause(models.TextChoices):
        AMBIGUOUS_CRITERION = "ambiguous_criterion", "Ambiguous criterion"
        GUIDELINE_GAP = "guideline_gap", "Guideline gap"
        RATER_ERROR = "rater_error", "Rater error"
        JUDGE_ERROR = "judge_error", "Judge error"
        OTHER = "other", "Other"

    class Trigger(models.TextChoices):
        TIE = "tie", "Experts tied"
        SPLIT = "split", "Experts split"
        JUDGE_CONTRADICTS = "judge_contradicts", "Judge contradicts a unanimous verdict"
        AMBIGUOUS = "ambiguous", "Criterion flagged ambiguous"

    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="adjudications")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="adjudications")
    hit = models.BooleanField()
    cause = models.CharField(max_length=30, choices=Cause.choices)
    note = models.TextField(help_text="Why: the reasoning behind the decision.")
    triggers = models.JSONField(default=list, help_text="Why the unit was in the queue (Trigger values).")
    expert_hits = models.PositiveSmallIntegerField(help_text="Expert hit votes when decided.")
    expert_ratings = models.PositiveSmallIntegerField(help_text="Expert ratings when decided.")
    judge_hit = models.BooleanField(null=True, blank=True, help_text="The judge's verdict when decided, if any.")
    flagged_for_authors = models.BooleanField(default=False)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["campaign_response", "criterion"])]

    def __str__(self):
        return f"{self.campaign_response_id}/{self.criterion_id} → {'hit' if self.hit else 'miss'} ({self.cause})"


class GoldenLabel(models.Model):
    class Provenance(models.TextChoices):
        UNANIMOUS = "unanimous", "Unanimous"
        MAJORITY = "majority", "Majority"
        ADJUDICATED = "adjudicated", "Adjudicated"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="golden_labels")
    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="golden_labels")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="golden_labels")
    hit = models.BooleanField()
    provenance = models.CharField(max_length=12, choices=Provenance.choices)
    expert_hits = models.PositiveSmallIntegerField()
    expert_ratings = models.PositiveSmallIntegerField()
    adjudication = models.ForeignKey(Adjudication, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["campaign_response", "criterion"]
        constraints = [
            models.UniqueConstraint(fields=["campaign_response", "criterion"], name="uniq_golden_label"),
            models.CheckConstraint(
                condition=models.Q(provenance="adjudicated", adjudication__isnull=False)
                | (~models.Q(provenance="adjudicated") & models.Q(adjudication__isnull=True)),
                name="golden_adjudicated_iff_decision",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "provenance"])]

    def __str__(self):
        return f"{self.campaign_response_id}/{self.criterion_id}: {'hit' if self.hit else 'miss'} ({self.provenance})"


class AgreementReport(models.Model):
    """One computation of the agreement statistics, with the inputs it used. Immutable once written."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="agreement_reports")
    judge = models.CharField(max_length=200, blank=True, help_text="Judge name whose verdicts were compared ('' if none).")
    run_label = models.CharField(max_length=64, blank=True)
    parameters = models.JSONField(help_text="resamples, seed, threshold, min pairs per dimension, exclusions.")
    inputs = models.JSONField(help_text="Judge runs, criterion revisions, judgment counts and the newest judgment time.")
    result = models.JSONField()
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    trigger = models.CharField(max_length=20, default="command", help_text="command, page, api or schedule.")
    created_at = models.DateTimeField(auto_now_add=True)
    duration_ms = models.PositiveIntegerField(default=0)
    exploratory = models.BooleanField(
        default=False, help_text="Computed with parameters other than the dataset's release policy: it cannot set the gate."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "-created_at"])]

    def __str__(self):
        return f"report {self.pk} of {self.campaign_id} at {self.created_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.pop("_allow_update", False):
            raise ValidationError("An agreement report is immutable: compute a new one instead.")
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("validation:report", args=[self.campaign_id, self.pk])


class ReleasePolicy(models.Model):
    """How a dataset's release is decided; fixed before the reports, changed only by an admin with a reason."""

    class Clears(models.TextChoices):
        POINT = "point", "The point estimate"
        LOWER_BOUND = "lower_bound", "The lower bound of the 95% CI"

    dataset = models.OneToOneField(Dataset, on_delete=models.CASCADE, related_name="release_policy")
    threshold = models.FloatField(default=0.75, help_text="Rubric-item agreement the judge must reach.")
    min_pairs_per_dimension = models.PositiveIntegerField(default=30)
    min_pairs_per_ability = models.PositiveIntegerField(default=10)
    must_clear = models.CharField(max_length=12, choices=Clears.choices, default=Clears.POINT)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "release policies"
        constraints = [
            models.CheckConstraint(condition=models.Q(threshold__gte=0, threshold__lte=1), name="release_threshold_in_unit"),
        ]

    def __str__(self):
        return f"release policy of {self.dataset_id}"


class ReleasePolicyChange(models.Model):
    """Audit of a release policy: what it was, what it became, who changed it and why."""

    policy = models.ForeignKey(ReleasePolicy, on_delete=models.CASCADE, related_name="changes")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField()
    reason = models.TextField()
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]


class ReleaseGate(models.Model):
    """The release-gate outcome of one report, recorded on the dataset version it judged."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="release_gates")
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="release_gates")
    report = models.OneToOneField(AgreementReport, on_delete=models.PROTECT, related_name="gate")
    threshold = models.FloatField()
    min_pairs_per_dimension = models.PositiveIntegerField()
    agreement_rate = models.FloatField(null=True, blank=True)
    passed = models.BooleanField()
    reasons = models.JSONField(default=list, help_text="Why it failed (empty when passed).")
    policy = models.JSONField(default=dict, help_text="The release policy the gate was decided under.")
    ci_low = models.FloatField(null=True, blank=True, help_text="Lower bound of the agreement rate's 95% CI.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.version}: {'passed' if self.passed else 'failed'} ({self.campaign})"
