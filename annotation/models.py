"""Experts, campaigns, assignments and the judgments experts make.

Blindness starts here: `Assignment.public_id` is the only id an expert ever sees; a
`CampaignResponse` knows its model response (and through it the model) and whether it is a
hidden gold check, and none of that may reach expert-facing code.
"""

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Self

# Imported under another name: inside `Campaign`, the reverse relation `settings` (CampaignSettings) hides a module named `settings`.
from django.conf import settings as django_settings
from django.db import connection, models
from django.db.models import Exists, F, Func, OuterRef, Q, Value
from django.utils.translation import pgettext_lazy

from annotation.services.sampling import new_seed
from heartbench_core.models import (
    Criterion,
    DatasetVersion,
    Item,
    LanguageModel,
    ModelResponse,
    User,
    new_public_id,
)

if TYPE_CHECKING:
    from annotation.workspace.selectors import CorrectionPair


class ExpertProfile(models.Model):
    class Availability(models.TextChoices):
        ACTIVE = "active", pgettext_lazy("expert availability", "Active")
        PAUSED = "paused", pgettext_lazy("expert availability", "Paused")
        AWAY = "away", pgettext_lazy("expert availability", "Away")

    user = models.OneToOneField(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="expert_profile")
    degree = models.CharField(max_length=200, blank=True)
    years_practice = models.PositiveSmallIntegerField(default=0, help_text="Years of clinical practice.")
    credentials = models.TextField(blank=True)
    specialties = models.JSONField(default=list, blank=True, help_text="Ability labels, dimension names and scene names the expert covers.")
    languages = models.JSONField(default=list, blank=True, help_text='Language codes, e.g. ["zh", "en"].')
    capacity = models.PositiveSmallIntegerField(default=10, help_text="Most open assignments at once.")
    availability = models.CharField(max_length=10, choices=Availability.choices, default=Availability.ACTIVE)
    availability_reason = models.TextField(blank=True, help_text="Why the expert is paused (e.g. gold accuracy).")
    tier = models.PositiveSmallIntegerField(default=1, help_text="Computed from calibration and measured quality.")
    tier_override = models.PositiveSmallIntegerField(null=True, blank=True)
    tier_override_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user__username"]

    def __str__(self) -> str:
        return f"{self.user.get_username()} (tier {self.effective_tier})"

    @property
    def effective_tier(self) -> int:
        """The admin's override when set, else the computed tier."""
        return self.tier_override if self.tier_override is not None else self.tier


class CampaignQuerySet(models.QuerySet["Campaign"]):
    """Which campaigns a person takes part in, defined once; callers add their own status and kind.

    Membership is tested with EXISTS subqueries, not joins, so a count annotated on the result
    (`Count("responses")`) is not narrowed or multiplied by it. No role is checked here: each
    caller knows which role it asks about (`annotation.blindness` has the superuser's case).
    """

    def taking_part(self, user: User, *, unrestricted: bool = True) -> Self:
        """Campaigns that list the user among their experts, or where they hold an assignment (whatever became of it), or,
        unless `unrestricted=False`, that list no experts (an unrestricted campaign admits every expert)."""
        member = self._lists(user) | self._holds_work_of(user)
        if unrestricted:
            member = member | self._lists_nobody()
        return self.filter(member)

    def admitting(self, user: User) -> Self:
        """Campaigns that may give the user new work: listing them among their experts, or listing none.

        Work the user once held in a campaign does not admit them: an admin who takes an expert off
        the list stops their new work there, while they still take part in it (`taking_part`).
        """
        return self.filter(self._lists(user) | self._lists_nobody())

    @staticmethod
    def _lists(user: User) -> Q:
        return Q(Exists(Campaign.experts.through.objects.filter(campaign_id=OuterRef("pk"), user_id=user.pk)))

    @staticmethod
    def _lists_nobody() -> Q:
        return ~Q(Exists(Campaign.experts.through.objects.filter(campaign_id=OuterRef("pk"))))

    @staticmethod
    def _holds_work_of(user: User) -> Q:
        # Read from the expert's tally row of the campaign (one index probe), not their assignments: an EXISTS over those
        # scanned the expert's whole history for each campaign whose list does not name them. The row counts every
        # assignment by status (kept by triggers), so some count above zero is exactly "holds an assignment".
        held = Q(reserved__gt=0) | Q(submitted__gt=0) | Q(expired__gt=0) | Q(released__gt=0)
        return Q(Exists(ExpertCampaignTally.objects.filter(held, campaign_id=OuterRef("pk"), expert_id=user.pk)))


