"""Golden standard, adjudication, immutable agreement reports and the release gate.

A `GoldenLabel` is the human verdict on one (campaign response, criterion): the strict majority
of the submitted expert judgments, or a senior reviewer's adjudication. Majority labels are
derived data, refreshed from the judgments by `validation.services.golden.refresh_golden_labels`;
adjudications are decisions, kept as an append-only log (`Adjudication`) that always wins.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import pgettext_lazy

from annotation.knowledge.models import Case
from annotation.models import Campaign, CampaignResponse
from heartbench_core.lib.agreement_report import (
    Figure,
    Parameters,
    ReportInputs,
    ReportResult,
    StoredReportError,
    stored_agreement_rate,
)
from heartbench_core.models import Criterion, Dataset, DatasetVersion, LeasedQuerySet, ModelResponse


class Adjudication(models.Model):
    """A senior reviewer's decision on one (campaign response, criterion); the newest decision wins."""

    Cause = Case.Cause  # the causes the case written from a decision records

    class Trigger(models.TextChoices):
        TIE = "tie", pgettext_lazy("why a unit is in the adjudication queue", "Experts tied")
        SPLIT = "split", pgettext_lazy("why a unit is in the adjudication queue", "Experts split")
        JUDGE_CONTRADICTS = (
            "judge_contradicts",
            pgettext_lazy("why a unit is in the adjudication queue", "Judge contradicts a unanimous verdict"),
        )
        AMBIGUOUS = "ambiguous", pgettext_lazy("why a unit is in the adjudication queue", "Criterion flagged ambiguous")
        DISCUSSION_CHANGED = (
            "discussion_changed",
            pgettext_lazy("why a unit is in the adjudication queue", "The discussion changed the majority"),
        )

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

    def __str__(self) -> str:
        return f"{self.campaign_response_id}/{self.criterion_id} → {'hit' if self.hit else 'miss'} ({self.cause})"


class GoldenLabel(models.Model):
    class Provenance(models.TextChoices):
        UNANIMOUS = "unanimous", pgettext_lazy("golden label provenance", "Unanimous")
        MAJORITY = "majority", pgettext_lazy("golden label provenance", "Majority")
        ADJUDICATED = "adjudicated", pgettext_lazy("golden label provenance", "Adjudicated")

    # No index of their own: the index on (campaign, provenance) and the unique (campaign_response, criterion) start with them.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="golden_labels", db_index=False)
    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="golden_labels", db_index=False)
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

    def __str__(self) -> str:
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
    # The headline figure, copied out of `result` when the report is stored, so lists of reports read no JSON.
    agreement_value = models.FloatField(null=True, blank=True)
    agreement_n = models.PositiveIntegerField(null=True, blank=True)
    agreement_reason = models.TextField(blank=True)
    agreement_stored = models.BooleanField(
        default=False, help_text="The three agreement columns hold the figure (older rows read the JSON)."
    )

    # Lists of reports defer these (a report's JSON is read only where the report itself is shown).
    LARGE = ("result", "inputs", "parameters")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "-created_at"])]

    def __str__(self) -> str:
        return f"report {self.pk} of {self.campaign_id} at {self.created_at:%Y-%m-%d %H:%M}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not kwargs.pop("_allow_update", False):
            raise ValidationError("An agreement report is immutable: compute a new one instead.")
        if self.pk is None:
            self.store_agreement_figure()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("validation:report", args=[self.campaign_id, self.pk])

    @cached_property
    def typed_result(self) -> ReportResult:
        """The stored result as a typed `ReportResult` (reports stored by every earlier version load)."""
        return ReportResult.from_dict(self.result)

    @cached_property
    def typed_inputs(self) -> ReportInputs:
        """The stored inputs as a typed `ReportInputs`."""
        return ReportInputs.from_dict(self.inputs)

    @cached_property
    def typed_parameters(self) -> Parameters:
        """The parameters the report was computed with."""
        return Parameters.from_dict(self.parameters)

    def store_agreement_figure(self) -> None:
        """Copy the agreement rate out of `result` into its columns (done once, when the report is stored)."""
        figure = self._agreement_from_result()
        self.agreement_value, self.agreement_n, self.agreement_reason = figure.value, figure.n, figure.reason or ""
        self.agreement_stored = True

    def _agreement_from_result(self) -> Figure:
        try:
            return stored_agreement_rate(self.result)
        except StoredReportError as exc:  # a list of reports still shows the others, and says why this one has none
            return Figure(None, None, str(exc))

    @cached_property
    def agreement_rate(self) -> Figure:
        """The judge–gold agreement rate with its count and reason, from its columns (for lists: no JSON read)."""
        if self.agreement_stored:
            return Figure(self.agreement_value, self.agreement_n, self.agreement_reason or None)
        return self._agreement_from_result()


