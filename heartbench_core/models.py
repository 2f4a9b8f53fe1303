"""Core data model: datasets and their immutable versions, items, criteria, model responses.

A DatasetVersion is a snapshot: its Items and Criteria are rows of their own, never shared
with another version, so a frozen version can never change under a judgment made against
it. A criterion keeps its identity across versions through `key` (a lineage id) and counts
its revisions in `revision`; the rubrics app builds its review workflow on those two fields.
"""

from __future__ import annotations

import secrets
import uuid
from typing import TYPE_CHECKING, Self, TypeVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from heartbench_core.lib.taxonomy import CATASTROPHIC_LABEL, english_name

if TYPE_CHECKING:
    from datetime import datetime, timedelta

    from heartbench_core.blindness import BlindScope
    from heartbench_core.roles import Role


LeasedT = TypeVar("LeasedT", bound=models.Model)
# The statuses every leased row shares (heartbench_core/services/leases.py): waiting for a worker, held by one.
LEASE_PENDING, LEASE_RUNNING = "pending", "running"


class User(AbstractUser):
    """A person using the platform; roles are Django groups (see heartbench_core.roles)."""

    # Per-request caches on the instance, filled on first use; never stored.
    _hb_roles: frozenset[Role] | None = None  # heartbench_core.roles.roles_of
    _hb_expert_group: bool | None = None  # annotation.blindness.in_expert_group
    _hb_blind_scope: BlindScope | None = None  # heartbench_core.blindness.blind_scope

    language = models.CharField(
        max_length=16,
        blank=True,
        default="",
        choices=settings.LANGUAGES,
        verbose_name=_("language"),
        help_text=_("Language of the pages for this user; blank follows the browser's."),
    )
    # Kept by `annotation.services.reports.resolve_report`: the navigation's unread-replies count reads nothing more while
    # no reply came after the expert last opened their reports page (the user row is read for the request anyway).
    report_reply_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When an admin last replied to one of this user's reports."
    )

    class Meta:
        db_table = "hb_user"


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def usable(self, now: datetime) -> ApiTokenQuerySet:
        """Tokens that still authenticate: neither revoked nor expired."""
        return self.filter(revoked_at__isnull=True, expires_at__gt=now)


