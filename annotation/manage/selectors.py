"""Reads of the annotation app: an expert's campaigns, campaign progress, the assignment overview.

Expert-facing helpers (`expert_campaigns`, `profile_history`) return nothing about models,
gold checks or other raters; the admin-facing ones may.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.paginator import Page, Paginator
from django.db.models import Case, Count, IntegerField, Max, Min, OuterRef, Q, QuerySet, Subquery, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import (
    Assignment,
    AssignmentQuerySet,
    CalibrationResult,
    Campaign,
    CampaignSettings,
    ExpertCampaignTally,
    ExpertProfile,
    ExpertQuality,
    GoldLabel,
    Judgment,
    Qualification,
    QualityPolicy,
    ResponseTally,
    Skip,
    SubmissionHour,
)
from annotation.services.assignment import StuckResponse, stuck_responses
from annotation.services.tallies import progress
from heartbench_core.blindness import BlindScope
from heartbench_core.models import User
from heartbench_core.paging import KeysetPage, decode_keyset, keyset_of, page_of_ids

PACE_WINDOW = timedelta(days=7)


def expert_campaigns(user: User) -> QuerySet[Campaign]:
    """Active campaigns the expert takes part in (no gold sets), with their own open and submitted counts (no gold flag)."""
    now = timezone.now()
    mine = Q(responses__assignments__expert=user)
    return (
        Campaign.objects.taking_part(user)
        .filter(status=Campaign.Status.ACTIVE)
        .exclude(kind=Campaign.Kind.GOLD_SET)
        .annotate(
            my_open=Count("responses__assignments", filter=mine & AssignmentQuerySet.open_q(now, through="responses__assignments")),
            my_submitted=Count("responses__assignments", filter=mine & Q(responses__assignments__status=Assignment.Status.SUBMITTED)),
        )
        .order_by("kind", "-created_at")
    )


@dataclass(frozen=True)
class ExpertProgress:
    user_id: int
    username: str
    submitted: int
    open: int
    expired: int
    released: int
    active_seconds: int

    @property
    def hours(self) -> float:
        return self.active_seconds / 3600

    @property
    def minutes_per_response(self) -> float | None:
        """Mean time on task per submitted response; None before the first submission."""
        return self.active_seconds / 60 / self.submitted if self.submitted else None


@dataclass(frozen=True)
class CampaignProgress:
    """Progress of a campaign's real (non-gold) responses toward k submitted judgments each."""

    k: int
    responses: int
    gold_responses: int
    histogram: list[int]  # histogram[i] = responses with exactly i submitted (capped at k)
    held: int  # responses with at least one open reservation
    submitted: int
    target: int  # responses × k
    active_seconds: int
    experts: list[ExpertProgress]
    pace_per_day: float | None
    pace_reason: str
    projected_finish: date | None
    projected_reason: str

    @property
    def complete(self) -> int:
        return self.histogram[self.k] if self.histogram else 0

    @property
    def done(self) -> bool:
        """Every real response has its k judgments (then `projected_finish` is the day of the last submission)."""
        return bool(self.target) and self.submitted >= self.target

    @property
    def share_done(self) -> float | None:
        return self.submitted / self.target if self.target else None

    @property
    def bar(self) -> list[dict]:
        """Segments of the progress bar from 0 to k submitted judgments: count, width in %, css class."""
        total = self.responses or 1
        return [
            {"judgments": i, "responses": n, "width": round(100 * n / total, 2), "css": "done" if i == self.k else f"s{min(i, 3)}"}
            for i, n in enumerate(self.histogram)
        ]

    @property
    def hours(self) -> float:
        return self.active_seconds / 3600


def campaign_progress(campaign: Campaign, *, now: datetime | None = None) -> CampaignProgress:
    """Admin: the campaign's responses by number of submitted judgments (0…k), per-expert work and time, pace and projected finish.

    `campaigns_progress` for one campaign, with its experts.
    """
    return campaigns_progress([campaign], now=now, with_experts=True)[campaign.pk]