class Campaign(models.Model):
    class Kind(models.TextChoices):
        BLIND_TEST = "blind_test", pgettext_lazy("campaign kind", "Blind test")
        CALIBRATION = "calibration", pgettext_lazy("campaign kind", "Calibration")
        GOLD_SET = "gold_set", pgettext_lazy("campaign kind", "Gold set")

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("campaign status", "Draft")
        ACTIVE = "active", pgettext_lazy("campaign status", "Active")
        PAUSED = "paused", pgettext_lazy("campaign status", "Paused")
        CLOSED = "closed", pgettext_lazy("campaign status", "Closed")

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.BLIND_TEST)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="campaigns")
    language_models = models.ManyToManyField(LanguageModel, blank=True, related_name="campaigns")
    sample_fraction = models.FloatField(default=0.4)
    overlap = models.PositiveSmallIntegerField(default=3, help_text="k: distinct experts per response.")
    seed = models.BigIntegerField(
        default=new_seed,
        help_text="Stored seed of the sample; drawn with a key only the server holds, never shown to the campaign's experts.",
    )
    reservation_timeout = models.DurationField(default=timedelta(hours=2))
    experts = models.ManyToManyField(django_settings.AUTH_USER_MODEL, blank=True, related_name="eligible_campaigns")
    rationale_min_chars = models.PositiveSmallIntegerField(default=10)
    show_weights = models.BooleanField(default=False)
    gold_rate = models.FloatField(default=0.0, help_text="Share of hidden gold checks mixed into queues.")
    min_tier_for_hard = models.PositiveSmallIntegerField(default=1)
    piece_rate = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    pass_threshold = models.FloatField(default=0.8, help_text="Calibration: agreement with gold needed to pass.")
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the work is due; a campaign whose pace will not finish by then is behind schedule."
    )
    status_reason = models.TextField(blank=True, help_text="Why an admin paused or closed the campaign; its experts read it.")
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class CampaignResponse(models.Model):
    """A model response sampled into a campaign, with the item of the campaign's version it answers."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="responses")
    response = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="campaign_entries")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="campaign_entries")
    is_gold = models.BooleanField(default=False, help_text="A hidden gold check; never revealed to experts.")
    order_key = models.PositiveIntegerField(default=0, help_text="Random, so no order reveals the model.")
    # Raters beyond the campaign's k this response is offered to, because its k blind verdicts split
    # (`annotation.services.split_extension`); admins only, never shown to experts.
    extra_raters = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="Experts beyond k this response is offered to (its k verdicts split); 0 or 2."
    )
    extended_at = models.DateTimeField(null=True, blank=True, help_text="When the extra raters were granted.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "order_key"]
        constraints = [models.UniqueConstraint(fields=["campaign", "response"], name="uniq_campaign_response")]
        # A campaign's hidden gold checks (a few among thousands of responses), found without reading the others.
        indexes = [models.Index(fields=["campaign"], condition=Q(is_gold=True), name="annotation_cr_gold")]

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.response_id}"


class GoldLabel(models.Model):
    """Known hit/miss of one criterion for a calibration or gold-check response."""

    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="gold_labels")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="+")
    hit = models.BooleanField()
    explanation = models.TextField(blank=True, help_text="Feedback shown after a calibration, on a miss.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign_response", "criterion"], name="uniq_gold_label")]

    def __str__(self) -> str:
        return f"{self.campaign_response_id}/{self.criterion_id}: {self.hit}"


class _ResponseOfCampaign(Func):
    """PostgreSQL: `campaign_response_id = ANY(ARRAY(<the campaign's response ids>))`, the column resolved as the query aliases it."""

    output_field = models.BooleanField()

    def __init__(self, campaign_id: int, gold: bool | None) -> None:
        super().__init__(F("campaign_response_id"), Value(campaign_id))
        self.which = "" if gold is None else (" AND is_gold" if gold else " AND NOT is_gold")

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, tuple[Any, ...]]:  # type: ignore[override]
        column, column_params = compiler.compile(self.source_expressions[0])
        campaign, campaign_params = compiler.compile(self.source_expressions[1])
        table = connection.ops.quote_name(CampaignResponse._meta.db_table)
        sql = f"{column} = ANY(ARRAY(SELECT id FROM {table} WHERE campaign_id = {campaign}{self.which}))"
        return sql, (*column_params, *campaign_params)


# A campaign whose responses are less than this share of the installation's reads its assignments by index.
# Measured on PostgreSQL: at a tenth of the installation the index takes half the join's time (7 vs 14 ms
# for a HeartBench-sized blind test among ten); at nine tenths the join is faster (0.2 s vs 0.75 s).
SMALL_SHARE = 0.5


def campaign_has_small_share(campaign_id: int) -> bool:
    """PostgreSQL: whether the campaign holds less than SMALL_SHARE of all campaign responses (its tally, the planner's row count).

    Always False elsewhere: SQLite keeps the join.
    """
    if connection.vendor != "postgresql":
        return False
    tallies, responses_table = CampaignTally._meta.db_table, CampaignResponse._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT responses FROM {connection.ops.quote_name(tallies)} WHERE campaign_id = %s),"
            " (SELECT reltuples FROM pg_class WHERE oid = %s::regclass)",
            [campaign_id, responses_table],
        )
        responses, everyone = cursor.fetchone()
    return responses is not None and everyone is not None and everyone > 0 and responses < SMALL_SHARE * everyone


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    """The recurring filters on assignments, each defined once.

    `open_q` and `live_q` are the one definition of open and live work. The methods filter with
    them, and an aggregate counting assignments from a related model uses them through that
    relation, where no queryset method can go:
    `Count("assignments", filter=AssignmentQuerySet.live_q(now, through="assignments"))`.
    """

    def bulk_create(self, objs: Iterable["Assignment"], *args: Any, **kwargs: Any) -> list["Assignment"]:
        """As Django's, with each assignment's campaign filled from its response when the caller did not set it."""
        objs = list(objs)
        fill_campaigns(objs)
        return super().bulk_create(objs, *args, **kwargs)

    def held(self) -> Self:
        """Work still the expert's: reserved (even past its expiry, until the sweep marks it) or submitted."""
        return self.filter(status__in=Assignment.HELD_STATUSES)

    def open(self, now: datetime) -> Self:
        """Open work: reserved and not expired (pre-assigned work never expires)."""
        return self.filter(self.open_q(now))

    def live(self, now: datetime) -> Self:
        """Work that counts toward a response's k: submitted, or open."""
        return self.filter(self.live_q(now))

    def overdue(self, now: datetime) -> Self:
        """Reserved past its expiry: open no more, though the sweep has not yet marked it expired (what the sweep marks)."""
        return self.filter(status=Assignment.Status.RESERVED, expires_at__lte=now)

    def submitted(self) -> Self:
        """Submitted work."""
        return self.filter(status=Assignment.Status.SUBMITTED)

    def of_campaign(self, campaign_id: int, *, gold: bool | None = None, small_share: bool | None = None) -> Self:
        """The campaign's assignments (only of its gold checks, or only of its real responses, when `gold` says).

        All of them are one range of the index on the assignments' campaign column. Split by `gold`,
        they are found from the campaign's responses (which say which are gold checks). On
        PostgreSQL, for a campaign holding a small share of the installation's responses, their
        ids go as an array read from the index on the assignments' response: joined instead,
        PostgreSQL hashes every assignment of the installation, so the time would grow with the
        other campaigns (53 ms for a page of a 1,652-response campaign among 100, 5 ms this way).
        For a campaign holding much of the installation the join is faster (probing the index for
        each of 165,000 responses takes 0.75 s, the join 0.2 s), so it is kept: one query of two
        catalogue figures decides (`small_share`, which a caller that asks several times passes).
        """
        if gold is None:
            return self.filter(campaign_id=campaign_id)
        of_gold = {"campaign_response__is_gold": gold}
        if small_share is None:
            small_share = campaign_has_small_share(campaign_id)
        if connection.vendor != "postgresql" or not small_share:
            return self.filter(campaign_response__campaign_id=campaign_id, **of_gold)
        return self.filter(_ResponseOfCampaign(campaign_id, gold))

    @staticmethod
    def open_q(now: datetime, through: str = "") -> Q:
        """The condition of `open`, on assignments reached through the relation `through` ("" for assignments themselves)."""
        at = f"{through}__" if through else ""
        return Q(**{f"{at}status": Assignment.Status.RESERVED}) & (
            Q(**{f"{at}expires_at__isnull": True}) | Q(**{f"{at}expires_at__gt": now})
        )

    @staticmethod
    def live_q(now: datetime, through: str = "") -> Q:
        """The condition of `live`, on assignments reached through the relation `through` ("" for assignments themselves)."""
        at = f"{through}__" if through else ""
        return Q(**{f"{at}status": Assignment.Status.SUBMITTED}) | AssignmentQuerySet.open_q(now, through)


class Assignment(models.Model):
    """One expert's work on one campaign response: reserved, then submitted (or expired/released)."""

    class Status(models.TextChoices):
        RESERVED = "reserved", pgettext_lazy("assignment status", "Reserved")
        SUBMITTED = "submitted", pgettext_lazy("assignment status", "Submitted")
        EXPIRED = "expired", pgettext_lazy("assignment status", "Expired")
        RELEASED = "released", pgettext_lazy("assignment status", "Released")

    # Work still the expert's, whatever its expiry; expired and released work is no longer theirs.
    HELD_STATUSES = (Status.RESERVED, Status.SUBMITTED)

    public_id = models.CharField(max_length=32, unique=True, default=new_public_id, editable=False)
    # No index of their own: the unique constraint and the indexes below start with each of them.
    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.PROTECT, related_name="assignments", db_index=False)
    # The response's campaign, copied (a response with assignments never moves: a trigger refuses it), so that a
    # campaign's assignments are one range of an index: the admins' list reads a deep page without the campaign's
    # responses. Every writer sets it; `save` and `bulk_create` fill it from the response when one does not.
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="+", db_index=False)
    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments", db_index=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RESERVED)
    reserved_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="None: pre-assigned, does not expire.")
    submitted_at = models.DateTimeField(null=True, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every draft save and by the submission; a save based on an older version is refused
    # (another tab saved meanwhile). A database default too: the bulk pre-assignment writes with COPY.
    draft_version = models.PositiveIntegerField(
        default=0, db_default=0, help_text="How many times the draft was saved (or submitted); what a save must be based on."
    )
    active_seconds = models.PositiveIntegerField(default=0, help_text="Time on task with the page visible.")
    discussion_seen_at = models.DateTimeField(
        null=True, blank=True, help_text="When the expert first saw the response's discussion (other raters' stances)."
    )
    cursor = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Position (from 1) of the criterion the expert was on, so a reload returns there."
    )
    submitted_while_paused = models.BooleanField(
        default=False, help_text="Submitted while the expert was paused or away; paid as the quality policy says."
    )
    # The guidelines in force when the expert submitted: the campaign's own revision, or else its dataset's.
    # A database default too: the bulk pre-assignment writes rows with COPY, naming only the columns it sets.
    guidelines_source = models.CharField(
        max_length=10, blank=True, default="", db_default="", help_text='"campaign", "dataset", or "" (no guidelines were in force).'
    )
    guidelines_revision = models.PositiveIntegerField(null=True, blank=True, help_text="Revision of those guidelines.")

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["-reserved_at"]
        constraints = [
            # An expert never gets the same response twice, whatever became of the first assignment.
            models.UniqueConstraint(fields=["campaign_response", "expert"], name="one_assignment_per_expert_response"),
        ]
        indexes = [
            # (expert, status) alone is the start of the two expert indexes below.
            models.Index(fields=["campaign_response", "status"]),
            # A campaign's list, newest first, read a page at a time (keyset on reserved_at, id).
            models.Index(fields=["campaign", "-reserved_at", "-id"], name="annotation_assign_campaign"),
            # The expert's list, newest first, read a page at a time (keyset on reserved_at, public_id).
            models.Index(fields=["expert", "-reserved_at", "public_id"], name="annotation_assign_expert_list"),
            # The expert's completed work, newest first, in the lists' exact order (ties by public id), so a
            # page of it is the index's first rows, not a sort of the expert's whole history.
            models.Index(fields=["expert", "status", "-submitted_at", "public_id"], name="annotation_assign_expert_new"),
            # The expert's open work per campaign, oldest first: the home page's first few drafts of each
            # campaign are read from the index alone, however much pre-assigned work the expert holds.
            models.Index(fields=["expert", "status", "campaign", "reserved_at", "public_id"], name="annotation_assign_expert_open"),
            # Reservations that can expire: the sweep and the live counts read only these, not the campaign.
            models.Index(
                fields=["expires_at"],
                condition=Q(status="reserved", expires_at__isnull=False),
                name="annotation_assign_expiring",
            ),
        ]

    def __str__(self) -> str:
        return self.public_id

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.campaign_id is None:
            fill_campaigns([self])
        super().save(*args, **kwargs)


