"""Read models of the blind workspace: what the expert's pages and their API show, one function per screen.

The viewer is the expert, and each read model reaches only their own work: an assignment is
found by public id *and* owner (another expert's id answers 404 like an unknown one), and what
comes back names no model, no other rater, no judge verdict and no gold flag (the selectors
shape it so). The admins' corrections are the one staff screen here: they apply the viewer's
blind scope and record what they show.

The queries are those of `annotation.workspace.selectors`, called once each: the home page, the
pull and the judging page are pinned by tests to their query counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from annotation.models import Assignment, CalibrationResult, Campaign, CorrectionRequest
from annotation.services.guidelines import GuidelinesInForce, guidelines_in_force
from annotation.workspace import selectors
from annotation.workspace.filters import OwnAssignmentFilters
from heartbench_core.paging import past
from heartbench_core.read_models import Viewer, one, read_model

M = TypeVar("M", bound=Model)

# The shapes the pages render and the API serialises (built by the selectors).
CriterionRow = selectors.CriterionRow
Discussion = selectors.Discussion
JudgingPage = selectors.JudgingPage
NO_WORK_CODES = selectors.NO_WORK_CODES


def found(qs: QuerySet[M], **lookup: object) -> M:
    """`one`, answering 404 with Django's words for a missing row, as `get_object_or_404` did."""
    try:
        return one(qs, **lookup)
    except Http404:
        raise Http404(f"No {qs.model._meta.object_name} matches the given query.") from None


def owned(viewer: Viewer, assignment: Assignment) -> Assignment:
    """The assignment, when it is the viewer's own (checked on the row in hand: no query)."""
    if assignment.expert_id != viewer.user_id:
        raise Http404(_("No such work."))
    return assignment


# --- the home page and the completed-work pages -------------------------------------------------------


@dataclass(frozen=True)
class HomeScreen:
    """The expert's home: their queues (with, after an empty pull, why that campaign gave nothing), stranded work, what to prefetch."""

    home: selectors.ExpertHome
    stranded: list[selectors.StrandedWork]
    prefetch: str | None  # the public id of the first draft to resume, which the page prefetches


@read_model
def expert_home(viewer: Viewer, *, why: str = "") -> HomeScreen:
    """The home page; `why` (a campaign id, after "Next response" found nothing) has that campaign's card say why."""
    expert = viewer.person()
    home = selectors.expert_home(expert)
    prefetch = next((q.drafts[0].public_id for q in home.queues + home.calibrations if q.drafts), None)
    for queue in home.queues + home.calibrations:
        if why.isdecimal() and int(why) == queue.campaign.pk:
            queue.no_work = selectors.why_no_work(expert, queue.campaign)
    return HomeScreen(home=home, stranded=selectors.stranded_work(expert), prefetch=prefetch)


@read_model
def completed_work(viewer: Viewer, *, after: str = "") -> selectors.CompletedPage:
    """A page of the expert's own completed work, newest first, continuing after the cursor `after`."""
    return selectors.completed_page(viewer.person(), after=after)


@read_model
def own_assignments(
    viewer: Viewer, params: Mapping[str, Any] | None = None, *, after: tuple[datetime, str] | None = None
) -> QuerySet[Assignment]:
    """The expert's reserved and submitted assignments (filtered by `OwnAssignmentFilters`), newest first; past the keyset `after` when given."""
    rows = OwnAssignmentFilters(params).check().narrow(selectors.own_assignments(viewer.person()))
    return rows if after is None else rows.filter(past(after, "reserved_at"))


@read_model
def own_assignment_count(viewer: Viewer, params: Mapping[str, Any] | None = None) -> int:
    """How many assignments `own_assignments` lists, from the expert's tallies (one query)."""
    return selectors.own_assignment_count(viewer.person(), OwnAssignmentFilters(params).check().values.get("status"))


# --- a campaign of the workspace -------------------------------------------------------------------


@read_model
def expert_campaign(viewer: Viewer, campaign_id: int) -> Campaign:
    """One campaign of the expert's workspace (with its settings, which serving reads), else 404."""
    return found(selectors.campaigns_for_expert(viewer.person()).select_related("settings"), pk=campaign_id)


@dataclass(frozen=True)
class ExpertCampaign:
    """A campaign as its expert sees it: its settings, the guidelines in force, and why it gives no new work (None when it does)."""

    campaign: Campaign
    guidelines: GuidelinesInForce | None
    no_work: selectors.NoWork | None


@read_model
def campaign_card(viewer: Viewer, campaign_id: int) -> ExpertCampaign:
    campaign = expert_campaign(viewer, campaign_id)
    return ExpertCampaign(
        campaign=campaign, guidelines=guidelines_in_force(campaign), no_work=selectors.why_no_work(viewer.person(), campaign)
    )