def campaigns_progress(
    campaigns: Sequence[Campaign], *, now: datetime | None = None, with_experts: bool = False
) -> dict[int, CampaignProgress]:
    """Admin: `CampaignProgress` of each campaign, by id, in the same few queries however many campaigns are asked for.

    From the tallies (per response, per expert and per hour of submissions, kept by triggers) and
    the few reservations past their expiry that the sweep has not marked yet, so the queries read
    rows per response, expert or hour of these campaigns, never per judgment or assignment. Without
    `with_experts` (a list of campaigns) the per-expert rows are left out and only their time on
    task is summed. One expert's own progress, as the workspace shows it to them, is
    `workspace.selectors.own_progress`.
    """
    now = now or timezone.now()
    ids = [c.pk for c in campaigns]
    if not ids:
        return {}
    calibration = [c.pk for c in campaigns if c.kind != Campaign.Kind.BLIND_TEST]
    rosters = (
        dict(Campaign.objects.filter(pk__in=calibration).annotate(n=Count("experts")).order_by().values_list("pk", "n"))
        if calibration
        else {}
    )
    k_of = {c.pk: c.overlap if c.kind == Campaign.Kind.BLIND_TEST else max(1, rosters.get(c.pk, 0)) for c in campaigns}
    # Reserved but past expiry: not open any more (the sweep will mark them expired), counted as expired meanwhile.
    overdue_per_response: dict[int, int] = {}
    overdue_per_expert: dict[tuple[int, int], int] = {}
    for cr_id, campaign_id, expert_id in (
        Assignment.objects.overdue(now)
        .filter(campaign_response__campaign_id__in=ids)
        .values_list("campaign_response_id", "campaign_response__campaign_id", "expert_id")
    ):
        overdue_per_response[cr_id] = overdue_per_response.get(cr_id, 0) + 1
        overdue_per_expert[(campaign_id, expert_id)] = overdue_per_expert.get((campaign_id, expert_id), 0) + 1
    # Real responses whose every reservation is overdue hold no open one.
    lapsed: dict[int, int] = {}
    if overdue_per_response:
        for cr_id, campaign_id, reserved in ResponseTally.objects.filter(pk__in=list(overdue_per_response), is_gold=False).values_list(
            "campaign_response_id", "campaign_id", "reserved"
        ):
            lapsed[campaign_id] = lapsed.get(campaign_id, 0) + (reserved == overdue_per_response[cr_id])
    histograms = {pk: [0] * (k + 1) for pk, k in k_of.items()}
    counts = {pk: {"held": 0, "gold": 0, "real": 0, "submitted": 0} for pk in ids}
    for (campaign_id, is_gold, n_sub, reserving), n in progress(ids).items():
        c = counts[campaign_id]
        if is_gold:
            c["gold"] += n
            continue
        k = k_of[campaign_id]
        c["real"] += n
        histograms[campaign_id][min(n_sub, k)] += n
        c["submitted"] += min(n_sub, k) * n
        c["held"] += n if reserving else 0
    experts: dict[int, list[ExpertProgress]] = {pk: [] for pk in ids}
    seconds: dict[int, int] = dict.fromkeys(ids, 0)
    if with_experts:
        for campaign_id, expert_id, username, submitted, reserved, expired, released, active_seconds in (
            ExpertCampaignTally.objects.filter(campaign_id__in=ids)
            .filter(Q(reserved__gt=0) | Q(submitted__gt=0) | Q(expired__gt=0) | Q(released__gt=0))
            .order_by("campaign_id", "expert__username")
            .values_list("campaign_id", "expert_id", "expert__username", "submitted", "reserved", "expired", "released", "active_seconds")
        ):
            late = overdue_per_expert.get((campaign_id, expert_id), 0)
            experts[campaign_id].append(
                ExpertProgress(expert_id, username, submitted, reserved - late, expired + late, released, active_seconds)
            )
            seconds[campaign_id] += active_seconds
    else:
        seconds.update(
            ExpertCampaignTally.objects.filter(campaign_id__in=ids)
            .values("campaign_id")
            .annotate(s=Sum("active_seconds"))
            .order_by()
            .values_list("campaign_id", "s")
        )
    paces = campaign_paces(ids, now)
    out = {}
    for pk in ids:
        c, k = counts[pk], k_of[pk]
        target = c["real"] * k
        pace, pace_reason = paces[pk].per_day, paces[pk].reason
        remaining = target - c["submitted"]
        if remaining <= 0 and target:
            # Finished: on the day of its last submission (not today, which every later view would say).
            last = paces[pk].last_hour
            finish, finish_reason = (timezone.localdate(last) if last else now.date()), _("complete")
        elif pace is None:
            finish, finish_reason = None, pace_reason
        else:
            finish, finish_reason = (
                (now + timedelta(days=remaining / pace)).date(),
                _("at %(pace)s submissions per day") % {"pace": number_format(pace, 1, force_grouping=True)},
            )
        out[pk] = CampaignProgress(
            k=k,
            responses=c["real"],
            gold_responses=c["gold"],
            histogram=histograms[pk],
            held=c["held"] - lapsed.get(pk, 0),
            submitted=c["submitted"],
            target=target,
            active_seconds=int(seconds.get(pk) or 0),
            experts=experts[pk],
            pace_per_day=pace,
            pace_reason=pace_reason,
            projected_finish=finish,
            projected_reason=finish_reason,
        )
    return out


