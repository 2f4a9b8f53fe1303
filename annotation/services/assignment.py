"""Distributing campaign responses to experts: pull (`assign_next_response`) and bulk pre-assignment.

Invariants, held under concurrency on PostgreSQL:

- a response of a blind test (a hidden gold check too) is held by at most k = `campaign.overlap` *live*
  assignments (reserved and not expired, or submitted), plus the extra raters its split verdicts
  earned (`CampaignResponse.extra_raters`, `split_extension`): every assignment is created while the
  `CampaignResponse` row is locked (`select_for_update(skip_locked=True)`) and the live count is
  taken again under that lock;
- an expert never gets the same response twice: the `one_assignment_per_expert_response`
  constraint, whatever became of the first assignment;
- an expert never holds more open assignments than their capacity: their `ExpertProfile` row is
  locked for the whole decision, so two requests of one expert run one after the other.

Hidden gold checks (`is_gold`) are served exactly as ordinary work is: one ranking of every
response, up to k live assignments each, so a gold check comes with its item at positions
distributed like any other response's, and how often an expert meets an item says nothing (the
campaign puts gold checks in place of ordinary answers: `campaigns.create_campaign`). The share of
gold in each expert's work is the share of gold among the campaign's responses (`gold_rate`).
Calibration campaigns have no k: each attempt is a sitting drawn per expert and attempt. Nobody is
ever given work in a gold set: it is only the pool blind tests draw their gold checks from.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeAlias

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import (
    FILLED_BEYOND_EXTRA,
    Assignment,
    AssignmentQuerySet,
    CalibrationResult,
    Campaign,
    CampaignResponse,
    CampaignSettings,
    ExpertProfile,
    ExpertQuality,
    Qualification,
    ResponseTally,
)
from annotation.services.sampling import expert_order, keyed_seed
from heartbench_core.blindness import exposed_to
from heartbench_core.lib.taxonomy import ABILITIES, ABILITY_BY_LABEL, DIMENSIONS, abilities_of
from heartbench_core.models import Criterion, StaffExposure, User, new_public_id
from heartbench_core.roles import Role, has_role

# Rows locked per pull: the best few candidates, so a concurrent request skips them and takes the next.
CANDIDATE_BATCH = 5

# Per item: hard?, ability labels, dimensions, primary scene.
ItemInfo: TypeAlias = tuple[bool, set[str], set[str], str]


def campaign_settings(campaign: Campaign) -> CampaignSettings:
    """The campaign's settings; a campaign created without them needs no qualification."""
    try:
        return campaign.settings
    except CampaignSettings.DoesNotExist:
        return CampaignSettings(campaign=campaign, requires_qualification=False)


def covered_abilities(specialties: list[str]) -> tuple[set[str], set[str]]:
    """Ability labels and scene names an expert's specialties cover (a dimension covers its abilities)."""
    abilities: set[str] = set()
    scenes: set[str] = set()
    for s in specialties or []:
        if s in ABILITY_BY_LABEL:
            abilities.add(s)
        elif s in DIMENSIONS:
            abilities.update(abilities_of(s))
        else:
            english = {a.name: a.label for a in ABILITIES}
            if s in english:
                abilities.add(english[s])
            else:
                scenes.add(s)
    return abilities, scenes


@dataclass
class ExpertState:
    """What matching needs to know about one expert, read once."""

    user_id: int
    tier: int
    capacity: int
    open_count: int
    quality: float | None
    qualified_dims: set[str] | None  # None: qualified for everything the campaign asks
    abilities: set[str] = field(default_factory=set)
    scenes: set[str] = field(default_factory=set)


def _profile_for_update(expert: User) -> ExpertProfile:
    profile = ExpertProfile.objects.select_for_update().filter(user=expert).first()
    if profile is None:
        try:
            with transaction.atomic():
                ExpertProfile.objects.create(user=expert)
        except IntegrityError:
            pass
        profile = ExpertProfile.objects.select_for_update().get(user=expert)
    return profile


def _qualified_dimensions(expert_id: int, requires: bool) -> set[str] | None:
    """None when qualification is not required; else the set of qualified dimensions ("" = general)."""
    if not requires:
        return None
    return set(Qualification.objects.filter(expert_id=expert_id).values_list("dimension", flat=True))


def admits(qualified: set[str] | None, *, per_dimension: bool) -> bool:
    """Whether qualifications let an expert take any of a campaign's work: the general one, or (a per-dimension campaign) any dimension's."""
    return qualified is None or "" in qualified or (per_dimension and bool(qualified))


def _qualification_filter(qs: QuerySet[ResponseTally], qualified: set[str] | None, per_dimension: bool) -> QuerySet[ResponseTally]:
    """Restrict candidate responses to those the expert is qualified for (None → no filter)."""
    if qualified is None:
        return qs
    if not per_dimension:
        return qs if "" in qualified else qs.none()
    if "" in qualified:
        return qs
    unqualified_abilities = [a.label for a in ABILITIES if a.dimension not in qualified]
    if not unqualified_abilities:
        return qs
    return qs.exclude(campaign_response__item__criteria__ability__in=unqualified_abilities)


