"""Reads of the blind workspace: an expert's queues and the judging page.

Everything here is scoped to one expert and shaped for them: no model, no other expert's
judgment, no verdict, no gold flag ever leaves these functions. Each function runs a fixed
number of queries whatever the size of the item or the queue.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any, TypedDict

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum, Window
from django.db.models.functions import Coalesce, RowNumber
from django.http import Http404
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from annotation.models import (
    Assignment,
    CalibrationResult,
    Campaign,
    CampaignTally,
    CorrectionRequest,
    DiscussionComment,
    DiscussionVote,
    ExpertCampaignTally,
    ExpertProfile,
    ItemProblemReport,
    Judgment,
    Skip,
    UnclearCriterionReport,
)
from annotation.quality_text import pause_reason_text
from annotation.services import assignment as serving
from annotation.services.guidelines import GuidelinesInForce, guidelines_in_force, render_guidelines
from annotation.services.workspace import JudgmentRow, discussion_cohort, discussion_open_for
from heartbench_core.lib.taxonomy import english_name
from heartbench_core.models import Criterion, User
from heartbench_core.paging import decode_place, keyset_of, past
from heartbench_core.roles import Role, has_role
from heartbench_core.taxonomy_display import dimension_display


@dataclass
class OwnProgress:
    """One expert's own progress in a campaign (`manage.selectors.campaign_progress` is the campaign-wide one, for admins)."""

    done: int
    assigned: int
    total: int

    @property
    def in_progress(self) -> int:
        return self.assigned - self.done

    @property
    def done_pct(self) -> float:
        return round(100 * self.done / self.total, 1) if self.total else 0.0

    @property
    def in_progress_pct(self) -> float:
        return round(100 * self.in_progress / self.total, 1) if self.total else 0.0


@dataclass
class CampaignQueue:
    campaign: Campaign
    progress: OwnProgress
    drafts: list[Assignment] = field(default_factory=list)
    # All the expert's drafts here; `drafts` lists the first few of them.
    drafts_total: int = 0
    can_take_more: bool = True
    # Why "Next response" found nothing (filled in only after it did: it costs a few queries).
    no_work: NoWork | None = None
    # Why the expert's pre-assigned work here is on hold ("" when it is not, or when they hold none).
    on_hold: str = ""
    # A calibration whose latest attempt is finished (none under way): that attempt, and whether a retake may start now.
    finished_attempt: CalibrationResult | None = None
    retake_open: bool = False
    retake_at: datetime | None = None  # a failed attempt with attempts left: when the retake opens

    @property
    def deadline_passed(self) -> bool:
        return self.campaign.deadline is not None and self.campaign.deadline < timezone.now()

    @property
    def drafts_not_listed(self) -> int:
        return max(0, self.drafts_total - len(self.drafts))


@dataclass
class CompletedWork:
    assignment: Assignment
    question_id: str
    discussion_open: bool


@dataclass
class ExpertHome:
    queues: list[CampaignQueue]
    calibrations: list[CampaignQueue]
    completed: list[CompletedWork]
    finished: Sequence[Campaign] = field(default_factory=list)  # the latest closed campaigns (annotated `my_submitted`)
    finished_total: int = 0

    @property
    def finished_not_listed(self) -> int:
        return self.finished_total - len(self.finished)


def assignment_for_expert(expert: User, public_id: str, *, lapsed_too: bool = False) -> Assignment:
    """The expert's own assignment with that public id (with its response, item and campaign), else 404.

    `lapsed_too`: also the expert's own expired or released work (to read their text and take it back).
    """
    related = ("campaign_response__campaign", "campaign_response__item", "campaign_response__response")
    return _own_or_404(Assignment.objects.select_related(*related), expert, public_id, lapsed_too=lapsed_too)


def assignment_ref_for_expert(expert: User, public_id: str) -> Assignment:
    """The same check as `assignment_for_expert` (404 otherwise), loading only what a write needs to find the row.

    For autosave, time on task and submit, whose services lock and re-read the assignment
    anyway: the dialogue and the response text are not read for nothing on every keystroke pause.
    """
    return _own_or_404(Assignment.objects.only("pk", "public_id", "status", "expert_id", "campaign_response_id"), expert, public_id)


def _own_or_404(queryset: QuerySet[Assignment], expert: User, public_id: str, *, lapsed_too: bool = False) -> Assignment:
    # Another expert's work and unknown ids answer alike; so does the expert's own released or
    # expired work, except where they come to read or take back what they wrote on it.
    found = queryset.filter(public_id=public_id, expert_id=expert.pk).first()
    allowed = (*Assignment.HELD_STATUSES, Assignment.Status.EXPIRED, Assignment.Status.RELEASED) if lapsed_too else Assignment.HELD_STATUSES
    if found is None or found.status not in allowed:
        raise Http404(_("No such work."))
    return found