@read_model
def own_progress(viewer: Viewer, campaign: Campaign) -> selectors.OwnProgress:
    """The expert's own done / assigned in the campaign (two single-row reads)."""
    return selectors.own_progress(viewer.person().pk, campaign)


# --- the expert's own work ---------------------------------------------------------------------------


@read_model
def own_work(viewer: Viewer, public_id: str, *, lapsed_too: bool = False) -> Assignment:
    """The expert's own held assignment (with its response, item and campaign), else 404; `lapsed_too` finds their expired or released work too."""
    return selectors.assignment_for_expert(viewer.person(), public_id, lapsed_too=lapsed_too)


@read_model
def own_work_ref(viewer: Viewer, public_id: str) -> Assignment:
    """`own_work` for writes whose service locks and re-reads the row: the same 404, a lighter read."""
    return selectors.assignment_ref_for_expert(viewer.person(), public_id)


@read_model
def judging_page(viewer: Viewer, assignment: Assignment, *, with_guidelines: bool = True, reread: bool = False) -> selectors.JudgingPage:
    """The judging page of one of the expert's assignments; `reread` first reloads the row (after a refused write)."""
    owned(viewer, assignment)
    if reread:
        assignment.refresh_from_db()
    return selectors.judging_page(assignment, with_guidelines=with_guidelines)


@read_model
def judging_screen(viewer: Viewer, public_id: str, *, lapsed_too: bool = True) -> selectors.JudgingPage:
    """The judging page by public id (the page and the API's assignment): the expert's own lapsed work opens too, unless told otherwise."""
    return judging_page(viewer, own_work(viewer, public_id, lapsed_too=lapsed_too))


@read_model
def attempt_finished_by(viewer: Viewer, assignment: Assignment) -> CalibrationResult | None:
    """The calibration attempt the submission of the expert's assignment completed, if it completed one."""
    return selectors.attempt_finished_by(owned(viewer, assignment))


@read_model
def calibration_outcome(viewer: Viewer, result_id: int) -> selectors.CalibrationOutcome:
    """One of the expert's own finished calibration attempts and what follows it; another's or an unknown id answers 404."""
    return selectors.calibration_outcome(viewer.person(), result_id)


@read_model
def discussion(viewer: Viewer, assignment: Assignment) -> selectors.Discussion:
    """The thread of the expert's own response, pseudonymous; 404 while it is closed to them."""
    return selectors.discussion(owned(viewer, assignment))


@read_model
def own_corrections(viewer: Viewer, assignment: Assignment) -> list[CorrectionRequest]:
    """The expert's correction requests on their own assignment, newest first."""
    return list(owned(viewer, assignment).correction_requests.order_by("-created_at"))


# --- admins: corrections --------------------------------------------------------------------------------


def _shown(viewer: Viewer, corrections: Sequence[CorrectionRequest], via: str) -> None:
    viewer.shown([c.assignment.campaign_response.response_id for c in corrections], via=via)


@read_model
def pending_corrections(viewer: Viewer) -> list[CorrectionRequest]:
    """Corrections waiting for an admin, without those of a campaign the viewer is blind to (recorded as shown)."""
    pending = selectors.pending_corrections()
    hidden = viewer.scope.hidden_among(c.assignment.campaign_response.response_id for c in pending)
    pending = [c for c in pending if c.assignment.campaign_response.response_id not in hidden]
    _shown(viewer, pending, "corrections")
    return pending


@read_model
def corrections(viewer: Viewer, *, status: str, campaign: Campaign | None) -> QuerySet[CorrectionRequest]:
    """Correction requests of a status ("all": any), of one campaign when given, without the datasets the viewer is blind to."""
    rows = CorrectionRequest.objects.select_related(
        "assignment__expert", "assignment__campaign_response__campaign", "assignment__campaign_response__item"
    )
    if status != "all":
        rows = rows.filter(status=status)
    if campaign is not None:
        rows = rows.filter(assignment__campaign_response__campaign=campaign)
    return viewer.visible_responses(rows, "assignment__campaign_response__response_id")


@read_model
def corrections_shown(viewer: Viewer, page: Sequence[CorrectionRequest]) -> Sequence[CorrectionRequest]:
    """A page of `corrections` as served: recorded as shown to the viewer (they show other raters' judgments)."""
    _shown(viewer, page, "api-corrections")
    return page


@read_model
def correction_to_decide(viewer: Viewer, correction_id: int) -> CorrectionRequest:
    """A correction request an admin decides, else 404; refused with the reason when its campaign is closed to the viewer."""
    correction = found(CorrectionRequest.objects.select_related("assignment__campaign_response"), pk=correction_id)
    viewer.refuse_response(correction.assignment.campaign_response.response_id)
    return correction