def assign_next_response(*, expert: User, campaign: Campaign) -> Assignment | None:
    """Reserve the best next response of the campaign for the expert, or return their open reservation there.

    None when nothing is eligible: campaign not active, expert not in it, paused or away, at
    capacity, not qualified, or no response left that they may take.
    """
    now = timezone.now()
    with transaction.atomic():
        profile = _profile_for_update(expert)
        _expire(now, campaign)
        existing = Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).open(now)
        if work_stopped(campaign=campaign, profile=profile):
            # Pre-assigned work waits while the campaign or the expert is paused; a reservation
            # already pulled (it expires on its own) may still be finished.
            existing = existing.exclude(expires_at__isnull=True)
        if (held := existing.order_by("reserved_at", "id").first()) is not None:
            return held
        if campaign.kind == Campaign.Kind.GOLD_SET:
            return None
        if campaign.status != Campaign.Status.ACTIVE or profile.availability != ExpertProfile.Availability.ACTIVE:
            return None
        if not has_role(expert, Role.EXPERT) or not Campaign.objects.filter(pk=campaign.pk).admitting(expert).exists():
            return None
        if Assignment.objects.filter(expert=expert).open(now).count() >= profile.capacity:
            return None
        if campaign.kind == Campaign.Kind.CALIBRATION:
            return _next_calibration(expert=expert, campaign=campaign, now=now)
        cfg = campaign_settings(campaign)
        qualified = _qualified_dimensions(expert.pk, cfg.requires_qualification)
        if not admits(qualified, per_dimension=cfg.qualification_per_dimension):
            return None
        # Hidden gold checks are ranked with the ordinary work, by the same key: a gold pull and an
        # ordinary pull are one code path (the same queries, in the same order), and a gold check
        # comes when an ordinary response in its place would have come.
        ranked = _ranked_ids(campaign, profile, cfg, qualified, now)
        # Lock the best few; rows other requests hold are skipped, and the live count is taken again
        # under the lock, so k can never be passed.
        for batch_start in range(0, min(len(ranked), 3 * CANDIDATE_BATCH), CANDIDATE_BATCH):
            batch = ranked[batch_start : batch_start + CANDIDATE_BATCH]
            locked = _lock_candidates(CampaignResponse.objects.filter(pk__in=batch), CANDIDATE_BATCH)
            locked.sort(key=lambda cr: batch.index(cr.pk))
            for cr in _recount_under_lock(locked, now, campaign.overlap):
                return _reserve(cr, expert, campaign, now)
        if not ranked:
            return None
        # Every candidate may be held by concurrent requests for a moment: wait for the best one
        # rather than answer "nothing left" while work remains.
        waited = list(CampaignResponse.objects.filter(pk=ranked[0]).select_for_update(no_key=True, of=("self",)))
        for cr in _recount_under_lock(waited, now, campaign.overlap):
            return _reserve(cr, expert, campaign, now)
        return None


def next_response_if_any(*, expert: User, campaign: Campaign) -> Assignment | None:
    """`assign_next_response` after a submission or a skip: None too where it refuses (the work just done stands)."""
    try:
        return assign_next_response(expert=expert, campaign=campaign)
    except (ValidationError, PermissionDenied):
        return None


def work_stopped(*, campaign: Campaign, profile: ExpertProfile | None) -> bool:
    """Whether the expert's pre-assigned work in the campaign is stopped: the campaign is not active, or the expert is paused or away.

    Stopped work is not served, and what is submitted meanwhile is marked `submitted_while_paused`
    and paid as the quality policy says (`annotation.services.payments`).
    """
    if campaign.status != Campaign.Status.ACTIVE:
        return True
    return profile is not None and profile.availability != ExpertProfile.Availability.ACTIVE


def hold_reason(*, campaign: Campaign, profile: ExpertProfile | None) -> str:
    """Why the expert's pre-assigned work in the campaign is on hold, in the reader's language ("" when it is not).

    Read by the expert's home and judging page and by the submit service, which keeps such work
    from being submitted (and so paid) until it resumes; the draft stays as it is.
    """
    if not work_stopped(campaign=campaign, profile=profile):
        return ""
    if campaign.status == Campaign.Status.CLOSED:
        why = _("The campaign is closed.")
        detail = campaign.status_reason
    elif campaign.status != Campaign.Status.ACTIVE:
        why = _("An admin paused the campaign.")
        detail = campaign.status_reason
    elif profile is not None and profile.availability == ExpertProfile.Availability.AWAY:
        why = _("You are marked away.")
        detail = profile.availability_reason
    else:
        why = _("An admin paused your work.")
        detail = profile.availability_reason if profile is not None else ""
    return f"{why} {detail}".strip()


def _eligible(campaign: Campaign, profile: ExpertProfile, cfg: CampaignSettings, qualified: set[str] | None) -> QuerySet[ResponseTally]:
    """The campaign's responses (their tallies) this expert may take blind: tier and qualification allow them, no staff view
    showed them, and the expert never had them.

    Before k. Each condition is checked on the row at hand (an index lookup), so a read that stops
    after a window of them reads that window only.
    """
    qs = ResponseTally.objects.filter(campaign=campaign).exclude(exposed_to(profile.user_id, OuterRef("campaign_response__response_id")))
    qs = qs.exclude(Exists(Assignment.objects.filter(expert_id=profile.user_id, campaign_response_id=OuterRef("campaign_response_id"))))
    if profile.effective_tier < campaign.min_tier_for_hard:
        qs = qs.exclude(campaign_response__item__difficulty="hard")
    return _qualification_filter(qs, qualified, cfg.qualification_per_dimension)


