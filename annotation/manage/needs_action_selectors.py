"""Reads of the admins' "needs action" home: what waits for a decision, what is at risk, with a count for each.

Blindness: an admin who is also an expert of an open campaign sees nothing here that a staff view
of that campaign would close to them. Corrections and reports on its responses are left out,
its progress (unfillable slots, schedule) is withheld as on the campaign page, and its alerts
(gold accuracy, agreement, judge) are left out, as are alerts about the admin's own quality.

Sections that belong to apps above this one (the release gate of each dataset version) are
registered by those apps (`register_needs_action_section`), so no import points upward.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from django.db.models import F, Func, IntegerField, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.blindness import PROGRESS_WITHHELD
from annotation.manage.alert_texts import alert_text
from annotation.manage.selectors import CampaignProgress, campaigns_progress
from annotation.models import (
    AdminAlert,
    Assignment,
    Campaign,
    CorrectionRequest,
    ExpertProfile,
    ItemProblemReport,
    ResponseTally,
    UnclearCriterionReport,
)
from annotation.services.assignment import (
    UnfilledSlot,
    _expert_states,
    _item_info,
    _qualified_for,
    _unfilled_slots,
    campaign_settings,
)
from heartbench_core.blindness import BlindScope, blind_scope
from heartbench_core.models import StaffExposure, User

# --- alerts ---------------------------------------------------------------------------------------


def visible_alerts(user: User, alerts: QuerySet[AdminAlert] | None = None) -> QuerySet[AdminAlert]:
    """Alerts the admin may read: none about a campaign on the dataset of an open campaign they are an expert of, or their own quality."""
    qs = AdminAlert.objects.all() if alerts is None else alerts
    scope = blind_scope(user)
    if not scope:
        return qs
    return scope.visible_on_datasets(
        qs.exclude(campaign_id__in=scope.campaign_ids).exclude(expert_id=user.pk), "campaign__version__dataset_id"
    )


KIND_LABELS: dict[str, str] = {
    AdminAlert.Kind.GOLD_ACCURACY: _("Low gold accuracy"),
    AdminAlert.Kind.CALIBRATION_FAILED: _("Calibration failed"),
    AdminAlert.Kind.EXPERT_DRIFT: _("Expert drifting from gold"),
    AdminAlert.Kind.CRITERION_LOW_ALPHA: _("Criterion with low agreement"),
    AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL: _("Judge disagrees with the experts on a model"),
}


@dataclass(frozen=True)
class AlertRow:
    alert: AdminAlert
    text: str
    kind_label: str


def alert_rows(alerts: QuerySet[AdminAlert]) -> list[AlertRow]:
    """Alerts with their text and kind in the reader's language."""
    rows = alerts.select_related("expert", "campaign", "resolved_by")
    return [AlertRow(a, alert_text(a), str(KIND_LABELS.get(str(a.kind), a.kind))) for a in rows]


# --- the count in the navigation ---------------------------------------------------------------------


def _visible_reports(scope: BlindScope, qs: QuerySet) -> QuerySet:
    return scope.visible_responses(qs, "assignment__campaign_response__response_id")


def pending_corrections_of(user: User) -> QuerySet[CorrectionRequest]:
    return _visible_reports(blind_scope(user), CorrectionRequest.objects.filter(status=CorrectionRequest.Status.PENDING))


def open_problem_reports(user: User) -> QuerySet[ItemProblemReport]:
    return _visible_reports(blind_scope(user), ItemProblemReport.objects.filter(resolved_at__isnull=True))


def open_unclear_reports(user: User) -> QuerySet[UnclearCriterionReport]:
    return _visible_reports(blind_scope(user), UnclearCriterionReport.objects.filter(resolved_at__isnull=True))


def unavailable_experts() -> QuerySet[ExpertProfile]:
    """Experts paused (by an admin or by gold accuracy) or away, with their reason."""
    return ExpertProfile.objects.exclude(availability=ExpertProfile.Availability.ACTIVE).select_related("user").order_by("user__username")


@dataclass(frozen=True)
class QueueCounts:
    """What waits for an admin's decision; the navigation shows the total."""

    corrections: int
    problem_reports: int
    unclear_reports: int
    alerts: int
    unavailable_experts: int

    @property
    def total(self) -> int:
        return self.corrections + self.problem_reports + self.unclear_reports + self.alerts + self.unavailable_experts


def _count_of(rows: QuerySet[Any]) -> Coalesce:
    """COUNT of a queryset as a scalar subquery (an aggregate Func, so Django adds no GROUP BY)."""
    counted = rows.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def queue_counts(user: User) -> QueueCounts:
    """The counts of the navigation badge: the viewer's blind scope (none to two queries), then the five counts in one."""
    counts = (
        User.objects.filter(pk=user.pk)
        .values(
            corrections=_count_of(pending_corrections_of(user)),
            problem_reports=_count_of(open_problem_reports(user)),
            unclear_reports=_count_of(open_unclear_reports(user)),
            alerts=_count_of(visible_alerts(user, AdminAlert.objects.filter(resolved_at__isnull=True))),
            unavailable_experts=_count_of(unavailable_experts()),
        )
        .get()
    )
    return QueueCounts(**counts)