CAMPAIGNS_PER_PAGE = 25


@dataclass(frozen=True)
class CampaignListPage:
    page: Page
    rows: list[tuple[Campaign, CampaignProgress | None]]  # progress None: withheld from this viewer


def campaign_list_page(
    campaigns: QuerySet[Campaign], *, number: str | int | None, scope: BlindScope, per_page: int | None = None
) -> CampaignListPage:
    """Admin: one page of `campaigns`, running ones first (active, paused), then drafts, then closed, newest first within each.

    The page's progress is read for its campaigns together (`campaigns_progress`), so the page
    costs the same whatever the number of campaigns; a campaign the viewer is an expert of has its
    progress withheld.
    """
    rank = Case(
        *(
            When(status=value, then=Value(i))
            for i, value in enumerate((Campaign.Status.ACTIVE, Campaign.Status.PAUSED, Campaign.Status.DRAFT))
        ),
        default=Value(3),
    )
    page = Paginator(campaigns.order_by(rank, "-created_at", "-pk"), per_page or CAMPAIGNS_PER_PAGE).get_page(number)
    listed = list(page.object_list)
    progress = campaigns_progress([c for c in listed if not scope.hides_campaign(c.pk)])
    return CampaignListPage(page, [(c, progress.get(c.pk)) for c in listed])


@dataclass(frozen=True)
class Pace:
    per_day: float | None  # submissions of real responses per day; None when undefined
    reason: str  # why it is undefined ("" when defined)
    last_hour: datetime | None  # the hour (UTC) of the latest submission


def campaign_paces(campaign_ids: Sequence[int], now: datetime) -> dict[int, Pace]:
    """Per campaign, submissions of real responses per day over the last week (or since the first submission, if later), and why none.

    Counted by the hour (`SubmissionHour`, UTC): the week starts at the start of the hour it
    falls in, and a first submission counts from the start of its hour. One query for all.
    """
    week_ago = now - PACE_WINDOW
    since = week_ago.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    seen = {
        row[0]: row[1:]
        for row in SubmissionHour.objects.filter(campaign_id__in=list(campaign_ids), submitted__gt=0)
        .values("campaign_id")
        .annotate(first=Min("hour"), last=Max("hour"), all=Sum("submitted"), week=Sum("submitted", filter=Q(hour__gte=since)))
        .order_by()
        .values_list("campaign_id", "first", "last", "all", "week")
    }
    out: dict[int, Pace] = {}
    for pk in campaign_ids:
        if pk not in seen:
            out[pk] = Pace(None, _("no submission yet, so no pace to project from"), None)
            continue
        first, last, everything, week = seen[pk]
        start = max(first, week_ago)
        # Since the first submission when it is within the week: then every submission counts.
        recent = everything if first >= week_ago else (week or 0)
        days = max((now - start).total_seconds() / 86400, 1 / 24)  # at least an hour, so one submission is no infinite pace
        out[pk] = Pace(recent / days, "", last) if recent else Pace(None, _("no submission in the last 7 days"), last)
    return out