class QueueSummary(models.Model):
    """The adjudication queue's figures and first entries for the dashboard, kept between views.

    Computing the queue reads every judgment of the campaign; the dashboard reads this row instead.
    `validation.services.queue_summary` recomputes it in the background after the writes that change
    the queue (submissions, adjudications, discussion votes, flags, judge runs, reports) and marks it
    stale meanwhile; the dashboard says when it was computed. The full queue page is always live.
    """

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="queue_summary")
    needs_decision = models.PositiveIntegerField(help_text="Units that need a senior reviewer's decision.")
    compared = models.PositiveIntegerField(help_text="Units compared.")
    head = models.JSONField(default=list, help_text="The first entries that need a decision, in queue order.")
    counts = models.JSONField(
        default=dict,
        blank=True,
        help_text="Units listed per view (`all`, `needs_decision`) and trigger ('' for any), for the queue's pages.",
    )
    stale = models.BooleanField(default=False, help_text="Something the queue depends on changed since it was computed.")
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "queue summaries"

    def __str__(self) -> str:
        return f"queue of {self.campaign_id}: {self.needs_decision} of {self.compared}"


class QueueUnit(models.Model):
    """One compared unit of a campaign's adjudication queue, as its last computation left it, in queue order.

    The queue page and API read a page of these rows (and the counts stored on `QueueSummary`)
    instead of computing the queue, which reads every judgment of the campaign: one row per
    compared unit, written whole by `validation.services.queue_summary.store_queue_summary`, and
    brought up to date on the spot by a decision (`decided`, `needs_decision`).
    """

    summary = models.ForeignKey(QueueSummary, on_delete=models.CASCADE, related_name="units")
    position = models.PositiveIntegerField(help_text="Place in the queue's order over every compared unit (0 first).")
    campaign_response_id = models.BigIntegerField(help_text="The CampaignResponse (kept without a foreign key: rewritten whole).")
    criterion_id = models.BigIntegerField()
    expert_hits = models.PositiveSmallIntegerField()
    expert_ratings = models.PositiveSmallIntegerField()
    judge_hit = models.BooleanField(null=True)
    agreement = models.FloatField()
    triggers = models.CharField(max_length=100, blank=True, help_text="Why it is queued: trigger codes joined by commas.")
    needs_decision = models.BooleanField()
    decided = models.BooleanField()
    judge_verdict_id = models.BigIntegerField(null=True)
    discussion_changed = models.BooleanField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["summary", "position"], name="queue_unit_position_unique")]
        indexes = [
            models.Index(fields=["summary", "position"], condition=models.Q(needs_decision=True), name="queue_unit_needs_decision"),
            models.Index(fields=["summary", "campaign_response_id"], name="queue_unit_response"),
            models.Index(fields=["summary", "criterion_id", "position"], name="queue_unit_criterion"),
        ]

    def __str__(self) -> str:
        return f"unit {self.campaign_response_id}/{self.criterion_id} at {self.position}"


class ReleasePolicy(models.Model):
    """How a dataset's release is decided; fixed before the reports, changed only by an admin with a reason."""

    class Clears(models.TextChoices):
        POINT = "point", pgettext_lazy("release policy: what must clear the threshold", "The point estimate")
        LOWER_BOUND = "lower_bound", pgettext_lazy("release policy: what must clear the threshold", "The lower bound of the 95% CI")

    dataset = models.OneToOneField(Dataset, on_delete=models.CASCADE, related_name="release_policy")
    threshold = models.FloatField(default=0.75, help_text="Rubric-item agreement the judge must reach.")
    min_pairs_per_dimension = models.PositiveIntegerField(default=30)
    min_pairs_per_ability = models.PositiveIntegerField(default=10)
    must_clear = models.CharField(max_length=12, choices=Clears.choices, default=Clears.POINT)
    alt_test_epsilon = models.FloatField(
        default=0.2,
        help_text="Cost–benefit margin ε of the alternative annotator test: how much worse than an expert the judge may be.",
    )
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "release policies"
        constraints = [
            models.CheckConstraint(condition=models.Q(threshold__gte=0, threshold__lte=1), name="release_threshold_in_unit"),
            models.CheckConstraint(
                condition=models.Q(alt_test_epsilon__gte=0, alt_test_epsilon__lt=1), name="release_alt_test_epsilon_in_unit"
            ),
        ]

    def __str__(self) -> str:
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

    def __str__(self) -> str:
        return f"change {self.pk} of the release policy of {self.policy_id}"


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

    def __str__(self) -> str:
        return f"{self.version}: {'passed' if self.passed else 'failed'} ({self.campaign})"


class BackgroundJobQuerySet(LeasedQuerySet["BackgroundJob"]):
    def unfinished_reports(self) -> BackgroundJobQuerySet:
        """Requested reports not yet stored: pending, running or failed, newest first."""
        return (
            self.filter(kind=BackgroundJob.Kind.AGREEMENT_REPORT).exclude(status=BackgroundJob.Status.DONE).order_by("-created_at", "-id")
        )