class ApiToken(models.Model):
    """An API token of a user, for pipelines: only its SHA-256 digest is stored, and a short prefix to recognise it by.

    The token itself is shown once, when it is issued (heartbench_core.services.api_tokens). It
    authenticates as its user until it expires or is revoked; revoking keeps the row, so lists
    say when and by whom.
    """

    class State(models.TextChoices):
        ACTIVE = "active", _("Active")
        EXPIRED = "expired", _("Expired")
        REVOKED = "revoked", _("Revoked")

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("user"))
    name = models.CharField(max_length=100, verbose_name=_("name"), help_text=_("What the token is for, e.g. the pipeline using it."))
    prefix = models.CharField(max_length=16, verbose_name=_("starts with"), help_text=_("The token's first characters; not a secret."))
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token, in hex.")
    created_at = models.DateTimeField(verbose_name=_("created"))
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("created by"))
    expires_at = models.DateTimeField(verbose_name=_("expires"))
    last_used_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last used"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked"))
    revoked_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("revoked by"))

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="api_token_user_created")]
        constraints = [
            models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")), name="api_token_expires_after_created")
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    def state(self, now: datetime) -> ApiToken.State:
        """Active, expired or revoked at `now` (revoked wins: it was a decision)."""
        if self.revoked_at is not None:
            return ApiToken.State.REVOKED
        if self.expires_at <= now:
            return ApiToken.State.EXPIRED
        return ApiToken.State.ACTIVE

    @property
    def current_state(self) -> ApiToken.State:
        """The state now (for templates)."""
        return self.state(timezone.now())


class Dataset(models.Model):
    name = models.CharField(max_length=100, unique=True, help_text="Name used on the command line (--dataset).")
    description = models.TextField(blank=True)
    extra_labels = models.JSONField(
        default=list, blank=True, help_text="Rubric labels outside the HeartBench taxonomy that this dataset declares."
    )
    review_panel_size = models.PositiveSmallIntegerField(
        default=4, help_text="Senior reviewers who must unanimously approve a rubric revision."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("core:dataset", args=[self.name])


class DatasetVersion(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(help_text="1, 2, 3… in order of creation within the dataset.")
    label = models.CharField(max_length=64)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    content_hash = models.CharField(max_length=64, db_index=True)
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)
    changelog = models.JSONField(default=dict, blank=True)
    frozen = models.BooleanField(default=True)
    source = models.CharField(max_length=200, blank=True, help_text="File or action the version came from.")
    item_count = models.PositiveIntegerField(default=0)
    criterion_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["dataset", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="uniq_version_number"),
            models.UniqueConstraint(fields=["dataset", "label"], name="uniq_version_label"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}@{self.label}"

    def get_absolute_url(self) -> str:
        return reverse("core:version", args=[self.dataset.name, self.label])


class Item(models.Model):
    class Difficulty(models.TextChoices):
        HARD = "hard", pgettext_lazy("item difficulty label", "Hard")
        NORMAL = "normal", pgettext_lazy("item difficulty label", "Normal")
        UNSPECIFIED = "", pgettext_lazy("item difficulty label", "Unspecified")

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="items")
    question_id = models.CharField(max_length=64)
    position = models.PositiveIntegerField(help_text="0-based line order in the version's file.")
    dialogue = models.JSONField(help_text='[{"role": "A"|"B", "content": str}, ...]; A is the help-seeking user.')
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices, blank=True, default="")
    primary_scene = models.CharField(max_length=100, blank=True)
    secondary_scene = models.CharField(max_length=100, blank=True)
    extra = models.JSONField(default=dict, blank=True, help_text="Keys of the upstream record not modelled here.")
    key_order = models.JSONField(default=list, help_text="Key order of the upstream record, for a faithful export.")
    content_hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["version", "question_id"], name="uniq_item_question"),
            models.UniqueConstraint(fields=["version", "position"], name="uniq_item_position"),
        ]
        indexes = [models.Index(fields=["question_id"])]

    def __str__(self) -> str:
        return self.question_id

    def get_absolute_url(self) -> str:
        return reverse("core:item", args=[self.version.dataset.name, self.version.label, self.question_id])


class CriterionLineage(models.Model):
    """One criterion across versions. Mutable: it tracks the newest revision and the newest change of meaning.

    A judgment or verdict made against a snapshot whose `revision` is below `meaning_revision`
    is stale: the criterion has since changed meaning (weight, sign, ability, or a semantic edit).
    """

    key = models.UUIDField(primary_key=True)
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="lineages")
    current_revision = models.PositiveIntegerField(default=1)
    meaning_revision = models.PositiveIntegerField(default=1)
    retired = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(meaning_revision__lte=models.F("current_revision")), name="meaning_not_ahead")
        ]

    def __str__(self) -> str:
        return f"{self.key} r{self.current_revision}"


class Criterion(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="criteria")
    position = models.PositiveSmallIntegerField(help_text="0-based place in the item's rubric.")
    ability = models.CharField(max_length=40, help_text="Ability label as spelled in the data (其他 for catastrophic).")
    weight = models.SmallIntegerField(null=True, blank=True)
    text = models.TextField()
    catastrophic = models.BooleanField(default=False)
    lineage = models.ForeignKey(
        CriterionLineage, on_delete=models.RESTRICT, related_name="snapshots", help_text="The same criterion across versions."
    )
    revision = models.PositiveIntegerField(default=1, help_text="Revision of the lineage this snapshot embodies.")
    extra = models.JSONField(null=True, blank=True, help_text="Upstream keys not modelled here, and their order.")

    class Meta:
        ordering = ["item", "position"]
        verbose_name_plural = "criteria"
        constraints = [
            models.UniqueConstraint(fields=["item", "position"], name="uniq_criterion_position"),
        ]

    def __str__(self) -> str:
        return f"{self.item.question_id}#{self.position} {self.ability} {self.weight}"

    @property
    def key(self) -> uuid.UUID:
        """The lineage id (stable across versions)."""
        return self.lineage_id

    @property
    def ability_name(self) -> str:
        """English name of the ability label."""
        return english_name(self.ability)

    @property
    def is_penalty(self) -> bool:
        """True for a criterion whose hit lowers the score."""
        return self.weight is not None and self.weight < 0

    def clean(self) -> None:
        if self.catastrophic != (self.ability == CATASTROPHIC_LABEL):
            raise ValidationError({"catastrophic": _("Only %(label)s criteria are catastrophic.") % {"label": CATASTROPHIC_LABEL}})


