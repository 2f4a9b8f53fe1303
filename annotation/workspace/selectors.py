"""Reads of the blind workspace: an expert's queues and the judging page.

Everything here is scoped to one expert and shaped for them: no model, no other expert's
judgment, no verdict, no gold flag ever leaves these functions. Each function runs a fixed
number of queries whatever the size of the item or the queue.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from annotation.models import (
    Assignment,
    Campaign,
    CampaignResponse,
    CorrectionRequest,
    DiscussionComment,
    DiscussionVote,
    ItemProblemReport,
    Judgment,
    UnclearCriterionReport,
)
from annotation.services.workspace import JudgmentRow, discussion_cohort, discussion_open_for
from heartbench_core.lib.taxonomy import english_name
from heartbench_core.models import Criterion, User


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
    can_take_more: bool = True


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


def assignment_for_expert(expert: User, public_id: str) -> Assignment:
    """The expert's own assignment with that public id (with its response, item and campaign), else 404."""
    return _own_or_404(
        Assignment.objects.select_related("campaign_response__campaign", "campaign_response__item", "campaign_response__response"),
        expert,
        public_id,
    )


def assignment_ref_for_expert(expert: User, public_id: str) -> Assignment:
    """The same check as `assignment_for_expert` (404 otherwise), loading only what a write needs to find the row.

    For autosave, time on task and submit, whose services lock and re-read the assignment
    anyway: the dialogue and the response text are not read for nothing on every keystroke pause.
    """
    return _own_or_404(Assignment.objects.only("pk", "public_id", "status", "expert_id", "campaign_response_id"), expert, public_id)


def _own_or_404(queryset: QuerySet[Assignment], expert: User, public_id: str) -> Assignment:
    # Another expert's work, released or expired work and unknown ids answer alike.
    found = queryset.filter(public_id=public_id, expert_id=expert.pk).first()
    if found is None or found.status not in Assignment.HELD_STATUSES:
        raise Http404("No such work.")
    return found


def own_assignments(expert: User) -> QuerySet[Assignment]:
    """The expert's reserved and submitted assignments, newest first (for the API list)."""
    return (
        Assignment.objects.filter(expert_id=expert.pk)
        .held()
        .select_related("campaign_response__campaign", "campaign_response__item")
        .order_by("-reserved_at", "public_id")
    )


def campaigns_for_expert(expert: User) -> QuerySet[Campaign]:
    """The campaigns of the expert's workspace: those they take part in, but no drafts and no gold sets (nobody judges in those)."""
    return Campaign.objects.taking_part(expert).exclude(status=Campaign.Status.DRAFT).exclude(kind=Campaign.Kind.GOLD_SET)


def expert_home(expert: User, *, completed_limit: int = 100) -> ExpertHome:
    """The expert's queue per campaign, drafts to resume, calibrations to take and their own completed work."""
    campaigns = {c.pk: c for c in campaigns_for_expert(expert).select_related("settings").annotate(response_total=Count("responses"))}
    mine = list(
        Assignment.objects.filter(expert_id=expert.pk)
        .held()
        .select_related("campaign_response__item")
        .only(
            "public_id",
            "status",
            "reserved_at",
            "submitted_at",
            "draft_saved_at",
            "expires_at",
            "campaign_response__campaign_id",
            "campaign_response__item__question_id",
        )
        .order_by("reserved_at", "public_id")
    )
    by_campaign: dict[int, list[Assignment]] = defaultdict(list)
    for a in mine:
        by_campaign[a.campaign_response.campaign_id].append(a)
    submitted = [a for a in mine if a.status == Assignment.Status.SUBMITTED]
    # Submitters of each response in submission order: a thread opens per cohort of k of them.
    order: dict[int, list[int]] = defaultdict(list)
    if submitted:
        for cr_id, expert_id in (
            Assignment.objects.filter(campaign_response_id__in=[a.campaign_response_id for a in submitted])
            .submitted()
            .order_by("campaign_response_id", "submitted_at", "id")
            .values_list("campaign_response_id", "expert_id")
        ):
            order[cr_id].append(expert_id)

    queues: list[CampaignQueue] = []
    calibrations: list[CampaignQueue] = []
    for campaign in sorted(campaigns.values(), key=lambda c: (c.name.lower(), c.pk)):
        own = by_campaign.get(campaign.pk, [])
        done = sum(1 for a in own if a.status == Assignment.Status.SUBMITTED)
        queue = CampaignQueue(
            campaign=campaign,
            progress=OwnProgress(done=done, assigned=len(own), total=_attempt_total(campaign, campaign.response_total)),
            drafts=[a for a in own if a.status == Assignment.Status.RESERVED],
            can_take_more=campaign.status == Campaign.Status.ACTIVE,
        )
        (calibrations if campaign.kind == Campaign.Kind.CALIBRATION else queues).append(queue)

    completed = []
    # Submitted work always has its submission time; the reservation time only stands in for the type checker.
    for a in sorted(submitted, key=lambda a: a.submitted_at or a.reserved_at, reverse=True)[:completed_limit]:
        its_campaign = campaigns.get(a.campaign_response.campaign_id)
        submitters = order.get(a.campaign_response_id, [])
        open_ = (
            its_campaign is not None
            and expert.pk in submitters
            and discussion_cohort(campaign=its_campaign, position=submitters.index(expert.pk), submitted=len(submitters)) is not None
        )
        completed.append(CompletedWork(assignment=a, question_id=a.campaign_response.item.question_id, discussion_open=open_))
    return ExpertHome(queues=queues, calibrations=calibrations, completed=completed)


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
        return not self.submitted

    @property
    def judged_count(self) -> int:
        return sum(1 for r in self.rows if r.hit is not None)


def criterion_kind(criterion: Criterion) -> str:
    """reward, penalty (a hit lowers the score) or catastrophic (其他)."""
    if criterion.catastrophic:
        return "catastrophic"
    return "penalty" if criterion.is_penalty else "reward"


def judging_page(assignment: Assignment) -> JudgingPage:
    """Everything the judging page shows, for the expert who owns the assignment."""
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
    )


def own_progress(expert_id: int, campaign: Campaign) -> OwnProgress:
    """The expert's done / assigned in a campaign, over what they work through (all of a blind test, one sitting of a calibration)."""
    mine = Assignment.objects.filter(expert_id=expert_id, campaign_response__campaign_id=campaign.pk).aggregate(
        done=Count("id", filter=Q(status=Assignment.Status.SUBMITTED)),
        assigned=Count("id", filter=Q(status__in=Assignment.HELD_STATUSES)),
    )
    total = CampaignResponse.objects.filter(campaign_id=campaign.pk).count()
    return OwnProgress(done=mine["done"], assigned=mine["assigned"], total=_attempt_total(campaign, total))


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
        raise Http404("No such discussion.")
    cr_id = assignment.campaign_response_id
    submitters = list(
        Assignment.objects.filter(campaign_response_id=cr_id).submitted().order_by("submitted_at", "id").values_list("expert_id", flat=True)
    )
    cohort = discussion_cohort(campaign=page.campaign, position=submitters.index(assignment.expert_id), submitted=len(submitters))
    if cohort is None:
        raise Http404("No such discussion.")
    judges = submitters[cohort]
    # Pseudonyms follow submission order within the cohort, so they are stable and reveal no username.
    labels = {expert_id: f"Expert {i}" for i, expert_id in enumerate(judges, start=1)}
    numbers = {r.criterion.pk: r.number for r in page.rows}
    comments = [
        DiscussionEntry(
            author_label="You" if c.author_id == assignment.expert_id else labels.get(c.author_id, "A participant"),
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