@dataclass
class StrandedWork:
    """A response whose reservation lapsed while the expert had written on it."""

    assignment: Assignment
    question_id: str
    campaign_name: str
    written: int  # criteria with a rationale


def stranded_work(expert: User, *, limit: int = 50) -> list[StrandedWork]:
    """The expert's expired or released work holding at least one rationale and not skipped, newest first (one query)."""
    rows = (
        Assignment.objects.filter(expert_id=expert.pk, status__in=(Assignment.Status.EXPIRED, Assignment.Status.RELEASED))
        # Work the expert skipped is not theirs to take back.
        .filter(skip__isnull=True)
        .annotate(written=Count("judgments", filter=~Q(judgments__rationale="")))
        .filter(written__gt=0)
        .select_related("campaign_response__item", "campaign_response__campaign")
        .only(
            "public_id", "status", "reserved_at", "expires_at", "campaign_response__item__question_id", "campaign_response__campaign__name"
        )
        .order_by("-reserved_at", "public_id")[:limit]
    )
    return [
        StrandedWork(
            assignment=a,
            question_id=a.campaign_response.item.question_id,
            campaign_name=a.campaign_response.campaign.name,
            written=a.written,  # type: ignore[attr-defined]  # annotated above
        )
        for a in rows
    ]


def own_assignments(expert: User) -> QuerySet[Assignment]:
    """The expert's reserved and submitted assignments, newest first (for the API list; the index on (expert, reserved_at, public_id) serves it)."""
    return (
        Assignment.objects.filter(expert_id=expert.pk)
        .held()
        .select_related("campaign_response__campaign", "campaign_response__item")
        .only(
            "public_id",
            "status",
            "reserved_at",
            "expires_at",
            "draft_saved_at",
            "submitted_at",
            "campaign_response__campaign__name",
            "campaign_response__campaign__kind",
            "campaign_response__item__question_id",
        )
        .order_by("-reserved_at", "public_id")
    )


def own_assignment_count(expert: User, status: str | None = None) -> int:
    """How many assignments `own_assignments` lists (of one status when given), from the expert's tallies: one query, whatever the count."""
    fields = {"reserved": ["reserved"], "submitted": ["submitted"]}.get(status or "", ["reserved", "submitted"])
    totals = ExpertCampaignTally.objects.filter(expert_id=expert.pk).aggregate(**{f: Sum(f) for f in fields})
    return sum(totals[f] or 0 for f in fields)


def campaigns_for_expert(expert: User) -> QuerySet[Campaign]:
    """The campaigns of the expert's workspace: those they take part in, but no drafts and no gold sets (nobody judges in those)."""
    return Campaign.objects.taking_part(expert).exclude(status=Campaign.Status.DRAFT).exclude(kind=Campaign.Kind.GOLD_SET)


# Drafts listed per campaign on the home page; the rest are counted ("and 40 more") and served by "Next response".
DRAFTS_SHOWN = 5
# Closed campaigns listed on the home page, newest first; the rest are counted.
FINISHED_SHOWN = 5
# Completed work listed on the home page, newest first; the rest is on the completed-work pages.
COMPLETED_SHOWN = 20
COMPLETED_PER_PAGE = 50


def _submitted_newest_first(expert: User) -> QuerySet[Assignment]:
    """The expert's submitted work, newest first (the index on (expert, status, submitted_at, public_id) serves it)."""
    return (
        Assignment.objects.filter(expert_id=expert.pk, status=Assignment.Status.SUBMITTED)
        .select_related("campaign_response__item")
        .only(
            "public_id", "status", "reserved_at", "submitted_at", "campaign_response__campaign_id", "campaign_response__item__question_id"
        )
        .order_by("-submitted_at", "public_id")
    )


def _completed_work(expert: User, submitted: Iterable[Assignment], campaigns: Mapping[int, Campaign] | None = None) -> list[CompletedWork]:
    """Rows of completed work, each saying whether its discussion is open to the expert (two queries, three with closed campaigns)."""
    submitted = list(submitted)
    if not submitted:
        return []
    # Submitters of each response in submission order: a thread opens per cohort of k of them.
    order: dict[int, list[int]] = defaultdict(list)
    for cr_id, expert_id in (
        Assignment.objects.filter(campaign_response_id__in=[a.campaign_response_id for a in submitted])
        .submitted()
        .order_by("campaign_response_id", "submitted_at", "id")
        .values_list("campaign_response_id", "expert_id")
    ):
        order[cr_id].append(expert_id)
    campaigns = campaigns or {}
    # The campaigns of the work that are not given (closed ones, or all on the completed-work pages).
    missing = {a.campaign_response.campaign_id for a in submitted} - campaigns.keys()
    of_work = {**campaigns, **(Campaign.objects.in_bulk(missing) if missing else {})}
    completed = []
    for a in submitted:
        its_campaign = of_work.get(a.campaign_response.campaign_id)
        submitters = order.get(a.campaign_response_id, [])
        open_ = (
            its_campaign is not None
            and expert.pk in submitters
            and discussion_cohort(campaign=its_campaign, position=submitters.index(expert.pk), submitted=len(submitters)) is not None
        )
        completed.append(CompletedWork(assignment=a, question_id=a.campaign_response.item.question_id, discussion_open=open_))
    return completed