def fill_campaigns(assignments: Sequence["Assignment"]) -> None:
    """Give assignments created without their campaign the campaign of their response (read once for all of them)."""
    missing = [a for a in assignments if a.campaign_id is None]
    response = Assignment._meta.get_field("campaign_response")
    unknown = []
    for a in missing:
        if response.is_cached(a):
            a.campaign_id = a.campaign_response.campaign_id
        else:
            unknown.append(a)
    if unknown:
        of = dict(CampaignResponse.objects.filter(pk__in={a.campaign_response_id for a in unknown}).values_list("pk", "campaign_id"))
        for a in unknown:
            a.campaign_id = of.get(a.campaign_response_id)  # type: ignore[assignment]  # an unknown response fails on insert, as before


class Judgment(models.Model):
    """One expert's rationale and hit/miss on one criterion; a draft until its assignment is submitted."""

    # No index of its own: `uniq_judgment` (assignment, criterion) serves lookups by assignment.
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgments", db_index=False)
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="judgments")
    rationale = models.TextField(blank=True)
    hit = models.BooleanField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "criterion"], name="uniq_judgment")]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.criterion_id}: {self.hit}"


class Skip(models.Model):
    """An expert's decision not to judge one response, with why: the assignment went back to the pool, never paid.

    The expert's draft stays on the released assignment (its judgments are kept, not deleted), so
    nothing typed is lost and admins can read it. Admins only: experts never learn of others' skips.
    """

    class Reason(models.TextChoices):
        CONFLICT_OF_INTEREST = "conflict_of_interest", pgettext_lazy("reason for a skip", "Conflict of interest")
        DISTRESSING = "distressing", pgettext_lazy("reason for a skip", "Distressing content")
        UNREADABLE = "unreadable", pgettext_lazy("reason for a skip", "Unreadable or broken")
        OUTSIDE_EXPERTISE = "outside_expertise", pgettext_lazy("reason for a skip", "Outside my expertise")
        OTHER = "other", pgettext_lazy("reason for a skip", "Other (say why)")

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="skip")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="skips", help_text="The assignment's campaign.")
    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=25, choices=Reason.choices)
    note = models.TextField(blank=True, help_text="The expert's words; required when the reason is other.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "reason"], name="annotation_skip_campaign")]
        constraints = [
            models.CheckConstraint(condition=~models.Q(reason="other") | ~models.Q(note=""), name="skip_other_says_why"),
        ]

    def __str__(self) -> str:
        return f"skip of {self.assignment_id} ({self.reason})"


class CampaignTally(models.Model):
    """How many responses a campaign holds (and how many are hidden gold checks); kept by database triggers (migration 0010).

    Never shown to experts as such: their totals count every response, gold checks included.
    """

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="tally")
    responses = models.IntegerField(default=0)
    gold_responses = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"tally of campaign {self.campaign_id}"