@dataclass(frozen=True)
class ExpertGoldAccuracy:
    """One expert's agreement with the hidden gold checks of a campaign (admins only), with its counts."""

    username: str
    checks: int  # submitted gold checks
    compared: int  # gold-labelled criteria judged
    agreed: int

    @property
    def accuracy(self) -> float | None:
        """Share of compared criteria judged like gold; None when none was compared."""
        return self.agreed / self.compared if self.compared else None

    @property
    def reason(self) -> str:
        """Why the accuracy is undefined ("" when it is defined)."""
        if self.compared:
            return ""
        return _("no gold check submitted yet") if not self.checks else _("no gold-labelled criterion judged")


def campaign_gold_accuracy(campaign: Campaign) -> list[ExpertGoldAccuracy]:
    """Admin: per expert, submitted hidden gold checks of the campaign and agreement with their gold labels (three queries)."""
    checks = dict(
        Assignment.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=True)
        .submitted()
        .order_by()
        .values("expert__username")
        .annotate(n=Count("pk"))
        .values_list("expert__username", "n")
    )
    if not checks:
        return []
    gold = {
        (cr, crit): hit
        for cr, crit, hit in GoldLabel.objects.filter(campaign_response__campaign=campaign, campaign_response__is_gold=True).values_list(
            "campaign_response_id", "criterion_id", "hit"
        )
    }
    compared: dict[str, int] = dict.fromkeys(checks, 0)
    agreed: dict[str, int] = dict.fromkeys(checks, 0)
    for username, cr, crit, hit in Judgment.objects.filter(
        assignment__campaign_response__campaign=campaign,
        assignment__campaign_response__is_gold=True,
        assignment__status=Assignment.Status.SUBMITTED,
        hit__isnull=False,
    ).values_list("assignment__expert__username", "assignment__campaign_response_id", "criterion_id", "hit"):
        if (cr, crit) in gold:
            compared[username] += 1
            agreed[username] += gold[(cr, crit)] == hit
    return [ExpertGoldAccuracy(u, checks[u], compared[u], agreed[u]) for u in sorted(checks)]


def assignment_overview(campaign: Campaign) -> QuerySet[Assignment]:
    """Admin: the campaign's assignments with expert, response and item (for the overview table), newest first.

    Only the columns the table shows: the dialogue and the response text stay out of the sort,
    which otherwise carries them for every assignment of the campaign to the page asked for.
    """
    return (
        Assignment.objects.filter(campaign=campaign)
        # The skip, if any, in the same query: a released assignment its expert skipped says so, with the reason.
        .select_related("expert", "campaign_response__item", "campaign_response__response__model", "skip")
        .only(
            "public_id",
            "status",
            "skip__reason",
            "reserved_at",
            "expires_at",
            "submitted_at",
            "active_seconds",
            "expert__username",
            "campaign_response__is_gold",
            "campaign_response__item__question_id",
            "campaign_response__item__difficulty",
            "campaign_response__response__model__name",
        )
        .order_by("-reserved_at", "-id")
    )