# Open responses the pull ranks: the window of those nearest completion in the campaign's random order.
RANKING_WINDOW = 1000
# The expert's latest assignments (in every campaign) whose items count as had.
RECENT_WORK = 500


def _ranked_ids(campaign: Campaign, profile: ExpertProfile, cfg: CampaignSettings, qualified: set[str] | None, now: datetime) -> list[int]:
    """Open responses for this expert, hidden gold checks among them, best first: nearer completion, items not yet had,
    specialty coverage, the expert's own keyed order.

    Nearer completion is exact: the open responses are read from the tallies' index by fewest open
    slots first (`annotation_rtally_pull`), then in the campaign's random order (`order_key`, which
    follows no model), and the first `RANKING_WINDOW` the expert may take are ranked here, whole
    tiers first. Within a tier larger than the window, the other preferences choose among its
    first `RANKING_WINDOW` responses: a pull reads a bounded number of rows whatever the size of
    the campaign. Every expert ranks the same window by their own keyed order, so two experts pulling
    at once mostly want different responses.

    Items not yet had are those the expert has not had in the campaign among their latest
    `RECENT_WORK` assignments: what a long history holds further back no longer counts, and the
    pull does not read it.

    Open slots are counted from the tallies (reserved or submitted); `assign_next_response` expired
    the campaign's overdue reservations first and counts again under the lock.
    """
    k = campaign.overlap
    rows = list(
        _eligible(campaign, profile, cfg, qualified)
        .annotate(filled=FILLED_BEYOND_EXTRA)
        .filter(filled__lt=k)
        .order_by(FILLED_BEYOND_EXTRA.desc(), "order_key")
        .values_list("campaign_response_id", "campaign_response__item_id", "filled", "campaign_response__item__primary_scene")[
            :RANKING_WINDOW
        ]
    )
    items = {r[1] for r in rows}
    # Items the expert had in the campaign among their latest work (any status), read newest first from their index.
    latest = Assignment.objects.filter(expert_id=profile.user_id).order_by("-reserved_at")[:RECENT_WORK]
    had_item = Counter(
        item for campaign_id, item in latest.values_list("campaign_id", "campaign_response__item_id") if campaign_id == campaign.pk
    )
    abilities, scenes = covered_abilities(profile.specialties)
    coverage: dict[int, int] = {}
    if abilities and rows:
        coverage = dict(
            Criterion.objects.filter(item_id__in=items, ability__in=abilities)
            .order_by()
            .values("item_id")
            .annotate(n=Count("pk"))
            .values_list("item_id", "n")
        )
    # A response's target is k plus its extra raters (`split_extension`); nearer completion means
    # fewer open slots, so a response extended to k + 2 ranks as one with two slots left, like any.
    seed, expert_id = campaign.seed, profile.user_id
    rows.sort(key=lambda r: (-r[2], had_item.get(r[1], 0), -(r[3] in scenes), -coverage.get(r[1], 0), expert_order(seed, expert_id, r[0])))
    return [r[0] for r in rows]


@functools.lru_cache(maxsize=4)
def _draw_key(secret: str) -> bytes:
    """The 32-byte BLAKE2 key derived from the installation's secret (derived once per secret, not per draw)."""
    return hashlib.blake2b(secret.encode(), digest_size=32).digest()


def keyed_uniform(*parts: object) -> float:
    """A uniform in [0, 1) from a BLAKE2 hash of the parts, keyed with the installation's secret.

    Keyed, so an expert who knows the code and their own id still cannot work out when a quality
    decision falls due or which responses a calibration sitting draws.
    """
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), key=_draw_key(settings.SECRET_KEY), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def _lock_candidates(qs: QuerySet[CampaignResponse], limit: int) -> list[CampaignResponse]:
    return list(qs.select_for_update(skip_locked=True, no_key=True, of=("self",))[:limit])


def _recount_under_lock(locked: list[CampaignResponse], now: datetime, k: int) -> list[CampaignResponse]:
    """Keep the locked candidates whose live count is still below their target, k plus any extra raters (counted again, under the lock)."""
    if not locked:
        return []
    live = dict(
        Assignment.objects.filter(campaign_response__in=locked)
        .live(now)
        .order_by()
        .values("campaign_response")
        .annotate(n=Count("pk"))
        .values_list("campaign_response", "n")
    )
    return [cr for cr in locked if live.get(cr.pk, 0) < k + cr.extra_raters]


def _reserve(cr: CampaignResponse, expert: User, campaign: Campaign, now: datetime) -> Assignment:
    return Assignment.objects.create(campaign_response=cr, campaign=campaign, expert=expert, expires_at=now + campaign.reservation_timeout)


@dataclass(frozen=True)
class CalibrationState:
    """Where an expert stands in a calibration: attempts made, whether one is under way, and the next chance."""

    attempts: int  # finished (scored) attempts
    max_attempts: int
    passed: bool
    in_progress: bool
    retake_at: datetime | None  # when a retake may start; None when none is left or none is needed

    @property
    def attempts_left(self) -> int:
        return 0 if self.passed else max(0, self.max_attempts - self.attempts)