class SubmissionHour(models.Model):
    """Submissions of a campaign's real responses (gold checks left out) in one hour (UTC); kept by database triggers (migration 0013).

    A campaign's pace and its first submission's hour are read from these rows, not from every
    submitted assignment. Admins only, like the other tallies.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    hour = models.DateTimeField()
    submitted = models.IntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "hour"], name="uniq_submission_hour")]

    def __str__(self) -> str:
        return f"submissions of campaign {self.campaign_id} in the hour from {self.hour:%Y-%m-%d %H:00}"


# A response's live assignments (submitted or reserved) beyond its extra raters: k minus its open slots.
FILLED_BEYOND_EXTRA = F("submitted") + F("reserved") - F("extra_raters")


class ResponseTally(models.Model):
    """One campaign response's assignments by status; kept by database triggers on every write (migration 0010). Admins only."""

    campaign_response = models.OneToOneField(CampaignResponse, on_delete=models.CASCADE, primary_key=True, related_name="+")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+", db_index=False)
    is_gold = models.BooleanField(default=False)
    submitted = models.IntegerField(default=0)
    reserved = models.IntegerField(default=0)
    # The response's own, copied by triggers (migration 0028), so that the pull's index holds them.
    order_key = models.PositiveIntegerField(default=0, db_default=0)
    extra_raters = models.PositiveSmallIntegerField(default=0, db_default=0)

    class Meta:
        indexes = [
            # The campaign's progress histogram is an index-only scan of its rows.
            models.Index(fields=["campaign", "is_gold", "submitted", "reserved"], name="annotation_rtally_progress"),
            # The pull's window: a campaign's responses by fewest open slots (the larger this, the nearer
            # completion: k minus it), then the campaign's random order (`assignment._ranked_ids`).
            models.Index(F("campaign"), FILLED_BEYOND_EXTRA.desc(), F("order_key"), name="annotation_rtally_pull"),
        ]

    def __str__(self) -> str:
        return f"tally of campaign response {self.campaign_response_id}"