# --- unfillable slots -----------------------------------------------------------------------------------


def short_responses(campaigns: Sequence[Campaign], now: datetime) -> dict[int, dict[int, int]]:
    """Per campaign, its real responses with fewer live assignments (submitted or open) than k, and the item of each.

    From the response tallies of all the campaigns in one query, and the few reservations past
    their expiry that the sweep has not marked yet (they hold no slot any more).
    """
    ids = [c.pk for c in campaigns]
    if not ids:
        return {}
    overdue = Counter(
        Assignment.objects.overdue(now).filter(campaign_response__campaign_id__in=ids).values_list("campaign_response_id", flat=True)
    )
    k = {c.pk: c.overlap for c in campaigns}
    live = F("submitted") + F("reserved")
    rows = (
        ResponseTally.objects.filter(campaign_id__in=ids, is_gold=False)
        .annotate(live=live)
        # submitted < k as well: implied, but it narrows the scan of the tallies' index to the unfinished responses.
        .filter(
            Q(*(Q(campaign_id=pk, submitted__lt=n, live__lt=n) for pk, n in k.items()), _connector=Q.OR)
            | Q(campaign_response_id__in=list(overdue))
        )
        .values_list("campaign_id", "campaign_response_id", "live", "campaign_response__item_id")
    )
    out: dict[int, dict[int, int]] = {}
    for campaign_id, cr_id, n_live, item_id in rows:
        if n_live - overdue.get(cr_id, 0) < k[campaign_id]:
            out.setdefault(campaign_id, {})[cr_id] = item_id
    return out


def unfillable_slots(campaign: Campaign, short: dict[int, int] | None = None) -> list[UnfilledSlot]:
    """Open slots of the campaign's responses that no eligible expert could take even with room to spare, and why.

    The bulk pre-assignment's own reasoning (`annotation.services.assignment`), read without
    assigning, locking or writing; only the responses short of k (`short_responses`, or the given
    ones: response id → item id) are looked at.
    """
    now = timezone.now()
    responses = short_responses([campaign], now).get(campaign.pk, {}) if short is None else short
    if not responses:
        return []
    states = _expert_states(campaign, None, now, lock=False)
    cfg = campaign_settings(campaign)
    work = Assignment.objects.filter(campaign_response_id__in=list(responses))
    live = Counter(work.live(now).values_list("campaign_response_id", flat=True))
    taken: dict[int, set[int]] = defaultdict(set)
    exposed: dict[int, set[int]] = defaultdict(set)
    for cr_id, expert_id in work.values_list("campaign_response_id", "expert_id"):
        taken[cr_id].add(expert_id)
    # A response a staff view showed an expert is never theirs to judge blind: they count as having it.
    eligible_ids = [s.user_id for s in states]
    shown = StaffExposure.objects.filter(
        user_id__in=eligible_ids, response__campaign_entries__campaign=campaign, response__campaign_entries__in=list(responses)
    )
    for user_id, cr_id in shown.values_list("user_id", "response__campaign_entries"):
        exposed[cr_id].add(user_id)
        taken[cr_id].add(user_id)
    info = _item_info(set(responses.values()))
    short_slots = []
    able_n: dict[int, int] = {}
    for cr_id, item_id in sorted(responses.items()):
        need = campaign.overlap - live[cr_id]
        if need <= 0:
            continue
        hard, _abilities, dims, _scene = info[item_id]
        able = [
            s
            for s in states
            if s.user_id not in taken[cr_id]
            and (not hard or s.tier >= campaign.min_tier_for_hard)
            and _qualified_for(s.qualified_dims, dims, cfg.qualification_per_dimension)
        ]
        if need > len(able):
            short_slots.append((cr_id, item_id, need - len(able)))
            able_n[cr_id] = len(able)
    # Capacity is no cause here (it frees up as experts submit): the bulk pass's "capacity" means too few experts at all.
    return [
        replace(s, reason="too_few", detail=_("only %(n)s eligible experts have not had it") % {"n": able_n[s.campaign_response_id]})
        if s.reason == "capacity"
        else s
        for s in _unfilled_slots(campaign, states, short_slots, taken, exposed, info, cfg)
    ]


@dataclass(frozen=True)
class CampaignSlots:
    campaign: Campaign
    slots: list[UnfilledSlot]
    withheld: str = ""

    @property
    def open_slots(self) -> int:
        return sum(s.need for s in self.slots)

    @property
    def responses(self) -> int:
        return len(self.slots)

    def by_detail(self) -> list[tuple[str, int, int]]:
        """(why, responses, open slots) per distinct reason."""
        groups: dict[str, list[UnfilledSlot]] = defaultdict(list)
        for s in self.slots:
            groups[s.detail].append(s)
        return [(why, len(rows), sum(r.need for r in rows)) for why, rows in sorted(groups.items())]