class LanguageModel(models.Model):
    """The model registry. Kept apart from responses so expert-facing code never joins it."""

    name = models.CharField(max_length=200, unique=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def new_public_id() -> str:
    """Return an opaque, unguessable id for a response (no order, no model information)."""
    return secrets.token_urlsafe(12)


class ModelResponse(models.Model):
    """One model's answer to one question of a dataset (valid across the dataset's versions)."""

    public_id = models.CharField(max_length=32, unique=True, default=new_public_id, editable=False)
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="responses")
    question_id = models.CharField(max_length=64)
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="responses")
    text = models.TextField()
    metadata = models.JSONField(default=dict, blank=True)
    imported_for = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="+", help_text="Version checked at import.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "question_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "model", "question_id"], name="uniq_response_per_model"),
        ]
        indexes = [models.Index(fields=["dataset", "question_id"])]

    def __str__(self) -> str:
        return self.public_id


class StaffExposure(models.Model):
    """A staff page or endpoint showed this user a response with its model, judge verdicts or other raters.

    The assignment service never serves such a response to that user as a blind expert.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="staff_exposures")
    response = models.ForeignKey(ModelResponse, on_delete=models.CASCADE, related_name="staff_exposures")
    via = models.CharField(max_length=64, help_text="The view that showed it, e.g. 'adjudication'.")
    first_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "response"], name="uniq_staff_exposure")]

    def __str__(self) -> str:
        return f"{self.user_id} saw {self.response_id} via {self.via}"


class JudgeRun(models.Model):
    """The verdicts of one judge over one dataset version for one model (e.g. one upstream question_score.jsonl)."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="judge_runs")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="judge_runs")
    judge = models.CharField(max_length=200, help_text="Name of the judge model, e.g. claude-sonnet-4-5-20250929.")
    label = models.CharField(max_length=64, default="default", help_text="Distinguishes repeated runs of one judge.")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    source = models.CharField(max_length=200, blank=True, help_text="File the verdicts came from.")
    note = models.TextField(blank=True)
    question_count = models.PositiveIntegerField(default=0, help_text="Questions the run holds verdicts for.")
    verdict_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["version", "model__name", "judge", "label"]
        constraints = [
            models.UniqueConstraint(fields=["version", "model", "judge", "label"], name="uniq_judge_run"),
        ]

    def __str__(self) -> str:
        return f"{self.judge}/{self.label} on {self.model.name} @ {self.version}"


class JudgeVerdict(models.Model):
    """One judge's hit/miss on one criterion snapshot for one response."""

    # No index of their own: `uniq_verdict_per_criterion` starts with run, the index below with response.
    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="verdicts", db_index=False)
    response = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="judge_verdicts", db_index=False)
    criterion = models.ForeignKey(
        Criterion, on_delete=models.PROTECT, related_name="judge_verdicts", help_text="The exact revision judged."
    )
    hit = models.BooleanField()
    rationale = models.TextField(blank=True, help_text="The judge's reason (upstream score_reason, shared by the question).")
    raw = models.JSONField(default=dict, blank=True, help_text="The judge's output line, minus the dialogue and rubric.")

    class Meta:
        ordering = ["run", "criterion"]
        constraints = [
            # On PostgreSQL its index also carries response, hit and id (migration 0009): a report
            # reads the verdicts of a judge's runs from the index alone.
            models.UniqueConstraint(fields=["run", "criterion"], name="uniq_verdict_per_criterion"),
        ]
        indexes = [models.Index(fields=["response", "criterion"])]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.criterion_id}={'hit' if self.hit else 'miss'}"