def assignment_overview_page(
    campaign: Campaign,
    *,
    number: str | int | None,
    scope: BlindScope,
    status: str | None = None,
    expert: str | None = None,
    per_page: int = 50,
    after: str = "",
    before: str = "",
) -> Page:
    """Admin: one page of `assignment_overview`, read in two steps so that only the page's rows are joined and loaded.

    The campaign's ids are read in order from the index on (campaign, -reserved_at, -id) (no
    expert, item, model or text joined to every one of them, no sort), then the page's rows are
    read by id. The count comes from the experts' tallies unless the admin's blind scope hides some rows.

    `after` / `before` (the page's `next_after` / `previous_before` cursors, which its links carry)
    continue from a row by keyset: a deep page reads its rows from where the last one ended instead
    of sorting and skipping every row before it (OFFSET); `page=N` alone still works as before.
    """
    ids = scope.visible_responses(
        Assignment.objects.of_campaign(campaign.pk).order_by("-reserved_at", "-id"), "campaign_response__response_id"
    )
    if status:
        ids = ids.filter(status=status)
    if expert:
        ids = ids.filter(expert__username=expert)
    count = None if scope else assignment_overview_count(campaign, status=status, expert=expert)

    def rows(wanted: list[Any]) -> QuerySet[Assignment]:
        return assignment_overview(campaign).filter(pk__in=wanted)

    read = from_cursor(ids.values_list("pk", flat=True), after or before, size=per_page, backwards=not after) if after or before else None
    if read is None:
        page = page_of_ids(ids.values_list("pk", flat=True), number=number, per_page=per_page, rows=rows, count=count)
    else:
        found, more = read
        paginator = Paginator(ids.values_list("pk", flat=True), per_page)
        if count is not None:
            paginator.count = count  # a cached_property, set ahead
        shown = int(str(number)) if str(number or "").isdecimal() else 1
        by_pk = {row.pk: row for row in rows(found)}
        page = KeysetPage(
            [by_pk[p] for p in found if p in by_pk],
            max(1, min(shown, paginator.num_pages)),
            paginator,
            more_before=more or bool(after),
            more_after=more or not after,
        )
    listed = list(page.object_list)
    page.next_after = keyset_of(listed[-1]) if listed else ""  # type: ignore[attr-defined]
    page.previous_before = keyset_of(listed[0]) if listed else ""  # type: ignore[attr-defined]
    return page


def from_cursor(rows: QuerySet[Any, Any], cursor: str, *, size: int, backwards: bool = False) -> tuple[list[Any], bool] | None:
    """Up to `size` of `rows` (in (-reserved_at, -id) order) after the cursor's row, or before it when `backwards`, in the
    list's order, and whether more lie beyond them; None for a cursor that does not decode.

    The assignments page and the API continue alike. The bound on reserved_at alone is the index range's start
    (campaign, -reserved_at, -id), so a deep page is read from its first row; ids decide only between equal times.
    """
    place = decode_keyset(cursor)
    if place is None:
        return None
    when, pk = place
    if backwards:
        found = list(
            rows.filter(Q(reserved_at__gte=when) & (Q(reserved_at__gt=when) | Q(pk__gt=pk))).order_by("reserved_at", "id")[: size + 1]
        )
        return found[:size][::-1], len(found) > size
    found = list(rows.filter(Q(reserved_at__lte=when) & (Q(reserved_at__lt=when) | Q(pk__lt=pk)))[: size + 1])
    return found[:size], len(found) > size


def assignment_overview_count(campaign: Campaign, *, status: str | None = None, expert: str | None = None) -> int:
    """How many rows `assignment_overview` holds, from the experts' tallies (one query of a row per expert)."""
    columns = {s: s for s in ("reserved", "submitted", "expired", "released")}
    wanted = [columns[status]] if status in columns else ([] if status else list(columns))
    if not wanted:
        return 0
    tallies = ExpertCampaignTally.objects.filter(campaign=campaign)
    if expert:
        tallies = tallies.filter(expert__username=expert)
    totals = tallies.aggregate(**{c: Sum(c) for c in wanted})
    return sum(totals[c] or 0 for c in wanted)


EXPERTS_PER_PAGE = 50