class BackgroundJob(models.Model):
    """A requested piece of background work, kept in the database until it is done.

    The broker only carries a job's id for speed; a schedule sweeps this table, so a job whose
    worker was killed (and whose broker message was lost with it) runs again once its lease expires.
    """

    class Kind(models.TextChoices):
        AGREEMENT_REPORT = "agreement_report", pgettext_lazy("background job kind", "Agreement report")
        GOLDEN_REFRESH = "golden_refresh", pgettext_lazy("background job kind", "Golden-label refresh")

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("background job status", "Pending")
        RUNNING = "running", pgettext_lazy("background job status", "Running")
        DONE = "done", pgettext_lazy("background job status", "Done")
        FAILED = "failed", pgettext_lazy("background job status", "Failed")

    kind = models.CharField(max_length=20, choices=Kind.choices)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="background_jobs")
    parameters = models.JSONField(default=dict, blank=True, help_text="Keyword arguments of the service the job runs.")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    trigger = models.CharField(max_length=20, default="page", help_text="command, page, api, submission or schedule.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How many times a worker took the job.")
    last_error = models.TextField(blank=True)
    locked_until = models.DateTimeField(
        null=True, blank=True, help_text="Lease of the worker running it; after it, the job is taken again."
    )
    report = models.OneToOneField(AgreementReport, null=True, blank=True, on_delete=models.SET_NULL, related_name="job")
    created_at = models.DateTimeField(auto_now_add=True)
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When its id was last handed to the broker.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = BackgroundJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "locked_until"]), models.Index(fields=["campaign", "kind", "-created_at"])]
        constraints = [
            # One waiting refresh per campaign is enough: a burst of submissions costs one refresh.
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(kind="golden_refresh", status="pending"),
                name="one_pending_golden_refresh_per_campaign",
            ),
            # A running job always has a lease, or a killed worker would leave it running for ever.
            models.CheckConstraint(
                condition=~models.Q(status="running") | models.Q(locked_until__isnull=False), name="background_job_running_has_lease"
            ),
            models.CheckConstraint(
                condition=models.Q(report__isnull=True) | models.Q(kind="agreement_report"), name="background_job_report_only_for_reports"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.pk} of {self.campaign_id}: {self.status}"


class GoldDraft(models.Model):
    """A gold set or calibration set whose verdicts senior reviewers write on a page before an admin finalises it."""

    name = models.CharField(max_length=200)
    kind = models.CharField(
        max_length=20,
        choices=[
            (Campaign.Kind.GOLD_SET.value, pgettext_lazy("campaign kind", "Gold set")),
            (Campaign.Kind.CALIBRATION.value, pgettext_lazy("kind of set built from verdicts", "Calibration set")),
        ],
    )
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="+")
    responses = models.ManyToManyField(ModelResponse, related_name="+")
    pass_threshold = models.FloatField(default=0.8)
    max_attempts = models.PositiveSmallIntegerField(default=2)
    retake_cooldown = models.DurationField()
    sitting_size = models.PositiveIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    campaign = models.OneToOneField(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The set it became once finalised."
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class GoldDraftVerdict(models.Model):
    """A senior reviewer's verdict on one criterion of a draft's response, with the explanation experts read as feedback."""

    draft = models.ForeignKey(GoldDraft, on_delete=models.CASCADE, related_name="verdicts")
    response = models.ForeignKey(ModelResponse, on_delete=models.CASCADE, related_name="+")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="+")
    hit = models.BooleanField()
    explanation = models.TextField()
    written_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    written_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["draft", "response", "criterion"], name="uniq_gold_draft_verdict")]

    def __str__(self) -> str:
        return f"{self.draft_id}/{self.response_id}/{self.criterion_id}: {self.hit}"


class CalibratedIndex(models.Model):
    """What the leaderboard reads of a report's human-calibrated scores, copied out of its JSON once (derived, rebuilt on demand).

    With `CalibratedModelRow`, the leaderboard reads the report's heading and the rows of the models it
    shows, never the report's result (which grows with the models compared); a report without one is
    indexed the first time a leaderboard needs it.
    """

    report = models.OneToOneField(AgreementReport, on_delete=models.CASCADE, primary_key=True, related_name="calibrated_index")
    present = models.BooleanField(help_text="Whether the report holds calibrated scores (rows below); false: nothing to show.")
    runs = models.JSONField(default=list, help_text="The judge's run labels the report compared.")
    kendall_tau = models.JSONField(null=True, help_text="Kendall's tau between the judge-only and corrected overall (a figure).")
    experts_resampled = models.PositiveIntegerField(null=True, help_text="Experts the intervals resampled with the items.")
    alt_test = models.JSONField(null=True, help_text="The report's alternative annotator test (overall), when it has one.")
    indexed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"calibrated index of report {self.report_id}"


class CalibratedModelRow(models.Model):
    """One model's human-calibrated scores in a report, as the report stores them (see `CalibratedIndex`)."""

    report = models.ForeignKey(AgreementReport, on_delete=models.CASCADE, related_name="calibrated_rows")
    model = models.CharField(max_length=200)
    scores = models.JSONField(help_text="The model's calibrated scores in the report's typed shape.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["report", "model"], name="uniq_calibrated_model_row")]

    def __str__(self) -> str:
        return f"{self.model} in report {self.report_id}"