@dataclass
class CompletedPage:
    rows: list[CompletedWork]
    total: int
    next_after: str  # the cursor of the next page ("" on the last)


def completed_page(expert: User, *, after: str = "", size: int | None = None) -> CompletedPage:
    """A page of the expert's completed work, newest first, continuing after the cursor `after` (a keyset: any page costs the same).

    A cursor that does not decode starts from the first page.
    """
    size = size or COMPLETED_PER_PAGE
    rows = _submitted_newest_first(expert)
    if (place := decode_place(after)) is not None:
        rows = rows.filter(past(place, "submitted_at"))
    found = list(rows[: size + 1])
    shown = found[:size]
    more = len(found) > size
    last = shown[-1] if shown else None
    return CompletedPage(
        rows=_completed_work(expert, shown),
        total=own_assignment_count(expert, "submitted"),
        next_after=keyset_of(last, "submitted_at", "public_id") if more and last and last.submitted_at else "",
    )


def expert_home(
    expert: User, *, completed_limit: int | None = None, drafts_shown: int = DRAFTS_SHOWN, finished_shown: int = FINISHED_SHOWN
) -> ExpertHome:
    """The expert's queue per open campaign, drafts to resume, calibrations to take, closed campaigns and their own completed work.

    A fixed number of queries, each reading at most what the page shows: counts come from the
    tallies, the first `drafts_shown` drafts of each campaign, the latest `finished_shown` closed
    campaigns and the latest `completed_limit` submissions from their indexes, however much work
    the expert holds and however many campaigns they took part in.
    """
    mine = ExpertCampaignTally.objects.filter(expert_id=expert.pk, campaign_id=OuterRef("pk"))
    taking_part = campaigns_for_expert(expert)
    campaigns = {
        c.pk: c
        for c in taking_part.exclude(status=Campaign.Status.CLOSED)
        .select_related("settings")
        .annotate(
            response_total=Coalesce(F("tally__responses"), 0),
            my_submitted=Coalesce(Subquery(mine.values("submitted")), 0),
            my_reserved=Coalesce(Subquery(mine.values("reserved")), 0),
            my_preassigned=Coalesce(Subquery(mine.values("preassigned")), 0),
        )
    }
    # Closed campaigns: the latest few, one line each, and how many there are (a window over the same query).
    finished = list(
        taking_part.filter(status=Campaign.Status.CLOSED)
        .annotate(my_submitted=Coalesce(Subquery(mine.values("submitted")), 0), finished_total=Window(Count("pk")))
        .only("name", "kind", "status", "overlap")
        .order_by("-pk")[:finished_shown]
    )
    # The first few of each campaign, ranked on the assignment's own columns (an index-only read of the
    # expert's open work), then only those rows joined to their responses.
    first_open = (
        Assignment.objects.filter(expert_id=expert.pk, status=Assignment.Status.RESERVED)
        .annotate(rank=Window(RowNumber(), partition_by=[F("campaign_id")], order_by=[F("reserved_at").asc(), F("public_id").asc()]))
        .filter(rank__lte=drafts_shown)
        .values("pk")
    )
    drafts = (
        Assignment.objects.filter(pk__in=first_open)
        .select_related("campaign_response__item")
        .only(
            "public_id",
            "status",
            "reserved_at",
            "draft_saved_at",
            "expires_at",
            "campaign_response__campaign_id",
            "campaign_response__item__question_id",
        )
        .order_by("reserved_at", "public_id")
    )
    by_campaign: dict[int, list[Assignment]] = defaultdict(list)
    for a in drafts:
        by_campaign[a.campaign_response.campaign_id].append(a)
    queues: list[CampaignQueue] = []
    calibrations: list[CampaignQueue] = []

    @cache
    def own_profile() -> ExpertProfile | None:  # read once, only when pre-assigned work may be on hold
        return ExpertProfile.objects.filter(user_id=expert.pk).first()

    latest_attempt: dict[int, CalibrationResult] = {}
    if any(c.kind == Campaign.Kind.CALIBRATION for c in campaigns.values()):
        # Ascending, so each calibration keeps its latest attempt.
        for result in CalibrationResult.objects.filter(
            expert_id=expert.pk, campaign_id__in=[pk for pk, c in campaigns.items() if c.kind == Campaign.Kind.CALIBRATION]
        ).order_by("campaign_id", "attempt"):
            latest_attempt[result.campaign_id] = result
    now = timezone.now()

    for campaign in sorted(campaigns.values(), key=lambda c: (c.name.lower(), c.pk)):
        done, reserved = campaign.my_submitted, campaign.my_reserved  # annotated above
        queue = CampaignQueue(
            campaign=campaign,
            progress=OwnProgress(done=done, assigned=done + reserved, total=_attempt_total(campaign, campaign.response_total)),
            drafts=by_campaign.get(campaign.pk, []),
            drafts_total=reserved,
            can_take_more=campaign.status == Campaign.Status.ACTIVE,
        )
        if campaign.my_preassigned:
            queue.on_hold = serving.hold_reason(campaign=campaign, profile=own_profile())
        attempt = latest_attempt.get(campaign.pk)
        if attempt is not None and not reserved:
            # A retake removes the finished attempt's work: with nothing reserved, no attempt is under way.
            cfg = serving.campaign_settings(campaign)
            queue.finished_attempt = attempt
            if not attempt.passed and attempt.attempt < cfg.max_attempts:
                queue.retake_at = attempt.completed_at + cfg.retake_cooldown
            queue.retake_open = queue.retake_at is not None and now >= queue.retake_at and queue.can_take_more
            queue.can_take_more = queue.retake_open
        (calibrations if campaign.kind == Campaign.Kind.CALIBRATION else queues).append(queue)

    completed = _completed_work(expert, _submitted_newest_first(expert)[: completed_limit or COMPLETED_SHOWN], campaigns)
    return ExpertHome(
        queues=queues,
        calibrations=calibrations,
        completed=completed,
        finished=finished,
        finished_total=finished[0].finished_total if finished else 0,
    )