def expert_profiles_page(profiles: QuerySet[ExpertProfile], *, number: str | int | None, per_page: int | None = None) -> Page:
    """Admin: one page of `profiles` in their order, the page's found first and only they given their workload (`with_workload`)."""
    return page_of_ids(
        profiles.values_list("pk", flat=True),
        number=number,
        per_page=per_page or EXPERTS_PER_PAGE,
        rows=lambda wanted: with_workload(profiles.filter(pk__in=wanted)),
    )


def expert_profiles() -> QuerySet[ExpertProfile]:
    """Admin: expert profiles by username with measured quality and workload (`with_workload`)."""
    return with_workload(ExpertProfile.objects.select_related("user", "quality").order_by("user__username"))


def with_workload(profiles: QuerySet[ExpertProfile]) -> QuerySet[ExpertProfile]:
    """`profiles` with each expert's workload (`open_n`, `submitted_n`).

    The workload is summed from the expert's tallies (a row per campaign), less their reservations
    past expiry that the sweep has not marked yet; counted from their assignments it took 0.34 s for
    250 experts of a hundred blind tests.
    """
    now = timezone.now()
    tallies = ExpertCampaignTally.objects.filter(expert=OuterRef("user_id")).order_by().values("expert")
    overdue = (
        Assignment.objects.overdue(now).filter(expert=OuterRef("user_id")).order_by().values("expert").annotate(n=Count("pk")).values("n")
    )

    def summed(column: str) -> Coalesce:
        return Coalesce(Subquery(tallies.annotate(n=Sum(column)).values("n"), output_field=IntegerField()), 0)

    return profiles.annotate(
        open_n=summed("reserved") - Coalesce(Subquery(overdue, output_field=IntegerField()), 0),
        submitted_n=summed("submitted"),
    )


@dataclass(frozen=True)
class ProfileHistory:
    calibrations: list[CalibrationResult]
    qualifications: list[Qualification]
    campaigns: list[dict[str, Any]]
    submitted: int
    active_seconds: int
    quality: ExpertQuality | None


def profile_history(profile: ExpertProfile) -> ProfileHistory:
    """An expert's calibration results, qualifications and completed work per campaign (their own page shows it)."""
    user = profile.user
    # From the expert's tallies (one row per campaign they had work in), not from their assignments. Gold checks are
    # counted like any work there: leaving them out would tell the expert how many there were.
    campaigns: list[dict[str, Any]] = [
        {"id": campaign_id, "name": name, "kind": kind, "submitted": submitted, "active_seconds": seconds}
        for campaign_id, name, kind, submitted, seconds in ExpertCampaignTally.objects.filter(expert=user)
        .filter(Q(reserved__gt=0) | Q(submitted__gt=0) | Q(expired__gt=0) | Q(released__gt=0))
        .order_by("campaign__name")
        .values_list("campaign_id", "campaign__name", "campaign__kind", "submitted", "submitted_seconds")
    ]
    quality = ExpertQuality.objects.filter(profile=profile).first()
    return ProfileHistory(
        calibrations=list(CalibrationResult.objects.filter(expert=user).select_related("campaign").order_by("-completed_at")),
        qualifications=list(Qualification.objects.filter(expert=user).order_by("dimension")),
        campaigns=campaigns,
        submitted=sum(c["submitted"] for c in campaigns if c["kind"] == Campaign.Kind.BLIND_TEST),
        active_seconds=sum(c["active_seconds"] for c in campaigns),
        quality=quality,
    )


# --- editing a running campaign: its change log and guidelines revisions -------------------------


def campaign_changes(campaign: Campaign, *, limit: int = 50) -> list[LogEntry]:
    """Recorded changes of the campaign's settings and status, newest first (`services.campaigns._record` writes them)."""
    of_campaign = LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(Campaign), object_id=str(campaign.pk))
    return list(of_campaign.select_related("user").order_by("-action_time", "-id")[:limit])


# --- certificates ------------------------------------------------------------------------------------