# --- schedule ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleRow:
    campaign: Campaign
    progress: CampaignProgress | None
    withheld: str = ""

    @property
    def deadline(self) -> date | None:
        return self.campaign.deadline.date() if self.campaign.deadline else None

    @property
    def behind(self) -> bool:
        """Not done, and the projected finish (or, without a pace, the absence of one) misses the deadline."""
        p = self.progress
        if p is None or self.deadline is None or not p.target or p.submitted >= p.target:
            return False
        return p.projected_finish is None or p.projected_finish > self.deadline

    @property
    def remaining(self) -> int:
        return 0 if self.progress is None else max(self.progress.target - self.progress.submitted, 0)


# --- the page -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SectionRow:
    """One line of a section an app above this one contributes."""

    label: str
    status: str
    detail: str = ""
    url: str = ""
    needs_action: bool = False


@dataclass(frozen=True)
class ExtraSection:
    key: str
    title: str
    rows: list[SectionRow]
    empty: str = ""

    @property
    def count(self) -> int:
        return sum(r.needs_action for r in self.rows)


SectionProvider = Callable[[User], ExtraSection]
_SECTIONS: dict[str, SectionProvider] = {}


def register_needs_action_section(name: str, provider: SectionProvider) -> None:
    """Add a section to the home (called from an AppConfig.ready)."""
    _SECTIONS[name] = provider


@dataclass
class NeedsActionHome:
    counts: QueueCounts
    corrections: list[CorrectionRequest]
    problem_reports: list[ItemProblemReport]
    unclear_reports: list[UnclearCriterionReport]
    alerts: list[AlertRow]
    experts: list[ExpertProfile]
    hide_reason_of: str
    unfillable: list[CampaignSlots]
    schedule: list[ScheduleRow]
    extra: list[ExtraSection] = field(default_factory=list)

    @property
    def unfillable_count(self) -> int:
        return sum(c.open_slots for c in self.unfillable)

    @property
    def behind_count(self) -> int:
        return sum(r.behind for r in self.schedule)


LISTED = 50
ALERTS_LISTED = 10  # the newest; the alerts page has them all


def needs_action_home(user: User) -> NeedsActionHome:
    """Everything on the home: the queues (with the badge's counts), unfillable slots, schedule, and the registered sections."""
    scope = blind_scope(user)
    running = list(
        Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, status__in=[Campaign.Status.ACTIVE, Campaign.Status.PAUSED])
        .select_related("version__dataset")
        .order_by("name")
    )
    unfillable = []
    active = [c for c in running if c.status == Campaign.Status.ACTIVE]
    # Campaigns with every response staffed to k (the usual case) cost nothing more than this one query.
    short = short_responses([c for c in active if not scope.hides_campaign(c.pk)], timezone.now())
    for c in active:
        if scope.hides_campaign(c.pk):
            unfillable.append(CampaignSlots(c, [], str(PROGRESS_WITHHELD)))
        elif c.pk in short and (slots := unfillable_slots(c, short[c.pk])):
            unfillable.append(CampaignSlots(c, slots))
    dated = [c for c in running if c.deadline is not None]
    progress = campaigns_progress([c for c in dated if not scope.hides_campaign(c.pk)])
    schedule = [ScheduleRow(c, progress[c.pk]) if c.pk in progress else ScheduleRow(c, None, str(PROGRESS_WITHHELD)) for c in dated]
    own = user.get_username() if scope else ""
    return NeedsActionHome(
        counts=queue_counts(user),
        corrections=list(
            pending_corrections_of(user).select_related("assignment__expert", "assignment__campaign_response__campaign")[:LISTED]
        ),
        problem_reports=list(
            open_problem_reports(user)
            .select_related("assignment__expert", "assignment__campaign_response__campaign", "assignment__campaign_response__item")
            .order_by("created_at")[:LISTED]
        ),
        unclear_reports=list(
            open_unclear_reports(user)
            .select_related("assignment__expert", "assignment__campaign_response__campaign", "criterion__item")
            .order_by("created_at")[:LISTED]
        ),
        alerts=alert_rows(
            visible_alerts(user, AdminAlert.objects.filter(resolved_at__isnull=True)).order_by("-created_at")[:ALERTS_LISTED]
        ),
        experts=list(unavailable_experts()),
        hide_reason_of=own,
        unfillable=unfillable,
        schedule=schedule,
        extra=[provider(user) for provider in _SECTIONS.values()],
    )


def digest_recipients() -> QuerySet[User]:
    """Admins who asked for the risk digest by e-mail (members of the digest group) and have an address."""
    from heartbench_core.roles import Role

    return (
        User.objects.filter(is_active=True, groups__name=DIGEST_GROUP)
        .filter(Q(groups__name=Role.ADMIN.value) | Q(is_superuser=True))
        .exclude(email="")
        .distinct()
        .order_by("username")
    )


DIGEST_GROUP = "risk_digest"