@dataclass
class CriterionRow:
    criterion: Criterion
    number: int
    kind: str  # "reward" | "penalty" | "catastrophic"
    ability_name: str
    rationale: str
    hit: bool | None
    reported_unclear: bool
    errors: list[str] = field(default_factory=list)
    unclear_url: str = ""

    # Strings, not numbers: templates then skip number localisation, which dominates a 22-criterion page.
    @property
    def cid(self) -> str:
        return str(self.criterion.pk)

    @property
    def num(self) -> str:
        return str(self.number)


@dataclass
class JudgingPage:
    assignment: Assignment
    campaign: Campaign
    dialogue: list
    response_text: str
    rows: list[CriterionRow]
    progress: OwnProgress
    next_public_id: str | None
    problem_reported: bool
    correction: CorrectionRequest | None
    discussion_open: bool
    # The guidelines in force: the campaign's own latest revision, else its dataset's (only when asked for: the judging page and its API).
    guidelines: GuidelinesInForce | None = None
    # The reservation lapsed (expired, released, or past its expiry): the expert reads their text and may take it back.
    lapsed: bool = False
    # For lapsed work: whether its slot is still open, so "take it back" can succeed.
    slot_open: bool = False
    # Pre-assigned work of a paused or closed campaign, or of an expert paused or away: why it waits ("" when it does not).
    on_hold: str = ""
    # The expert skipped this response: their reason, in the reader's language ("" when they did not). Lapsed for good.
    skipped: str = ""

    @property
    def guidelines_html(self) -> str:
        return render_guidelines(self.guidelines.body) if self.guidelines is not None else ""

    @property
    def cursor(self) -> int:
        """The position (from 1) of the criterion the expert was on, within the rubric."""
        return max(1, min(self.assignment.cursor or 1, len(self.rows) or 1))

    @property
    def deadline_passed(self) -> bool:
        return self.campaign.deadline is not None and self.campaign.deadline < timezone.now()

    @property
    def submitted(self) -> bool:
        return self.assignment.status == Assignment.Status.SUBMITTED

    @property
    def count_str(self) -> str:
        return str(len(self.rows))

    @property
    def min_chars_str(self) -> str:
        return str(self.campaign.rationale_min_chars)

    @property
    def editable(self) -> bool:
        return not self.submitted and not self.lapsed

    @property
    def judged_count(self) -> int:
        return sum(1 for r in self.rows if r.hit is not None)


def criterion_kind(criterion: Criterion) -> str:
    """reward, penalty (a hit lowers the score) or catastrophic (其他)."""
    if criterion.catastrophic:
        return "catastrophic"
    return "penalty" if criterion.is_penalty else "reward"