def calibration_state(*, expert: User, campaign: Campaign) -> CalibrationState:
    """The expert's attempts at a calibration; `retake_at` is None once passed or after the last allowed attempt."""
    cfg = campaign_settings(campaign)
    results = list(
        CalibrationResult.objects.filter(campaign=campaign, expert=expert).order_by("attempt").values("attempt", "passed", "completed_at")
    )
    latest = results[-1] if results else None
    reserved = list(Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).values_list("reserved_at", flat=True))
    # A retake removes the finished attempt's assignments, so work reserved after the latest result is a new attempt.
    in_progress = bool(reserved) and (latest is None or max(reserved) > latest["completed_at"])
    passed = any(r["passed"] for r in results)
    retake_at = None
    if latest is not None and not passed and not in_progress and len(results) < cfg.max_attempts:
        retake_at = latest["completed_at"] + cfg.retake_cooldown
    return CalibrationState(len(results), cfg.max_attempts, passed, in_progress, retake_at)


def calibration_sitting(*, expert: User, campaign: Campaign, attempt: int) -> list[int]:
    """Campaign-response ids of one attempt: `sitting_size` of them, those not seen in earlier attempts first, seeded per expert and attempt."""
    cfg = campaign_settings(campaign)
    ids = list(CampaignResponse.objects.filter(campaign=campaign).values_list("pk", flat=True))
    seen: set[int] = set()
    for drawn in CalibrationResult.objects.filter(campaign=campaign, expert=expert, attempt__lt=attempt).values_list(
        "campaign_responses", flat=True
    ):
        seen.update(drawn or [])
    ids.sort(key=lambda pk: (pk in seen, keyed_uniform("sitting", campaign.pk, expert.pk, attempt, pk)))
    size = cfg.sitting_size or len(ids)
    return ids[:size]


def _next_calibration(*, expert: User, campaign: Campaign, now: datetime) -> Assignment | None:
    """Calibration: the next response of the current sitting; a failed attempt may be retaken after the cooldown, up to max_attempts."""
    state = calibration_state(expert=expert, campaign=campaign)
    if not state.in_progress:
        if state.attempts and (state.retake_at is None or now < state.retake_at):
            return None
        # A retake starts afresh; the finished attempt lives on in its CalibrationResult (score, every comparison).
        Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).delete()
    sitting = calibration_sitting(expert=expert, campaign=campaign, attempt=state.attempts + 1)
    had = {
        cr: (pk, status)
        for cr, pk, status in Assignment.objects.filter(expert=expert, campaign_response__campaign=campaign).values_list(
            "campaign_response_id", "pk", "status"
        )
    }
    for cr in sitting:
        if cr not in had:
            return _reserve(CampaignResponse.objects.get(pk=cr), expert, campaign, now)
        pk, status = had[cr]
        if status in (Assignment.Status.EXPIRED, Assignment.Status.RELEASED):
            # The sitting is fixed, so work that lapsed is given back (with its draft) rather than left unfinishable.
            Assignment.objects.filter(pk=pk).update(status=Assignment.Status.RESERVED, expires_at=now + campaign.reservation_timeout)
            return Assignment.objects.get(pk=pk)
    return None


def expire_reservations(*, now: datetime | None = None, campaign: Campaign | None = None) -> int:
    """Mark reservations past their expiry as expired, so their responses go back to the pool."""
    with transaction.atomic():
        return _expire(now or timezone.now(), campaign)


def _expire(now: datetime, campaign: Campaign | None) -> int:
    qs = Assignment.objects.overdue(now)
    if campaign is not None:
        qs = qs.filter(campaign_response__campaign=campaign)
    # Rows another transaction holds (e.g. being submitted right now) are left for the next round.
    ids = list(qs.select_for_update(skip_locked=True, of=("self",)).values_list("pk", flat=True))
    if not ids:
        return 0
    return Assignment.objects.filter(pk__in=ids, status=Assignment.Status.RESERVED).update(status=Assignment.Status.EXPIRED)


def release_assignment(*, assignment: Assignment, by: User) -> Assignment:
    """Give an open assignment back to the pool (its expert or an admin); submitted work cannot be released."""
    if not (has_role(by, Role.ADMIN) or by.pk == assignment.expert_id):
        raise PermissionDenied(_("Only an admin or the assignment's expert can release it."))
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != Assignment.Status.RESERVED:
            raise ValidationError(
                {
                    "assignment": _("only open work can be released; this assignment is %(status)s")
                    % {"status": locked.get_status_display().lower()}
                }
            )
        locked.status = Assignment.Status.RELEASED
        locked.save(update_fields=["status"])
    assignment.status = locked.status
    return locked


# --- bulk pre-assignment ------------------------------------------------------------------------


@dataclass(frozen=True)
class UnfilledSlot:
    """Open slots of one response that no eligible expert can take, and why (shown to admins only)."""

    campaign_response_id: int
    question_id: str
    need: int
    reason: str  # one of UNFILLED_REASONS
    detail: str  # the reason in words, naming the tier or the dimensions