DEFAULT_CERTIFICATE_NAME = gettext_lazy("AI Evaluation Expert")


@dataclass(frozen=True)
class Certificate:
    """What a certificate states. Every figure is the holder's own and aggregate; none is per gold check."""

    title: str
    holder: str
    username: str
    campaign: Campaign
    submitted: int  # the holder's submitted responses in the campaign (gold checks count: they are work)
    certified_at: datetime
    quality_bar: float
    # The exact figure and its basis, or None while the holder is an expert of an open campaign: a
    # figure they could reload after each submission would change on their gold checks.
    quality: float | None
    quality_basis: str  # "gold" or "calibration"
    gold_checks: int
    gold_criteria: int
    code: str


def certificate_code(campaign_id: int, expert_id: int) -> str:
    """A verification code: campaign and expert ids with a keyed digest, so nobody can forge one."""
    mac = hmac.new(settings.SECRET_KEY.encode(), f"certificate:{campaign_id}:{expert_id}".encode(), hashlib.blake2b).hexdigest()
    return f"{campaign_id}-{expert_id}-{mac[:16]}"


def parse_certificate_code(code: str) -> tuple[int, int] | None:
    """(campaign id, expert id) of a genuine code, else None."""
    parts = code.split("-")
    if len(parts) != 3 or not parts[0].isdecimal() or not parts[1].isdecimal() or len(parts[0]) > 12 or len(parts[1]) > 12:
        return None
    campaign_id, expert_id = int(parts[0]), int(parts[1])
    return (campaign_id, expert_id) if hmac.compare_digest(certificate_code(campaign_id, expert_id), code) else None


def certificate_campaigns(expert: User) -> list[dict]:
    """Blind tests (not drafts) where the expert has submitted work: one certificate each, once they are certified."""
    return list(
        Assignment.objects.filter(expert=expert, campaign_response__campaign__kind=Campaign.Kind.BLIND_TEST)
        .exclude(campaign_response__campaign__status=Campaign.Status.DRAFT)
        .submitted()
        .values("campaign_response__campaign_id", "campaign_response__campaign__name")
        .annotate(submitted=Count("pk"))
        .order_by("campaign_response__campaign__name")
    )


def certificate(expert: User, campaign: Campaign, *, show_exact_quality: bool) -> Certificate | None:
    """The expert's certificate for the campaign, or None: not certified (the policy's thresholds not met), or no submitted work there.

    Certification is a one-time event (`quality.update_certificate`): a certificate never disappears
    after a later gold check, which would mark that check.
    """
    if campaign.kind != Campaign.Kind.BLIND_TEST or campaign.status == Campaign.Status.DRAFT:
        return None
    quality = ExpertQuality.objects.filter(profile__user=expert).first()
    if quality is None or quality.certified_at is None:
        return None
    submitted = Assignment.objects.filter(expert=expert, campaign=campaign).submitted().count()
    if not submitted:
        return None
    bar = QualityPolicy.current().certificate_min_quality
    return _issued(expert, campaign, submitted, quality, quality.certified_at, bar, show_exact_quality)


def certificates_of(
    expert: User, *, show_exact_quality: bool, quality: ExpertQuality | None = None, policy: QualityPolicy | None = None
) -> list[Certificate]:
    """Every certificate of the expert, one per blind test they submitted work in, in a fixed number of queries.

    `quality` and `policy`: the expert's and the current one, when the caller read them already.
    """
    quality = quality or ExpertQuality.objects.filter(profile__user=expert).first()
    if quality is None or quality.certified_at is None:
        return []
    counts = {c["campaign_response__campaign_id"]: c["submitted"] for c in certificate_campaigns(expert)}
    campaigns = Campaign.objects.filter(pk__in=counts).select_related("settings").order_by("name", "pk")
    bar = (policy or QualityPolicy.current()).certificate_min_quality
    return [_issued(expert, c, counts[c.pk], quality, quality.certified_at, bar, show_exact_quality) for c in campaigns]