def judging_page(assignment: Assignment, *, with_guidelines: bool = False) -> JudgingPage:
    """Everything the judging page shows, for the expert who owns the assignment (with the guidelines in force when asked)."""
    cr = assignment.campaign_response
    campaign = cr.campaign
    criteria = list(Criterion.objects.filter(item_id=cr.item_id).order_by("position"))
    judged = {j.criterion_id: j for j in Judgment.objects.filter(assignment_id=assignment.pk).only("criterion_id", "rationale", "hit")}
    unclear = set(UnclearCriterionReport.objects.filter(assignment_id=assignment.pk).values_list("criterion_id", flat=True))
    rows = [
        CriterionRow(
            criterion=c,
            number=c.position + 1,
            kind=criterion_kind(c),
            ability_name=english_name(c.ability),
            rationale=judged[c.id].rationale if c.id in judged else "",
            hit=judged[c.id].hit if c.id in judged else None,
            reported_unclear=c.id in unclear,
        )
        for c in criteria
    ]
    submitted = assignment.status == Assignment.Status.SUBMITTED
    # Only released work can have been skipped: open work costs no query for it.
    skipped = ""
    if assignment.status == Assignment.Status.RELEASED:
        reason = Skip.objects.filter(assignment_id=assignment.pk).values_list("reason", flat=True).first()
        skipped = str(Skip.Reason(reason).label) if reason else ""
    correction = None
    discussion_open = False
    if submitted:
        correction = CorrectionRequest.objects.filter(assignment_id=assignment.pk).order_by("-created_at").first()
        discussion_open = discussion_open_for(assignment)
    next_id = (
        Assignment.objects.filter(
            expert_id=assignment.expert_id, status=Assignment.Status.RESERVED, campaign_response__campaign_id=campaign.pk
        )
        .exclude(pk=assignment.pk)
        .order_by("reserved_at", "public_id")
        .values_list("public_id", flat=True)
        .first()
    )
    return JudgingPage(
        assignment=assignment,
        campaign=campaign,
        dialogue=cr.item.dialogue,
        response_text=cr.response.text,
        rows=rows,
        progress=own_progress(assignment.expert_id, campaign),
        next_public_id=next_id,
        problem_reported=ItemProblemReport.objects.filter(assignment_id=assignment.pk).exists(),
        correction=correction,
        discussion_open=discussion_open,
        guidelines=guidelines_in_force(campaign) if with_guidelines else None,
        lapsed=is_lapsed(assignment),
        slot_open=is_lapsed(assignment) and not skipped and slot_still_open(assignment),
        on_hold=_on_hold(assignment, campaign),
        skipped=skipped,
    )


def _on_hold(assignment: Assignment, campaign: Campaign) -> str:
    """Why the expert's pre-assigned, unsubmitted work waits (one query, only for such work)."""
    if assignment.status != Assignment.Status.RESERVED or assignment.expires_at is not None:
        return ""
    return serving.hold_reason(campaign=campaign, profile=ExpertProfile.objects.filter(user_id=assignment.expert_id).first())


def is_lapsed(assignment: Assignment) -> bool:
    """Whether the expert's reservation of this response lapsed: expired or released, or past its expiry before the sweep."""
    if assignment.status in (Assignment.Status.EXPIRED, Assignment.Status.RELEASED):
        return True
    return assignment.status == Assignment.Status.RESERVED and assignment.expires_at is not None and assignment.expires_at <= timezone.now()


def slot_still_open(assignment: Assignment) -> bool:
    """Whether lapsed work could be taken back: the campaign takes work and fewer than k others hold the response.

    The same rule for every response (`services.workspace.reclaim_assignment` decides under a lock),
    so it tells nothing of hidden gold checks; it never says who holds the response.
    """
    campaign = assignment.campaign_response.campaign
    if campaign.status != Campaign.Status.ACTIVE:
        return False
    live = Assignment.objects.filter(campaign_response_id=assignment.campaign_response_id).live(timezone.now()).exclude(pk=assignment.pk)
    return live.count() < max(campaign.overlap, 1) + assignment.campaign_response.extra_raters


def own_progress(expert_id: int, campaign: Campaign) -> OwnProgress:
    """The expert's done / assigned in a campaign, over what they work through (all of a blind test, one sitting of a calibration).

    From the tallies (two single-row reads), so it costs the same in a campaign of any size.
    """
    mine = ExpertCampaignTally.objects.filter(expert_id=expert_id, campaign_id=campaign.pk).values_list("submitted", "reserved").first()
    done, reserved = mine or (0, 0)
    total = CampaignTally.objects.filter(campaign_id=campaign.pk).values_list("responses", flat=True).first() or 0
    return OwnProgress(done=done, assigned=done + reserved, total=_attempt_total(campaign, total))


def _attempt_total(campaign: Campaign, responses: int) -> int:
    """What one expert works through: a calibration attempt is one sitting of the set, a blind test all of it."""
    if campaign.kind != Campaign.Kind.CALIBRATION:
        return responses
    try:
        sitting = campaign.settings.sitting_size
    except Campaign.settings.RelatedObjectDoesNotExist:
        return responses
    return min(sitting, responses) if sitting else responses


@dataclass
class DiscussionEntry:
    author_label: str
    is_own: bool
    criterion_number: int | None
    body: str
    created_at: datetime


@dataclass
class Discussion:
    page: JudgingPage
    comments: list[DiscussionEntry]
    votes: dict[int, dict]  # criterion id -> {"hit": n, "miss": n, "mine": bool | None}

    @property
    def stances(self) -> list[tuple[CriterionRow, dict]]:
        return [(row, self.votes[row.criterion.pk]) for row in self.page.rows]