UNFILLED_REASONS = ("already_has_it", "staff_view", "tier", "qualification", "capacity")
# Each reason as it follows a number of slots ("20 with every eligible expert at capacity").
UNFILLED_REASON_TEXT = {
    "capacity": gettext_lazy("with every eligible expert at capacity"),
    "qualification": gettext_lazy("with no eligible expert for the ability (qualification)"),
    "tier": gettext_lazy("of hard items with no expert of the tier needed"),
    "already_has_it": gettext_lazy("where every eligible expert already has the response"),
    "staff_view": gettext_lazy("where the other eligible experts saw the response in a staff view"),
}


@dataclass(frozen=True)
class BulkAssignment:
    """What one bulk pre-assignment made, and the open slots it could not fill."""

    made: int
    unfilled: list[UnfilledSlot]
    open_slots: int = 0  # open slots before the pass (hidden gold checks' among them: they are filled alike)

    @property
    def unfilled_slots(self) -> int:
        """How many open slots stay open (a response may leave several)."""
        return sum(slot.need for slot in self.unfilled)

    def by_reason(self) -> dict[str, int]:
        """Open slots left per reason."""
        counts: dict[str, int] = defaultdict(int)
        for slot in self.unfilled:
            counts[slot.reason] += slot.need
        return dict(counts)

    def summary(self) -> str:
        """How many open slots stayed empty and why, per reason, largest first; "" when every one was filled."""
        if not self.unfilled:
            return ""
        parts = [
            _("%(n)d %(why)s") % {"n": n, "why": UNFILLED_REASON_TEXT[reason]}
            for reason, n in sorted(self.by_reason().items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        return _("%(empty)d of %(open)d open slots were left empty: %(reasons)s.") % {
            "empty": self.unfilled_slots,
            "open": max(self.open_slots, self.unfilled_slots),
            "reasons": ", ".join(parts),
        }


def bulk_assign(*, campaign: Campaign, experts: list[User] | None = None) -> BulkAssignment:
    """Pre-assign every open slot of the campaign (up to k per response) that an eligible expert can take, in one pass.

    Pre-assigned work never expires. Matching: qualification, tier for hard items and capacity
    are hard limits; the least-loaded experts (within a slack of two responses) come first,
    preferring those who have not had the item, whose specialties cover its abilities and whose
    measured quality is higher (ties broken by a generator seeded, with the server's key, from the
    campaign's seed); when they are too few, any other eligible expert under capacity takes the
    slot, least loaded first. Responses nearer completion are filled first, hard items first among
    them (fewer experts may take them). Hidden gold checks are filled exactly like the rest: the
    same rule as serving, one mechanism. The open slots nobody can take are returned with their reason.
    """
    _refuse_bulk(campaign)
    now = timezone.now()
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        _expire(now, campaign)
        states = _expert_states(campaign, experts, now)
        _refuse_unknown_specialties(campaign, [s.user_id for s in states])
        if not states:
            raise ValidationError({"experts": _("no eligible expert: none is active, in the campaign, qualified and under capacity")})
        cfg = campaign_settings(campaign)
        responses = list(
            CampaignResponse.objects.filter(campaign=campaign)
            .select_for_update(of=("self",))
            .order_by("order_key", "id")
            .values_list("pk", "item_id", "order_key", "extra_raters")
        )
        board = _Board.of(campaign, responses, states, now)
        item_info = _item_info({item for _, item, _o, _e in responses})
        open_slots = sum(max(0, board.need(pk)) for pk, _item, _o, _e in responses)
        rng = random.Random(keyed_seed(campaign.seed, "bulk"))
        tiebreak = {s.user_id: rng.random() for s in states}
        new: list[tuple[int, int]] = []
        short: list[tuple[int, int, int]] = []  # (response, item, slots left open)
        responses.sort(key=lambda r: (board.need(r[0]), not item_info[r[1]][0], r[2], r[0]))
        for cr_id, item_id, _order, _extra in responses:
            need = board.need(cr_id)
            if need <= 0:
                continue
            pool = [s for s in states if _may_take(s, board.taken[cr_id], item_info[item_id], campaign, cfg)]
            if len(pool) < need:
                short.append((cr_id, item_id, need - len(pool)))
            for s in _ranked(pool, board, item_id, item_info[item_id], tiebreak)[:need]:
                new.append((cr_id, s.user_id))
                board.give(cr_id, item_id, s)
        # An expert works through pre-assigned work in insertion order: shuffle it per expert, so
        # neither the sampling order (models) nor the filling order (nearer completion, hard items) shows through.
        new.sort(key=lambda pair: expert_order(campaign.seed, pair[1], pair[0]))
        _insert_preassigned(campaign.pk, new, now)
    unfilled = _unfilled_slots(campaign, states, short, board.taken, board.exposed, item_info, cfg)
    return BulkAssignment(made=len(new), unfilled=unfilled, open_slots=open_slots)


def _refuse_bulk(campaign: Campaign) -> None:
    """Only an active campaign of ordinary work is pre-assigned."""
    if campaign.kind == Campaign.Kind.CALIBRATION:
        raise ValidationError({"campaign": _("calibrations are taken by each expert in turn; they are not pre-assigned")})
    if campaign.kind == Campaign.Kind.GOLD_SET:
        raise ValidationError(
            {"campaign": _("a gold set is only a pool of hidden gold checks for blind tests; nobody is assigned work in it")}
        )
    if campaign.status != Campaign.Status.ACTIVE:
        raise ValidationError({"campaign": _("the campaign is %(status)s, not active") % {"status": campaign.get_status_display().lower()}})


@dataclass
class _Board:
    """Who holds what of a campaign while a bulk pass fills it."""

    target: dict[int, int]  # each response's k plus the extra raters its split verdicts earned (`split_extension`)
    taken: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))  # response → who may not take it
    exposed: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))  # response → who a staff view showed it
    live_n: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))  # response → live assignments
    per_item: defaultdict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))  # (expert, item) → assignments
    load: defaultdict[int, int] = field(default_factory=lambda: defaultdict(int))  # expert → assignments

    @classmethod
    def of(cls, campaign: Campaign, responses: list[tuple[int, int, int, int]], states: list[ExpertState], now: datetime) -> _Board:
        board = cls(target={pk: campaign.overlap + extra for pk, _i, _o, extra in responses})
        item_of = {pk: item for pk, item, _o, _e in responses}
        for cr_id, expert_id, is_live in (
            Assignment.objects.filter(campaign_response__campaign=campaign)
            .annotate(is_live=ExpressionWrapper(AssignmentQuerySet.live_q(now), output_field=BooleanField()))
            .values_list("campaign_response_id", "expert_id", "is_live")
        ):
            board.taken[cr_id].add(expert_id)
            board.per_item[(expert_id, item_of[cr_id])] += 1
            board.load[expert_id] += 1
            if is_live:
                board.live_n[cr_id] += 1
        # A response a staff view showed an expert is never theirs to judge blind.
        for cr_id, user_id in StaffExposure.objects.filter(
            user_id__in=[s.user_id for s in states], response__campaign_entries__campaign=campaign
        ).values_list("response__campaign_entries", "user_id"):
            board.taken[cr_id].add(user_id)
            board.exposed[cr_id].add(user_id)
        return board

    def need(self, cr_id: int) -> int:
        """The response's slots still open."""
        return self.target[cr_id] - self.live_n[cr_id]

    def give(self, cr_id: int, item_id: int, s: ExpertState) -> None:
        self.taken[cr_id].add(s.user_id)
        self.per_item[(s.user_id, item_id)] += 1
        self.load[s.user_id] += 1
        s.open_count += 1