def _issued(
    expert: User, campaign: Campaign, submitted: int, quality: ExpertQuality, certified_at: datetime, bar: float, show_exact_quality: bool
) -> Certificate:
    try:
        name = campaign.settings.certificate_name
    except CampaignSettings.DoesNotExist:
        name = ""
    return Certificate(
        title=name or str(DEFAULT_CERTIFICATE_NAME),
        holder=expert.get_full_name() or expert.get_username(),
        username=expert.get_username(),
        campaign=campaign,
        submitted=submitted,
        certified_at=certified_at,
        quality_bar=bar,
        quality=quality.measured if show_exact_quality else None,
        quality_basis="gold" if quality.gold_accuracy is not None else "calibration",
        gold_checks=quality.gold_checks if show_exact_quality else 0,
        gold_criteria=quality.gold_criteria if show_exact_quality else 0,
        code=certificate_code(campaign.pk, expert.pk),
    )


# --- skips -----------------------------------------------------------------------------------

# The latest skips a campaign's page lists (the counts cover all of them).
SKIP_ROWS = 50


@dataclass(frozen=True)
class SkipCount:
    """How many skips one reason, or one expert, accounts for."""

    key: str  # the reason's code, or the expert's username
    label: str  # the reason in the reader's language, or the username
    count: int


@dataclass(frozen=True)
class SkipRow:
    """One skip, for admins: who, which response, why, when."""

    assignment: str  # the assignment's public id
    username: str
    campaign_response_id: int
    question_id: str
    is_gold: bool
    reason: str
    reason_label: str
    note: str
    created_at: datetime


@dataclass(frozen=True)
class CampaignSkips:
    """A campaign's skips: counts per reason and per expert, the latest ones, and the responses they leave unable to finish."""

    total: int
    by_reason: list[SkipCount]
    by_expert: list[SkipCount]
    latest: list[SkipRow]
    stuck: list[StuckResponse]


def campaign_skips(campaign: Campaign) -> CampaignSkips:
    """The campaign's skips (admins only: experts never learn of others' skips); a fixed number of queries."""
    of_campaign = Skip.objects.filter(campaign=campaign)
    labels = dict(Skip.Reason.choices)
    by_reason = [
        SkipCount(reason, str(labels.get(reason, reason)), n)
        for reason, n in of_campaign.order_by().values("reason").annotate(n=Count("pk")).order_by("-n", "reason").values_list("reason", "n")
    ]
    total = sum(c.count for c in by_reason)
    if not total:
        return CampaignSkips(total=0, by_reason=[], by_expert=[], latest=[], stuck=[])
    by_expert = [
        SkipCount(username, username, n)
        for username, n in of_campaign.order_by()
        .values("expert__username")
        .annotate(n=Count("pk"))
        .order_by("-n", "expert__username")
        .values_list("expert__username", "n")
    ]
    latest = [
        SkipRow(
            assignment=public_id,
            username=username,
            campaign_response_id=cr_id,
            question_id=question_id,
            is_gold=is_gold,
            reason=reason,
            reason_label=str(labels.get(reason, reason)),
            note=note,
            created_at=created_at,
        )
        for public_id, username, cr_id, question_id, is_gold, reason, note, created_at in of_campaign.order_by(
            "-created_at", "-id"
        ).values_list(
            "assignment__public_id",
            "expert__username",
            "assignment__campaign_response_id",
            "assignment__campaign_response__item__question_id",
            "assignment__campaign_response__is_gold",
            "reason",
            "note",
            "created_at",
        )[:SKIP_ROWS]
    ]
    skipped = list(of_campaign.order_by().values_list("assignment__campaign_response_id", flat=True).distinct())
    return CampaignSkips(
        total=total,
        by_reason=by_reason,
        by_expert=by_expert,
        latest=latest,
        stuck=stuck_responses(campaign=campaign, campaign_response_ids=skipped),
    )