def discussion(assignment: Assignment) -> Discussion:
    """The thread of a response for one of the experts who judged it; participants are pseudonymous.

    The thread is the expert's cohort's: the k raters grouped with them by submission order
    (see `discussion_cohort`). Only their comments and stances are shown, so a response judged
    by more than k experts (a hidden gold check) reads exactly like an ordinary one.
    """
    page = judging_page(assignment)
    if not page.discussion_open:
        raise Http404(_("No such discussion."))
    cr_id = assignment.campaign_response_id
    submitters = list(
        Assignment.objects.filter(campaign_response_id=cr_id).submitted().order_by("submitted_at", "id").values_list("expert_id", flat=True)
    )
    cohort = discussion_cohort(campaign=page.campaign, position=submitters.index(assignment.expert_id), submitted=len(submitters))
    if cohort is None:
        raise Http404(_("No such discussion."))
    judges = submitters[cohort]
    # Pseudonyms follow submission order within the cohort, so they are stable and reveal no username.
    labels = {
        expert_id: pgettext("pseudonym in a discussion", "Expert %(number)s") % {"number": i} for i, expert_id in enumerate(judges, start=1)
    }
    you, someone = pgettext("the reader, in a discussion", "You"), _("A participant")
    numbers = {r.criterion.pk: r.number for r in page.rows}
    comments = [
        DiscussionEntry(
            author_label=you if c.author_id == assignment.expert_id else labels.get(c.author_id, someone),
            is_own=c.author_id == assignment.expert_id,
            criterion_number=numbers.get(c.criterion_id) if c.criterion_id is not None else None,
            body=c.body,
            created_at=c.created_at,
        )
        for c in DiscussionComment.objects.filter(campaign_response_id=cr_id, author_id__in=judges).order_by("created_at", "id")
    ]
    votes: dict[int, dict] = {cid: {"hit": 0, "miss": 0, "mine": None} for cid in numbers}
    for v in DiscussionVote.objects.filter(campaign_response_id=cr_id, voter_id__in=judges).only("criterion_id", "voter_id", "hit"):
        tally = votes.setdefault(v.criterion_id, {"hit": 0, "miss": 0, "mine": None})
        tally["hit" if v.hit else "miss"] += 1
        if v.voter_id == assignment.expert_id:
            tally["mine"] = v.hit
    return Discussion(page=page, comments=comments, votes=votes)


class CorrectionPair(TypedDict):
    """One criterion of a correction request: as submitted (None when it had no judgment) beside as corrected."""

    position: int
    before: JudgmentRow | None
    after: JudgmentRow
    changed: bool


def pending_corrections() -> list[CorrectionRequest]:
    """Corrections waiting for an admin, oldest first, each with `pairs` (submitted vs corrected per criterion)."""
    pending = list(
        CorrectionRequest.objects.filter(status=CorrectionRequest.Status.PENDING)
        .select_related("assignment__expert", "assignment__campaign_response__item", "assignment__campaign_response__campaign")
        .order_by("created_at")
    )
    for correction in pending:
        before = {row["criterion"]: row for row in correction.original}
        correction.pairs = [
            {
                "position": row["position"],
                "before": before.get(row["criterion"]),
                "after": row,
                "changed": before.get(row["criterion"]) != row,
            }
            for row in correction.proposed
        ]
    return pending


# --- the result of a calibration attempt ------------------------------------------------------


@dataclass(frozen=True)
class CalibrationOutcome:
    """One finished calibration attempt as its expert reads it: the score against the pass mark, where they differed
    from the reference, and what follows.

    Only the calibration's own reference verdicts and explanations appear (the feedback a calibration is for);
    nothing of a blind campaign.
    """

    result: CalibrationResult
    misses: list[dict[str, Any]]
    later_attempt: CalibrationResult | None  # a later attempt at the same calibration, when there is one
    in_progress: bool  # the next attempt is under way
    attempts_left: int
    max_attempts: int
    retake_at: datetime | None  # when a retake opens; None once passed or with no attempt left
    retake_open: bool  # a retake may start now
    open_campaigns: list[Campaign]  # passed: the blind tests that offer the expert work now


def calibration_outcome(expert: User, result_id: int, *, now: datetime | None = None) -> CalibrationOutcome:
    """The expert's own finished attempt with that id, and what follows it; another's or an unknown id is a 404."""
    now = now or timezone.now()
    result = CalibrationResult.objects.select_related("campaign").filter(pk=result_id, expert_id=expert.pk).first()
    if result is None:
        raise Http404("No such calibration result.")
    later = CalibrationResult.objects.filter(campaign_id=result.campaign_id, expert_id=expert.pk, attempt__gt=result.attempt)
    state = serving.calibration_state(expert=expert, campaign=result.campaign)
    open_campaigns: list[Campaign] = []
    if result.passed:
        running = campaigns_for_expert(expert).filter(kind=Campaign.Kind.BLIND_TEST, status=Campaign.Status.ACTIVE).order_by("name", "pk")
        open_campaigns = [c for c in running if why_no_work(expert, c, now=now) is None]
    retake_at = None if result.passed or later.exists() else state.retake_at
    return CalibrationOutcome(
        result=result,
        misses=[row for row in result.feedback if not row["agreed"]],
        later_attempt=later.order_by("-attempt").first(),
        in_progress=state.in_progress,
        attempts_left=state.attempts_left,
        max_attempts=state.max_attempts,
        retake_at=retake_at,
        retake_open=retake_at is not None and now >= retake_at and result.campaign.status == Campaign.Status.ACTIVE,
        open_campaigns=open_campaigns,
    )