def _may_take(s: ExpertState, taken: set[int], info: ItemInfo, campaign: Campaign, cfg: CampaignSettings) -> bool:
    """The hard limits: capacity, not had (nor shown) the response, the tier for a hard item, the qualification."""
    hard, _abilities, dims, _scene = info
    return (
        s.open_count < s.capacity
        and s.user_id not in taken
        and (not hard or s.tier >= campaign.min_tier_for_hard)
        and _qualified_for(s.qualified_dims, dims, cfg.qualification_per_dimension)
    )


def _ranked(pool: list[ExpertState], board: _Board, item_id: int, info: ItemInfo, tiebreak: dict[int, float]) -> list[ExpertState]:
    """The pool in the order it fills a response: the least loaded (within a slack of two) by preference, then the rest by load."""
    if not pool:
        return []
    _hard, abilities, _dims, scene = info
    load = board.load
    # Each expert's rank for this response, read before this response's picks change their load.
    preference = {
        s.user_id: (
            board.per_item[(s.user_id, item_id)],
            -(len(abilities & s.abilities) + (scene in s.scenes)),
            -(s.quality if s.quality is not None else 0.0),
            load[s.user_id],
            tiebreak[s.user_id],
        )
        for s in pool
    }
    floor = min(load[s.user_id] for s in pool)
    near = sorted((s for s in pool if load[s.user_id] <= floor + 2), key=lambda s: preference[s.user_id])
    # Too few within the slack: the rest of the pool, least loaded first, fills what is left.
    return near + sorted((s for s in pool if load[s.user_id] > floor + 2), key=lambda s: (load[s.user_id], *preference[s.user_id]))


def unknown_specialties(specialties: list[str], scenes: set[str]) -> list[str]:
    """The specialties that are no ability (label or English name), no dimension and none of the given scenes."""
    known = set(ABILITY_BY_LABEL) | {a.name.lower() for a in ABILITIES} | {d.lower() for d in DIMENSIONS} | scenes
    return [s for s in specialties or [] if s not in known and s.lower() not in known]


def version_scenes(campaign: Campaign) -> set[str]:
    """Primary and secondary scenes of the campaign's dataset version."""
    from heartbench_core.models import Item

    rows = Item.objects.filter(version_id=campaign.version_id).values_list("primary_scene", "secondary_scene").distinct()
    return {scene for pair in rows for scene in pair if scene}