class ProgressMove(models.Model):
    """Responses of a campaign moving into (+) or out of (-) the state of having `submitted` submitted assignments and
    (`reserving`) any reserved one: its progress histogram as sums of moves, written by database triggers on the
    response tallies (migration 0029). Admins only.

    Moves are only ever inserted (no row is shared by two writers, so none waits for another), and the
    periodic sweep folds each campaign's into one row per state (`annotation.services.tallies.fold_progress`):
    the histogram is a sum over a few rows, not a read of every response. `campaign_id` is a plain column, so
    a campaign being deleted takes no new move; the sweep drops those of deleted campaigns.
    """

    campaign_id = models.BigIntegerField()
    is_gold = models.BooleanField()
    submitted = models.IntegerField()
    reserving = models.BooleanField()
    responses = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["campaign_id", "is_gold", "submitted", "reserving"], name="annotation_progress_moves")]

    def __str__(self) -> str:
        return f"campaign {self.campaign_id}: {self.responses:+d} with {self.submitted} submitted"


class ExpertCampaignTally(models.Model):
    """One expert's assignments in one campaign by status; kept by database triggers on every write (migration 0010).

    Gold checks count like any work, as everywhere an expert reads their own figures: leaving them
    out would mark them.
    """

    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    reserved = models.IntegerField(default=0)
    preassigned = models.IntegerField(default=0, help_text="Of the reserved: pre-assigned, never expiring.")
    submitted = models.IntegerField(default=0)
    expired = models.IntegerField(default=0)
    released = models.IntegerField(default=0)
    active_seconds = models.BigIntegerField(default=0)
    submitted_seconds = models.BigIntegerField(default=0, help_text="Time on task of the submitted work.")
    submitted_while_paused = models.IntegerField(default=0, help_text="Of the submitted: submitted while the expert was paused or away.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["expert", "campaign"], name="uniq_expert_campaign_tally")]

    def __str__(self) -> str:
        return f"tally of expert {self.expert_id} in campaign {self.campaign_id}"

    @property
    def held(self) -> int:
        """Work still the expert's: reserved (whatever its expiry) or submitted."""
        return self.reserved + self.submitted


class ExpertReport(models.Model):
    """A report an expert files on an assignment; an admin resolves it with a reply the expert reads."""

    comment = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reply = models.TextField(blank=True, help_text="The answer the reporting expert reads.")

    class Meta:
        abstract = True
        ordering = ["-created_at"]


class UnclearCriterionReport(ExpertReport):
    """An expert's note that a criterion is unclear; lands in the rubric authors' work list."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="unclear_reports")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="unclear_reports")

    class Meta(ExpertReport.Meta):
        # The unread-replies count reads the replies since the expert last looked, not all their reports.
        indexes = [models.Index(fields=["resolved_at"], condition=models.Q(resolved_at__isnull=False), name="unclear_report_replied")]

    def __str__(self) -> str:
        return f"unclear {self.criterion_id} on {self.assignment_id}"


class ItemProblemReport(ExpertReport):
    """An expert's report of a problem with the item or response as a whole."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="problem_reports")

    class Meta(ExpertReport.Meta):
        # The unread-replies count reads the replies since the expert last looked, not all their reports.
        indexes = [models.Index(fields=["resolved_at"], condition=models.Q(resolved_at__isnull=False), name="problem_report_replied")]

    def __str__(self) -> str:
        return f"problem on {self.assignment_id}"


# --- The blind workspace: corrections of submitted work and the post-judgment discussion. ---


class CorrectionRequest(models.Model):
    """An expert's request to change submitted judgments; an admin accepts or refuses it.

    Both versions are kept: `original` is the submitted judgments as they stood when the request
    was made and `proposed` the expert's corrected ones (lists of {criterion, rationale, hit}).
    """

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("correction request status", "Pending")
        APPLYING = (
            "applying",
            pgettext_lazy("correction request status", "Being applied"),
        )  # transient, inside the accepting transaction only
        ACCEPTED = "accepted", pgettext_lazy("correction request status", "Accepted")
        REFUSED = "refused", pgettext_lazy("correction request status", "Refused")

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="correction_requests")
    reason = models.TextField()
    original = models.JSONField(help_text="The submitted judgments when the request was made.")
    proposed = models.JSONField(help_text="The corrected judgments the expert asks for.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)
    after_discussion = models.BooleanField(
        default=False,
        help_text="Requested after the expert saw the discussion: applied as a post-discussion revision, never to the blind verdict.",
    )

    # Not a column: the admins' corrections page sets it (`workspace.selectors.pending_corrections`).
    pairs: "list[CorrectionPair]"

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment"],
                condition=models.Q(status__in=["pending", "applying"]),
                name="one_open_correction_per_assignment",
            )
        ]

    def __str__(self) -> str:
        return f"correction {self.pk} of {self.assignment_id} ({self.status})"