def attempt_finished_by(assignment: Assignment) -> CalibrationResult | None:
    """The calibration attempt the submission of this assignment completed, if it completed one."""
    campaign = assignment.campaign_response.campaign
    if campaign.kind != Campaign.Kind.CALIBRATION:
        return None
    latest = CalibrationResult.objects.filter(campaign_id=campaign.pk, expert_id=assignment.expert_id).order_by("-attempt").first()
    # The attempt under way is the one scored after this work was reserved (a retake may draw the same response again).
    if (
        latest is None
        or assignment.campaign_response_id not in (latest.campaign_responses or [])
        or latest.completed_at < assignment.reserved_at
    ):
        return None
    return latest


# --- why the queue is empty --------------------------------------------------------------------


@dataclass(frozen=True)
class NoWork:
    """Why a campaign gives the expert no new work, in words they can act on.

    Decided by the same checks, in the same order, as serving (`assign_next_response`), so the
    reason is the real one. Blind: no reason ever distinguishes hidden gold checks from ordinary
    responses (serving gives gold only while ordinary work is left, so "every response has its
    raters" is the whole truth when it is said).
    """

    code: str
    message: str
    # A page that helps (the open draft, the profile), or a calibration to start (POST next_response).
    action_url: str = ""
    action_label: str = ""
    calibration: Campaign | None = None
    available_from: datetime | None = None
    deadline_passed: bool = False


NO_WORK_CODES = (
    "campaign_closed",
    "campaign_paused",
    "campaign_not_started",
    "expert_paused",
    "expert_away",
    "not_listed",
    "at_capacity",
    "calibration_required",
    "calibration_passed",
    "retake_later",
    "no_attempts_left",
    "dimension_not_qualified",
    "all_rated",
)