class StoredScores(models.Model):
    """One model's per-question scores from one verdict source under one catastrophic rule, kept until its inputs change.

    Pages and the API aggregate any subset or scene from these arrays instead of reading every
    verdict again. Rows are deleted by `heartbench_core.services.stored_scores.forget_scores` on every
    write that changes what they were computed from (verdicts, golden labels, rubric meaning); a judge
    run's row also remembers the run's verdict count, so a row that missed its invalidation is not used.
    """

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100, help_text="The verdicts scored: 'judge:<run id>' or 'consensus:<campaign id>:<model id>'.")
    mode = models.CharField(max_length=12, help_text="Catastrophic rule (a scoring setting): one row per rule.")
    run = models.ForeignKey(JudgeRun, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    campaign_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="Consensus scores: the campaign (an upper app's).")
    stamp = models.CharField(max_length=64, blank=True, help_text="Counts the row was computed from (a judge run's verdict count).")
    arrays = models.BinaryField(help_text="The per-question score arrays (NumPy .npz).")
    # The overall scores of the three subsets (every scene), so the leaderboard API ranks a version's runs
    # from an index and unpacks the arrays of one page only. Rows stored before these columns are filled
    # on first use (`overalls_stored`).
    overall = models.FloatField(null=True, blank=True, help_text="Overall score on all questions; null: nothing scored.")
    overall_hard = models.FloatField(null=True, blank=True, help_text="Overall score on the hard questions.")
    overall_normal = models.FloatField(null=True, blank=True, help_text="Overall score on the normal questions.")
    overalls_stored = models.BooleanField(default=False, help_text="The three overall scores are filled in.")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "stored scores"
        constraints = [models.UniqueConstraint(fields=["key", "mode"], name="uniq_stored_scores")]
        indexes = [
            models.Index(fields=["campaign_id"]),
            # A version's runs of a rule by overall score, one per subset (nulls, unscored runs, go last in the query: SQLite has no NULLS LAST index).
            *(
                models.Index(F("version"), F("mode"), F(column).desc(), name=f"stored_scores_rank_{name}")
                for column, name in (("overall", "all"), ("overall_hard", "hard"), ("overall_normal", "normal"))
            ),
        ]

    def __str__(self) -> str:
        return f"scores {self.key} ({self.mode})"


class LeasedQuerySet(models.QuerySet[LeasedT]):
    """Rows of durable background work (heartbench_core/services/leases.py): a status, a lease and when the broker was last told.

    Its model has `status` ("pending" waiting, "running" held), `locked_until` (the holder's lease)
    and `enqueued_at` (when its id was last handed to the broker).
    """

    def claimable(self, now: datetime) -> Self:
        """Rows a worker may take now: waiting, or running under a lease that expired (its worker died)."""
        return self.filter(models.Q(status=LEASE_PENDING) | models.Q(status=LEASE_RUNNING, locked_until__lt=now))

    def due(self, now: datetime, lease: timedelta) -> Self:
        """Rows to send to the broker again: waiting and never sent (or sent longer than a lease ago), or held under a dead lease."""
        never_sent = models.Q(enqueued_at__isnull=True) | models.Q(enqueued_at__lt=now - lease)
        return self.filter(models.Q(status=LEASE_PENDING) & never_sent | models.Q(status=LEASE_RUNNING, locked_until__lt=now))


# The judge runner's models live in heartbench_core/judging/models.py; imported here so Django registers them.
from heartbench_core.judging.models import Endpoint, EndpointRun, JudgeTemplate, JudgeTemplateRevision, RunQuestion  # noqa: E402, F401