def _refuse_unknown_specialties(campaign: Campaign, user_ids: list[int]) -> None:
    """Matching reads specialties as abilities or scenes: one that is neither would be silently ignored, so refuse it by name."""
    rows = list(ExpertProfile.objects.filter(user_id__in=user_ids).exclude(specialties=[]).values_list("user__username", "specialties"))
    if not rows:
        return
    scenes = version_scenes(campaign)
    bad = {name: unknown for name, specialties in rows if (unknown := unknown_specialties(specialties, scenes))}
    if bad:
        raise ValidationError(
            {
                "specialties": _(
                    "unknown specialties (neither an ability, a dimension nor a scene of version %(version)s): %(list)s. "
                    "Correct them on the experts' profiles, then assign again."
                )
                % {
                    "version": campaign.version.label,
                    "list": "; ".join(f"{name}: {', '.join(values)}" for name, values in sorted(bad.items())),
                }
            }
        )


def _unfilled_slots(
    campaign: Campaign,
    states: list[ExpertState],
    short: list[tuple[int, int, int]],
    taken: dict[int, set[int]],
    exposed: dict[int, set[int]],
    item_info: dict[int, ItemInfo],
    cfg: CampaignSettings,
) -> list[UnfilledSlot]:
    """Why each response left short has no expert for its open slots, read from the state after the pass."""
    if not short:
        return []
    from heartbench_core.models import Item

    question_ids = dict(Item.objects.filter(pk__in={item for _, item, _ in short}).values_list("pk", "question_id"))
    tier = campaign.min_tier_for_hard
    out = []
    for cr_id, item_id, left in short:
        hard, _abilities, dims, _scene = item_info[item_id]
        qualified = [s for s in states if _qualified_for(s.qualified_dims, dims, cfg.qualification_per_dimension)]
        tiered = [s for s in qualified if not hard or s.tier >= tier]
        free = [s for s in tiered if s.user_id not in taken[cr_id]]
        if not qualified:
            held: set[str] = set().union(*(s.qualified_dims or set() for s in states))
            if missing := dims - held:
                detail = _("no expert qualified for %(dimensions)s") % {"dimensions": ", ".join(sorted(missing))}
            else:
                detail = _("no single expert qualified for all of %(dimensions)s") % {"dimensions": ", ".join(sorted(dims))}
            reason = "qualification"
        elif not tiered:
            reason, detail = "tier", _("hard item: no qualified expert of tier %(tier)s or above") % {"tier": tier}
        elif not free and any(s.user_id in exposed[cr_id] for s in tiered):
            reason, detail = "staff_view", _("every other eligible expert already has it; the rest saw it in a staff view")
        elif not free:
            reason, detail = "already_has_it", _("every eligible expert already has it")
        elif hard and any(s.open_count < s.capacity and s.user_id not in taken[cr_id] for s in qualified if s.tier < tier):
            # Someone below the tier has room: it is the tier, not capacity, that leaves it open.
            reason, detail = "tier", _("hard item: no expert of tier %(tier)s or above under capacity") % {"tier": tier}
        else:
            reason, detail = "capacity", _("every eligible expert who has not had it is at capacity")
        out.append(
            UnfilledSlot(campaign_response_id=cr_id, question_id=question_ids.get(item_id, ""), need=left, reason=reason, detail=detail)
        )
    return out


@dataclass(frozen=True)
class StuckResponse:
    """A response that cannot reach k: fewer eligible experts who have not had it than the slots it still needs (admins only)."""

    campaign_response_id: int
    question_id: str
    need: int  # slots still open: k minus its live assignments
    left: int  # eligible experts (active, listed, qualified, of the tier) who never had it


def stuck_responses(*, campaign: Campaign, campaign_response_ids: list[int]) -> list[StuckResponse]:
    """Which of the given responses no longer have enough eligible experts to reach k, by the rules serving follows.

    An expert who ever had a response (submitted it, let it lapse, released or skipped it) is
    never served it again, so every skip takes one expert from its pool. Capacity is left out:
    a full queue empties, a pool does not grow back. Reads only; a fixed number of queries.
    """
    if not campaign_response_ids or campaign.kind != Campaign.Kind.BLIND_TEST:
        return []
    from heartbench_core.models import Item

    now = timezone.now()
    rows = list(
        CampaignResponse.objects.filter(campaign=campaign, pk__in=campaign_response_ids).values_list("pk", "item_id", "extra_raters")
    )
    response_ids = [pk for pk, _item, _extra in rows]
    items = {item for _pk, item, _extra in rows}
    live_n = dict(
        Assignment.objects.filter(campaign_response_id__in=response_ids)
        .live(now)
        .order_by()
        .values("campaign_response_id")
        .annotate(n=Count("pk"))
        .values_list("campaign_response_id", "n")
    )
    had: dict[int, set[int]] = defaultdict(set)
    for cr_id, expert_id in Assignment.objects.filter(campaign_response_id__in=response_ids).values_list(
        "campaign_response_id", "expert_id"
    ):
        had[cr_id].add(expert_id)
    states = _expert_states(campaign, None, now, lock=False)
    info = _item_info(items)
    cfg = campaign_settings(campaign)
    question_ids = dict(Item.objects.filter(pk__in=items).values_list("pk", "question_id"))
    out = []
    for cr_id, item_id, extra in sorted(rows):
        need = campaign.overlap + extra - live_n.get(cr_id, 0)
        if need <= 0:
            continue
        hard, _abilities, dims, _scene = info[item_id]
        left = sum(
            1
            for s in states
            if s.user_id not in had[cr_id]
            and (not hard or s.tier >= campaign.min_tier_for_hard)
            and _qualified_for(s.qualified_dims, dims, cfg.qualification_per_dimension)
        )
        if left < need:
            out.append(StuckResponse(campaign_response_id=cr_id, question_id=question_ids.get(item_id, ""), need=need, left=left))
    return out