def _calibration_required(expert: User, now: datetime, reason: Callable[..., NoWork]) -> NoWork:
    """The expert holds no qualification for the campaign: the calibration to take, or how their last attempt went and what follows."""
    calibrations = list(
        campaigns_for_expert(expert).filter(kind=Campaign.Kind.CALIBRATION, status=Campaign.Status.ACTIVE).order_by("name", "pk")
    )
    if not calibrations:
        return reason("calibration_required", _("Calibration required before this campaign; an admin will open one for you."))
    latest = (
        CalibrationResult.objects.filter(expert_id=expert.pk, campaign__in=calibrations)
        .select_related("campaign")
        .order_by("-completed_at")
        .first()
    )
    calibration = latest.campaign if latest is not None else calibrations[0]
    state = serving.calibration_state(expert=expert, campaign=calibration)
    if state.passed:
        return reason(
            "calibration_required",
            _("You passed “%(name)s”, but your qualification was withdrawn; an administrator decides what follows.")
            % {"name": calibration.name},
        )
    if latest is None or state.in_progress:
        return reason(
            "calibration_required",
            _("Calibration required: pass “%(name)s” to take part.") % {"name": calibration.name},
            calibration=calibration,
            action_label=_("Continue the calibration") if state.in_progress else _("Start the calibration"),
        )
    failed = _("You did not pass “%(name)s”: you scored %(score)s, the pass mark is %(threshold)s.") % {
        "name": calibration.name,
        "score": _percent(latest.score),
        "threshold": _percent(latest.threshold),
    }
    result_url = reverse("annotation:calibration_feedback", args=[latest.pk])
    if state.retake_at is None:
        return reason(
            "no_attempts_left",
            failed + " " + _("No attempt is left; an administrator decides what follows."),
            action_url=result_url,
            action_label=_("See your result"),
        )
    if now < state.retake_at:
        when = formats.date_format(timezone.localtime(state.retake_at), "DATETIME_FORMAT")
        return reason(
            "retake_later",
            failed + " " + _("A retake is possible from %(when)s.") % {"when": when},
            action_url=result_url,
            action_label=_("See your result"),
            available_from=state.retake_at,
        )
    return reason(
        "calibration_required",
        failed + " " + _("A retake is open now."),
        calibration=calibration,
        action_label=_("Retake the calibration"),
    )


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def why_no_work(expert: User, campaign: Campaign, *, now: datetime | None = None) -> NoWork | None:
    """Why the campaign has no new work for the expert now, or None when serving would give them some.

    Reads only; never reserves. Mirrors `assign_next_response`: the campaign's status, the
    expert's availability, the campaign's list of experts, capacity, calibration attempts,
    qualification, and last whether any response is still open to them.
    """
    now = now or timezone.now()
    late = campaign.deadline is not None and campaign.deadline < now

    def reason(code: str, message: str, **extra: Any) -> NoWork:
        return NoWork(code=code, message=message, deadline_passed=late, **extra)

    note = f" {campaign.status_reason}" if campaign.status_reason.strip() else ""
    if campaign.status == Campaign.Status.CLOSED:
        return reason("campaign_closed", _("This campaign is finished: it takes no more work.") + note)
    if campaign.status == Campaign.Status.PAUSED:
        if note:
            return reason("campaign_paused", _("Paused by an admin: %(reason)s") % {"reason": campaign.status_reason.strip()})
        return reason("campaign_paused", _("Paused by an admin; the work resumes when they restart the campaign."))
    if campaign.status != Campaign.Status.ACTIVE or campaign.kind == Campaign.Kind.GOLD_SET:
        return reason("campaign_not_started", _("This campaign has not started yet."))
    # An expert without a profile yet is served with the defaults (serving creates it on the first pull).
    profile = ExpertProfile.objects.filter(user_id=expert.pk).first() or ExpertProfile(user=expert)
    if profile.availability == ExpertProfile.Availability.PAUSED:
        why = pause_reason_text(profile.availability_reason)
        text = _("Your work is paused by an admin: %(reason)s") % {"reason": why} if why else _("Your work is paused by an admin.")
        return reason("expert_paused", text + " " + _("They will contact you to resume it."))
    if profile.availability == ExpertProfile.Availability.AWAY:
        return reason(
            "expert_away",
            _("You marked yourself away. Set yourself active on your profile to get work again."),
            action_url=reverse("annotation:profile"),
            action_label=_("Open my profile"),
        )
    # Past the gates that stop work (pre-assigned work waits while they are shut), work already held is served first.
    if Assignment.objects.filter(expert_id=expert.pk, campaign_response__campaign_id=campaign.pk).open(now).exists():
        return None
    if not has_role(expert, Role.EXPERT) or not Campaign.objects.filter(pk=campaign.pk).admitting(expert).exists():
        return reason("not_listed", _("You are no longer on this campaign's list of experts; an admin decides who takes part."))
    capacity = profile.capacity
    open_work = list(
        Assignment.objects.filter(expert_id=expert.pk).open(now).order_by("reserved_at", "public_id").values_list("public_id", flat=True)
    )
    if len(open_work) >= capacity:
        return reason(
            "at_capacity",
            _("You are at capacity: finish your %(n)d open responses first.") % {"n": len(open_work)},
            action_url=reverse("annotation:judge", args=[open_work[0]]),
            action_label=_("Resume an open response"),
        )
    if campaign.kind == Campaign.Kind.CALIBRATION:
        state = serving.calibration_state(expert=expert, campaign=campaign)
        if state.passed:
            return reason("calibration_passed", _("You passed this calibration; nothing more to do in it."))
        if state.attempts and state.retake_at is None:
            return reason(
                "no_attempts_left",
                _("You have made all %(n)d attempts allowed; an administrator decides what follows.") % {"n": state.max_attempts},
            )
        if state.retake_at is not None and now < state.retake_at:
            when = formats.date_format(timezone.localtime(state.retake_at), "DATETIME_FORMAT")
            return reason("retake_later", _("A retake is possible from %(when)s.") % {"when": when}, available_from=state.retake_at)
        return None
    cfg = serving.campaign_settings(campaign)
    qualified = serving._qualified_dimensions(expert.pk, cfg.requires_qualification)
    if not serving.admits(qualified, per_dimension=cfg.qualification_per_dimension):
        return _calibration_required(expert, now, reason)
    if serving._ranked_ids(campaign, profile, cfg, qualified, now):
        return None
    if qualified is not None and "" not in qualified and serving._ranked_ids(campaign, profile, cfg, None, now):
        # A per-dimension campaign whose open work all lies in dimensions the expert is not qualified in.
        return reason(
            "dimension_not_qualified",
            _(
                "The responses still open here need a qualification in a dimension you do not hold (you hold: %(held)s). "
                "A passed calibration qualifies in every dimension; an administrator may also grant one."
            )
            % {"held": ", ".join(dimension_display(d) for d in sorted(qualified))},
        )
    return reason(
        "all_rated",
        ngettext(
            "Every response open to you has its %(k)d rater, or you judged it already. "
            "Reservations that lapse go back to the pool: check again later.",
            "Every response open to you has its %(k)d raters, or you judged it already. "
            "Reservations that lapse go back to the pool: check again later.",
            campaign.overlap,
        )
        % {"k": campaign.overlap},
    )