class DiscussionComment(models.Model):
    """A comment in the thread of one campaign response, opened once it has all k judgments."""

    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="discussion_comments")
    author = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    criterion = models.ForeignKey(
        Criterion, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="None: about the response."
    )
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.campaign_response_id}"


class DiscussionVote(models.Model):
    """A participant's hit/miss stance on one criterion of a discussed response (changeable)."""

    campaign_response = models.ForeignKey(CampaignResponse, on_delete=models.CASCADE, related_name="discussion_votes")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="+")
    voter = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    hit = models.BooleanField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign_response", "criterion", "voter"], name="uniq_discussion_vote")]

    def __str__(self) -> str:
        return f"{self.voter_id} on {self.campaign_response_id}/{self.criterion_id}: {self.hit}"


# --- Experts' qualification, quality control, incentives (campaign management) ---------------


class QualityPolicy(models.Model):
    """Platform-wide thresholds of quality control; one row (`QualityPolicy.current()`), edited by admins."""

    class PausedWorkPay(models.TextChoices):
        FULL = "full", pgettext_lazy("pay for work submitted while paused", "Paid in full")
        NONE = "none", pgettext_lazy("pay for work submitted while paused", "Not paid")
        REVIEW = "review", pgettext_lazy("pay for work submitted while paused", "Held for an admin's decision")

    gold_window = models.PositiveSmallIntegerField(default=10, help_text="Rolling gold accuracy: the last N gold checks.")
    gold_min_checks = models.PositiveSmallIntegerField(default=3, help_text="Gold checks needed before an expert can be paused.")
    gold_pause_below = models.FloatField(default=0.7, help_text="Pause an expert whose rolling gold accuracy falls below this.")
    tier2_min_calibration = models.FloatField(default=0.8, help_text="Tier 2: a passed calibration scoring at least this.")
    tier3_min_calibration = models.FloatField(default=0.9, help_text="Tier 3: calibration score at least this…")
    tier3_min_gold_accuracy = models.FloatField(default=0.9, help_text="…and rolling gold accuracy at least this…")
    tier3_min_gold_checks = models.PositiveSmallIntegerField(default=5, help_text="…over at least this many gold checks.")
    certificate_min_submitted = models.PositiveIntegerField(default=50, help_text="Certificate: submitted responses needed.")
    certificate_min_quality = models.FloatField(default=0.8, help_text="Certificate: measured quality needed.")
    paused_work_pay = models.CharField(
        max_length=10,
        choices=PausedWorkPay.choices,
        default=PausedWorkPay.REVIEW,
        help_text="Work an expert submitted while paused or away: paid in full, not paid, or held until an admin decides.",
    )
    pay_policy_text = models.TextField(blank=True, help_text="The written pay and quality policy experts read on their profile (Markdown).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "quality policy"
        constraints = [
            models.CheckConstraint(condition=models.Q(gold_pause_below__gte=0, gold_pause_below__lte=1), name="policy_pause_in_unit"),
        ]

    def __str__(self) -> str:
        return "Quality policy"

    @classmethod
    def current(cls) -> "QualityPolicy":
        """The one policy row, created with defaults on first use."""
        return cls.objects.get_or_create(pk=1)[0]


class ExpertQuality(models.Model):
    """Measured quality of one expert, kept current by `annotation.services.quality` for fast matching."""

    profile = models.OneToOneField(ExpertProfile, on_delete=models.CASCADE, related_name="quality")
    calibration_score = models.FloatField(null=True, blank=True, help_text="Best passed calibration score.")
    gold_accuracy = models.FloatField(null=True, blank=True, help_text="Rolling accuracy on hidden gold checks.")
    gold_checks = models.PositiveIntegerField(default=0, help_text="Gold checks the rolling accuracy is over.")
    gold_criteria = models.PositiveIntegerField(default=0, help_text="Criteria compared for the rolling accuracy.")
    submitted = models.PositiveIntegerField(default=0, help_text="Submitted responses in blind-test campaigns.")
    certified_at = models.DateTimeField(null=True, blank=True, help_text="When the expert earned the certificate.")
    gold_decision_due = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Blind-test submissions after which the pending gold-accuracy decision is taken (random, so no pause follows a gold check).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"quality of {self.profile_id}"

    @property
    def measured(self) -> float | None:
        """Gold accuracy when measured, else the calibration score, else None (unknown)."""
        return self.gold_accuracy if self.gold_accuracy is not None else self.calibration_score


class CampaignSettings(models.Model):
    """Settings of a campaign beyond the core contract: qualification, gold source, calibration retakes."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="settings")
    requires_qualification = models.BooleanField(default=True, help_text="Only experts qualified by calibration take part.")
    qualification_per_dimension = models.BooleanField(
        default=False, help_text="An expert must be qualified in every dimension of the response's rubric."
    )
    gold_source = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="Gold set the hidden gold checks came from."
    )
    retake_cooldown = models.DurationField(default=timedelta(days=1), help_text="Calibration: wait before a retake.")
    max_attempts = models.PositiveSmallIntegerField(default=2, help_text="Calibration: attempts an expert may make.")
    sitting_size = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Calibration: responses per attempt (None: all); retakes draw responses not yet seen first."
    )
    certificate_name = models.CharField(max_length=200, blank=True)
    # Extra raters where the verdicts split (`annotation.services.split_extension`): off by default.
    split_extension = models.BooleanField(
        default=False, help_text="Offer a response whose k verdicts split to two more experts, within the budget."
    )
    split_extension_budget = models.PositiveIntegerField(
        default=0, help_text="Most extra assignments the campaign may grant (two per extended response)."
    )
    split_extension_min_share = models.FloatField(
        default=0.5, help_text="Share of a response's criteria split by one vote (a tie when k is even) that extends it, in (0, 1]."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(split_extension_min_share__gt=0) & Q(split_extension_min_share__lte=1),
                name="split_extension_share_in_range",
            ),
            models.CheckConstraint(
                condition=Q(split_extension=False) | Q(split_extension_budget__gte=2),
                name="split_extension_needs_budget",
            ),
        ]

    def __str__(self) -> str:
        return f"settings of {self.campaign_id}"


class CalibrationResult(models.Model):
    """One finished attempt at a calibration: agreement with gold, per dimension, and feedback on each miss."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="calibration_results")
    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calibration_results")
    attempt = models.PositiveSmallIntegerField(default=1)
    score = models.FloatField(null=True, blank=True, help_text="Share of gold-labelled criteria judged like gold; None when none compared.")
    agreed = models.PositiveIntegerField(default=0)
    compared = models.PositiveIntegerField(default=0)
    threshold = models.FloatField()
    passed = models.BooleanField(default=False)
    per_dimension = models.JSONField(default=dict, help_text='{"Emotion": {"agreed": n, "compared": n, "score": x, "passed": bool}}')
    feedback = models.JSONField(default=list, help_text="Each miss: criterion text, the expert's and the gold verdict, explanation.")
    campaign_responses = models.JSONField(default=list, help_text="Ids of the calibration responses this attempt drew.")
    completed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-completed_at"]
        constraints = [models.UniqueConstraint(fields=["campaign", "expert", "attempt"], name="uniq_calibration_attempt")]

    def __str__(self) -> str:
        return f"{self.expert_id} on {self.campaign_id} #{self.attempt}: {self.score}"


class Qualification(models.Model):
    """An expert is qualified in general (dimension "") or for one dimension of the taxonomy."""

    class Source(models.TextChoices):
        CALIBRATION = "calibration", pgettext_lazy("qualification source", "Calibration")
        ADMIN = "admin", pgettext_lazy("qualification source", "Granted by an admin")

    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualifications")
    dimension = models.CharField(max_length=40, blank=True, help_text='"" = qualified in general.')
    source = models.CharField(max_length=12, choices=Source.choices)
    result = models.ForeignKey(CalibrationResult, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    granted_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True)
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["expert", "dimension"]
        constraints = [models.UniqueConstraint(fields=["expert", "dimension"], name="uniq_qualification")]

    def __str__(self) -> str:
        return f"{self.expert_id}:{self.dimension or 'general'}"


class TierChange(models.Model):
    """History of an expert's tier: computed changes and admins' overrides (with their reason)."""

    profile = models.ForeignKey(ExpertProfile, on_delete=models.CASCADE, related_name="tier_changes")
    old_tier = models.PositiveSmallIntegerField(null=True, blank=True)
    new_tier = models.PositiveSmallIntegerField(null=True, blank=True)
    override = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    changed_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at"]

    def __str__(self) -> str:
        return f"{self.profile_id}: tier {self.old_tier} → {self.new_tier}"


class AdminAlert(models.Model):
    """Something an admin must look at (e.g. an expert paused for low gold accuracy)."""

    class Kind(models.TextChoices):
        GOLD_ACCURACY = "gold_accuracy", pgettext_lazy("admin alert kind", "Low gold accuracy")
        CALIBRATION_FAILED = "calibration_failed", pgettext_lazy("admin alert kind", "Calibration failed")
        EXPERT_DRIFT = "expert_drift", pgettext_lazy("admin alert kind", "Expert drifting from gold")
        CRITERION_LOW_ALPHA = "criterion_low_alpha", pgettext_lazy("admin alert kind", "Criterion with low agreement")
        JUDGE_DISAGREES_ON_MODEL = "judge_model", pgettext_lazy("admin alert kind", "Judge disagrees with the experts on a model")

    kind = models.CharField(max_length=30, choices=Kind.choices)
    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="alerts")
    criterion = models.ForeignKey(Criterion, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    language_model = models.ForeignKey(LanguageModel, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(
        max_length=200,
        blank=True,
        db_index=True,
        help_text="What the alert is about, so a scheduled check updates it instead of repeating it.",
    )
    details = models.JSONField(default=dict, blank=True, help_text="The figures behind the alert (value, threshold, counts compared).")
    message = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True, help_text="When a scheduled check last found the condition still true.")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["resolved_at", "created_at"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.message[:40]}"


class CampaignGuidelines(models.Model):
    """One revision of a campaign's guidelines (Markdown), shown to its experts on the judging page; never edited in place."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="guidelines")
    revision = models.PositiveIntegerField()
    body = models.TextField(help_text="Markdown; rendered sanitised.")
    change_note = models.CharField(max_length=300, blank=True)
    author = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "-revision"]
        constraints = [models.UniqueConstraint(fields=["campaign", "revision"], name="uniq_guidelines_revision")]

    def __str__(self) -> str:
        return f"guidelines of {self.campaign_id} r{self.revision}"


class PayDecision(models.Model):
    """An admin's decision on the work an expert submitted while paused or away, under the "held" pay policy."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pay_decisions")
    expert = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    pay = models.BooleanField(help_text="Pay the held work (True) or not (False).")
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "expert"], name="uniq_pay_decision")]

    def __str__(self) -> str:
        return f"pay {self.pay} for {self.expert_id} on {self.campaign_id}"


# The knowledge library's models live in annotation/knowledge/models.py; imported here so Django registers them.
from annotation.knowledge.models import (  # noqa: E402, F401
    Case,
    DatasetGuidelines,
    FaqEntry,
    FingerprintedResponse,
    LibraryOpen,
    ResponseFingerprint,
)