def _insert_preassigned(campaign_id: int, pairs: list[tuple[int, int]], now: datetime) -> None:
    """Insert pre-assigned (never expiring) assignments; on PostgreSQL with COPY, thousands in a few milliseconds."""
    if connection.vendor != "postgresql":
        Assignment.objects.bulk_create(
            [
                Assignment(campaign_response_id=cr, campaign_id=campaign_id, expert_id=user, expires_at=None, reserved_at=now)
                for cr, user in pairs
            ],
            batch_size=1000,
        )
        return
    # Building thousands of model instances costs more than the insert itself; COPY writes the same
    # columns bulk_create would, and the unique constraint still guards (response, expert).
    table = Assignment._meta.db_table
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(
            # Every NOT NULL column without a database default is written: Django keeps field defaults in Python.
            f"COPY {table} (public_id, campaign_response_id, campaign_id, expert_id, status, reserved_at, active_seconds,"
            " submitted_while_paused) FROM STDIN"
        ) as copy,
    ):
        for cr, user in pairs:
            copy.write_row((new_public_id(), cr, campaign_id, user, Assignment.Status.RESERVED, now, 0, False))


def _qualified_for(qualified: set[str] | None, dims: set[str], per_dimension: bool) -> bool:
    if qualified is None or "" in qualified:
        return True
    return per_dimension and dims <= qualified


def _item_info(item_ids: set[int]) -> dict[int, ItemInfo]:
    """Per item: hard?, ability labels, dimensions, primary scene."""
    from heartbench_core.lib.taxonomy import dimension_of
    from heartbench_core.models import Item

    info: dict[int, ItemInfo] = {
        pk: (diff == "hard", set(), set(), scene)
        for pk, diff, scene in Item.objects.filter(pk__in=item_ids).values_list("pk", "difficulty", "primary_scene")
    }
    for item_id, ability in Criterion.objects.filter(item_id__in=item_ids).order_by().values_list("item_id", "ability"):
        info[item_id][1].add(ability)
        if (dim := dimension_of(ability)) is not None:
            info[item_id][2].add(dim)
    return info


def _expert_states(campaign: Campaign, experts: list[User] | None, now: datetime, *, lock: bool = True) -> list[ExpertState]:
    """Eligible experts of the campaign (active, expert role, in the campaign, qualified if required).

    With `lock` (assigning), each is given a profile if they have none and their profile is locked;
    without (a page that only reads), nothing is locked or written, and an expert without a profile
    yet counts with the default one.
    """
    cfg = campaign_settings(campaign)
    users = User.objects.filter(is_active=True).filter(Q(groups__name=Role.EXPERT.value) | Q(is_superuser=True)).distinct()
    members = list(campaign.experts.values_list("pk", flat=True))
    if members:
        users = users.filter(pk__in=members)
    if experts is not None:
        users = users.filter(pk__in=[u.pk for u in experts])
    user_ids = list(users.values_list("pk", flat=True))
    if lock:
        ExpertProfile.objects.bulk_create([ExpertProfile(user_id=uid) for uid in user_ids], ignore_conflicts=True)
        profiles = list(
            ExpertProfile.objects.select_for_update(of=("self",))
            .filter(user_id__in=user_ids, availability=ExpertProfile.Availability.ACTIVE)
            .order_by("user_id")
        )
    else:
        found = {p.user_id: p for p in ExpertProfile.objects.filter(user_id__in=user_ids)}
        profiles = [
            p
            for p in (found.get(uid) or ExpertProfile(user_id=uid) for uid in sorted(user_ids))
            if p.availability == ExpertProfile.Availability.ACTIVE
        ]
    open_counts = dict(
        Assignment.objects.filter(expert_id__in=user_ids)
        .open(now)
        .order_by()
        .values("expert_id")
        .annotate(n=Count("pk"))
        .values_list("expert_id", "n")
    )
    quality = {q.profile_id: q.measured for q in ExpertQuality.objects.filter(profile__in=[p.pk for p in profiles if p.pk])}
    dims: dict[int, set[str]] = defaultdict(set)
    if cfg.requires_qualification:
        for uid, dim in Qualification.objects.filter(expert_id__in=user_ids).values_list("expert_id", "dimension"):
            dims[uid].add(dim)
    states = []
    for p in profiles:
        qualified = dims.get(p.user_id, set()) if cfg.requires_qualification else None
        if not admits(qualified, per_dimension=cfg.qualification_per_dimension):
            continue
        abilities, scenes = covered_abilities(p.specialties)
        states.append(
            ExpertState(
                user_id=p.user_id,
                tier=p.effective_tier,
                capacity=p.capacity,
                open_count=open_counts.get(p.user_id, 0),
                quality=quality.get(p.pk),
                qualified_dims=qualified,
                abilities=abilities,
                scenes=scenes,
            )
        )
    return states
