"""Writes of the blind workspace: drafts, time on task, submission, reports, corrections, discussion.

Every function takes the acting expert and refuses work that is not theirs (PermissionDenied;
the views have already answered 404 by then). Messages never name another expert, a model or
a verdict: they are shown to experts as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, F, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import (
    Assignment,
    Campaign,
    CampaignResponse,
    CorrectionRequest,
    DiscussionComment,
    DiscussionVote,
    ExpertProfile,
    ItemProblemReport,
    Judgment,
    Skip,
    UnclearCriterionReport,
)
from annotation.services import assignment as serving
from annotation.services import quality, split_extension
from annotation.services.guidelines import guidelines_in_force
from annotation.signals import assignment_submitted
from heartbench_core.api_errors import CONFLICT_CODE
from heartbench_core.models import Criterion, StaffExposure, User
from heartbench_core.roles import Role, has_role

RATIONALE_MAX_CHARS = 4000
COMMENT_MAX_CHARS = 4000
# A browser reports visible time at least once a minute; a larger report is clipped so a stray
# client cannot inflate time on task.
MAX_ACTIVE_SECONDS_PER_REPORT = 120
# HeartBench items have at most 22 criteria; a cursor beyond this is malformed input.
MAX_CURSOR = 200


@dataclass(frozen=True)
class DraftEntry:
    """The expert's current rationale and hit/miss (None: not yet marked) for one criterion."""

    criterion_id: int
    rationale: str = ""
    hit: bool | None = None


class SavedJudgment(TypedDict):
    """One criterion's judgment as the draft now holds it (what a refused save is told, to merge with)."""

    criterion: int
    rationale: str
    hit: bool | None


class DraftConflict(ValidationError):
    """The draft moved on since the version a save or submission was based on (another tab or client saved); nothing was written.

    Carries the draft as it now stands (`current`: version, saved_at, judgments), so a client
    can merge and send again based on the current version; the API answers it with 409.
    """

    def __init__(self, *, based_on: int, version: int, saved_at: datetime | None, judgments: list[SavedJudgment]) -> None:
        super().__init__(
            _(
                "The draft changed since version %(based_on)d (another tab or client saved version %(version)d): nothing was "
                "written. Merge with the current judgments and send them again based on version %(version)d."
            )
            % {"based_on": based_on, "version": version},
            code=CONFLICT_CODE,
        )
        self.version = version
        self.current = {"version": version, "saved_at": saved_at, "judgments": judgments}


class JudgmentRow(TypedDict):
    """One criterion's judgment as a correction request stores it (its `original` and `proposed` lists)."""

    criterion: int
    position: int
    rationale: str
    hit: bool | None


# --- drafts and time on task ---------------------------------------------------------------


def save_draft(
    *,
    assignment: Assignment,
    expert: User,
    entries: list[DraftEntry],
    active_seconds: int = 0,
    cursor: int | None = None,
    based_on: int | None = None,
) -> Assignment:
    """Upsert the given criteria's rationale and hit/miss on an open assignment of this expert.

    A draft may hold a hit/miss whose rationale is still short (the expert may be rewriting it);
    `submit_assignment` is where reasoning-before-scoring is enforced. Saving keeps the
    reservation alive, and records `cursor` (the position, from 1, of the criterion the expert
    is on) when given, so a reload returns there. Runs a fixed number of queries whatever the
    number of criteria.

    Every save moves the draft to its next version (`draft_version`). `based_on` is the version
    the caller's copy was based on (the page and the API always send it): when the draft has moved
    on meanwhile, nothing is written and `DraftConflict` says what it holds now. None saves
    whatever the version (internal callers only).
    """
    if cursor is not None and not 1 <= cursor <= MAX_CURSOR:
        raise ValidationError({"cursor": _("cursor is the position of a criterion, from 1 to %(n)d.") % {"n": MAX_CURSOR}})
    with transaction.atomic():
        locked = _lock_open(assignment, expert)
        _check_entries(locked, entries)
        now = timezone.now()
        # The row is locked, so its new values are known here: one UPDATE and no read-back.
        locked.active_seconds = locked.active_seconds + _clip_seconds(active_seconds)
        changes: dict[str, object] = {"draft_saved_at": now, "active_seconds": locked.active_seconds}
        if cursor is not None:
            changes["cursor"] = cursor
        if locked.expires_at is not None:
            changes["expires_at"] = now + locked.campaign_response.campaign.reservation_timeout
        _claim_next_version(locked, based_on, changes, entries)
        for field, value in changes.items():
            setattr(locked, field, value)
        if entries:
            Judgment.objects.bulk_create(
                [
                    Judgment(assignment=locked, criterion_id=e.criterion_id, rationale=e.rationale, hit=e.hit, updated_at=now)
                    for e in entries
                ],
                update_conflicts=True,
                unique_fields=["assignment", "criterion"],
                update_fields=["rationale", "hit", "updated_at"],
            )
        return locked


def _claim_next_version(
    locked: Assignment, based_on: int | None, changes: dict[str, object], entries: list[DraftEntry] | None = None
) -> None:
    """Write `changes` and the draft's next version, if the draft is still at `based_on` (else DraftConflict, nothing written).

    One conditional UPDATE (`WHERE draft_version = <the version read under the lock>`), the
    transaction's first write: of two saves based on the same version only one matches, on SQLite
    as on PostgreSQL, whatever the row lock did. A save based on an older version that would write
    exactly what the draft holds (a retry whose first answer was lost) overwrites nothing, so it
    goes through; any other is refused.
    """
    if based_on is not None and based_on != locked.draft_version:
        current = _saved_judgments(locked)
        if not entries or not _writes_nothing(entries, current):
            raise _conflict(locked, based_on, current)
    if not Assignment.objects.filter(pk=locked.pk, draft_version=locked.draft_version).update(
        draft_version=locked.draft_version + 1, **changes
    ):
        raise _conflict(locked, locked.draft_version, _saved_judgments(locked))
    locked.draft_version += 1


def _saved_judgments(locked: Assignment) -> list[SavedJudgment]:
    return [
        {"criterion": cid, "rationale": rationale, "hit": hit}
        for cid, rationale, hit in Judgment.objects.filter(assignment_id=locked.pk)
        .order_by("criterion_id")
        .values_list("criterion_id", "rationale", "hit")
    ]


def _writes_nothing(entries: list[DraftEntry], saved: list[SavedJudgment]) -> bool:
    held = {row["criterion"]: (row["rationale"], row["hit"]) for row in saved}
    return all(held.get(e.criterion_id, ("", None)) == (e.rationale, e.hit) for e in entries)


def _conflict(locked: Assignment, based_on: int, judgments: list[SavedJudgment]) -> DraftConflict:
    """The refusal of a write based on an older version, with the draft as it stands now."""
    now = Assignment.objects.filter(pk=locked.pk).values("draft_version", "draft_saved_at").get()
    return DraftConflict(based_on=based_on, version=now["draft_version"], saved_at=now["draft_saved_at"], judgments=judgments)


def record_active_time(*, assignment: Assignment, expert: User, seconds: int) -> int:
    """Add time on task (seconds with the page visible) to an open assignment; return the new total."""
    with transaction.atomic():
        locked = _lock_open(assignment, expert)
        Assignment.objects.filter(pk=locked.pk).update(active_seconds=F("active_seconds") + _clip_seconds(seconds))
        locked.refresh_from_db(fields=["active_seconds"])
        return locked.active_seconds


# --- submission ------------------------------------------------------------------------------


def submit_assignment(*, assignment: Assignment, expert: User, active_seconds: int = 0, based_on: int | None = None) -> Assignment:
    """Submit an assignment whose every criterion has a rationale and then a hit/miss; immutable afterwards.

    `based_on` is the draft version the caller saw, as for `save_draft`: a draft that moved on
    since (another tab saved) is not submitted unseen (DraftConflict).
    """
    with transaction.atomic():
        locked = _lock_open(assignment, expert)
        if based_on is not None and based_on != locked.draft_version:
            raise _conflict(locked, based_on, _saved_judgments(locked))
        campaign = locked.campaign_response.campaign
        if locked.expires_at is None:
            # Pre-assigned work of a paused or closed campaign, or of an expert paused or away, is on
            # hold: neither served nor submitted (so neither paid) until it resumes; the draft stays.
            why = serving.hold_reason(campaign=campaign, profile=ExpertProfile.objects.filter(user_id=expert.pk).first())
            if why:
                raise ValidationError(
                    {"assignment": _("This work is on hold: %(why)s Your draft is kept; submit it once the work resumes.") % {"why": why}}
                )
        criteria = list(Criterion.objects.filter(item_id=locked.campaign_response.item_id).order_by("position").only("id", "position"))
        # Plain rows: judgments loaded through the assignment with deferred fields cost one
        # more query each.
        judged = {
            cid: (rationale, hit)
            for cid, rationale, hit in Judgment.objects.filter(assignment_id=locked.pk).values_list("criterion_id", "rationale", "hit")
        }
        errors = _completeness_errors(criteria, judged, campaign.rationale_min_chars)
        if errors:
            raise ValidationError(errors)
        now = timezone.now()
        locked.status = Assignment.Status.SUBMITTED
        locked.submitted_at = now
        locked.active_seconds = locked.active_seconds + _clip_seconds(active_seconds)
        # The guidelines the expert worked under, so a later revision never hides which text a verdict followed.
        in_force = guidelines_in_force(campaign)
        locked.guidelines_source = in_force.source if in_force else ""
        locked.guidelines_revision = in_force.revision if in_force else None
        _claim_next_version(
            locked,
            based_on,
            {
                "status": locked.status,
                "submitted_at": now,
                "active_seconds": locked.active_seconds,
                "guidelines_source": locked.guidelines_source,
                "guidelines_revision": locked.guidelines_revision,
            },
        )
        _after_submit(locked)
        return locked


def submit_with_draft(
    *, assignment: Assignment, expert: User, entries: list[DraftEntry], active_seconds: int = 0, based_on: int | None = None
) -> Assignment:
    """`submit_assignment`, the posted entries saved on their own first, so a refused submission loses nothing of what was typed."""
    if entries:
        based_on = save_draft(assignment=assignment, expert=expert, entries=entries, based_on=based_on).draft_version
    return submit_assignment(assignment=assignment, expert=expert, active_seconds=active_seconds, based_on=based_on)


def _after_submit(assignment: Assignment) -> None:
    # Calibration scoring and continuous gold checks belong to the quality service.
    quality.after_submit(assignment=assignment)
    # A response whose k verdicts split may be offered to two more experts (the campaign's option).
    split_extension.after_submit(assignment=assignment)
    # Apps above this one (the golden standard) react once the submission is durable.
    transaction.on_commit(lambda: assignment_submitted.send(sender=Assignment, assignment=assignment))


def criterion_error_key(criterion_id: int) -> str:
    """The ValidationError key under which a criterion's problems are reported."""
    return f"criterion_{criterion_id}"


def _completeness_errors(criteria: list[Criterion], judged: dict[int, tuple[str, bool | None]], min_chars: int) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for criterion in criteria:
        rationale, hit = judged.get(criterion.id, ("", None))
        rationale = (rationale or "").strip()
        number = criterion.position + 1
        if len(rationale) < max(min_chars, 1):
            errors[criterion_error_key(criterion.id)] = [
                _("Criterion %(number)d: write a rationale of at least %(min_chars)d characters, then mark hit or miss.")
                % {"number": number, "min_chars": max(min_chars, 1)}
            ]
        elif hit is None:
            errors[criterion_error_key(criterion.id)] = [_("Criterion %(number)d: mark hit or miss.") % {"number": number}]
    return errors


# --- stranded work: a draft whose reservation lapsed -------------------------------------------

# A slot filled meanwhile is a conflict (the API answers 409), not bad input.
RECLAIM_TAKEN = CONFLICT_CODE


def reclaim_assignment(*, assignment: Assignment, expert: User) -> Assignment:
    """Reserve again, with its draft, a response whose reservation of this expert lapsed, if its slot is still open.

    The same rules as serving: the campaign takes work, the expert is active, listed and under
    capacity, and the response has fewer than k live assignments (counted under the response's
    lock). One rule for every response, so the answer never tells a hidden gold check from an
    ordinary one. Refusals are ValidationErrors on `assignment`; a slot filled meanwhile is a plain
    ValidationError with the code `RECLAIM_TAKEN` (a conflict: the API answers 409). Returns the
    assignment, reserved again (its judgments untouched).
    """
    with transaction.atomic():
        profile = serving._profile_for_update(expert)
        own = _own(assignment, expert, lock=True)
        now = timezone.now()
        if own.status == Assignment.Status.SUBMITTED:
            raise ValidationError({"assignment": _("This response was already submitted.")})
        if own.status == Assignment.Status.RESERVED and (own.expires_at is None or own.expires_at > now):
            return own
        if Skip.objects.filter(assignment_id=own.pk).exists():
            raise ValidationError({"assignment": _("You skipped this response: it goes to other experts, not back to you.")})
        campaign = own.campaign_response.campaign
        if campaign.status != Campaign.Status.ACTIVE:
            raise ValidationError({"assignment": _("The campaign is not taking work at the moment.")})
        if profile.availability != ExpertProfile.Availability.ACTIVE:
            raise ValidationError({"assignment": _("Your work is paused or you are away: you cannot take work now.")})
        if not has_role(expert, Role.EXPERT) or not Campaign.objects.filter(pk=campaign.pk).admitting(expert).exists():
            raise ValidationError({"assignment": _("You are no longer on this campaign's list of experts.")})
        if Assignment.objects.filter(expert_id=expert.pk).open(now).count() >= profile.capacity:
            raise ValidationError(
                {"assignment": _("You are at capacity: finish one of your open responses first, then take this one back.")}
            )
        response = CampaignResponse.objects.select_for_update(no_key=True, of=("self",)).get(pk=own.campaign_response_id)
        exposed = StaffExposure.objects.filter(user_id=expert.pk, response_id=response.response_id).exists()
        live = Assignment.objects.filter(campaign_response_id=response.pk).live(now).exclude(pk=own.pk).count()
        if exposed or live >= max(campaign.overlap, 1) + response.extra_raters:
            raise ValidationError(_("This response went to other experts meanwhile."), code=RECLAIM_TAKEN)
        own.status = Assignment.Status.RESERVED
        own.expires_at = now + campaign.reservation_timeout
        Assignment.objects.filter(pk=own.pk).update(status=own.status, expires_at=own.expires_at)
        return own


# --- skipping a response the expert cannot judge --------------------------------------------


def skip_assignment(*, assignment: Assignment, expert: User, reason: str, note: str = "") -> Skip:
    """Give up an open response of a blind test with a reason; it goes back to the pool for another expert, never to this one.

    The release is `assignment.release_assignment`'s; the expert is never served the response
    again (an expert has one assignment per response, whatever became of it) nor may take it back
    (`reclaim_assignment`). The draft stays on the released assignment: nothing typed is lost. A
    skip is not work: it is neither counted as done nor paid. One rule for every response, so
    neither the answer nor its cost tells a hidden gold check from an ordinary one.
    """
    if reason not in Skip.Reason.values:
        raise ValidationError({"reason": _("Choose why you skip this response.")})
    note = (note or "").strip()
    if reason == Skip.Reason.OTHER and not note:
        raise ValidationError({"note": _("Say why you skip this response.")})
    if len(note) > COMMENT_MAX_CHARS:
        raise ValidationError({"note": _("At most %(n)d characters.") % {"n": COMMENT_MAX_CHARS}})
    if "\x00" in note:
        raise ValidationError({"note": _("This note contains a NUL character, which cannot be stored: remove it.")})
    with transaction.atomic():
        locked = _lock_open(assignment, expert)
        campaign = locked.campaign_response.campaign
        if campaign.kind != Campaign.Kind.BLIND_TEST:
            # A calibration sitting is fixed and scored as a whole: a skipped item would leave it unfinishable.
            raise ValidationError({"assignment": _("Calibration items cannot be skipped: every expert judges the same sitting.")})
        skip = Skip.objects.create(assignment=locked, campaign=campaign, expert=expert, reason=reason, note=note)
        serving.release_assignment(assignment=locked, by=expert)
    assignment.status = Assignment.Status.RELEASED
    return skip


# --- reports ---------------------------------------------------------------------------------


def report_unclear_criterion(*, assignment: Assignment, expert: User, criterion_id: int, comment: str) -> UnclearCriterionReport:
    """Record that a criterion of this expert's response is unclear (goes to the rubric authors' work list)."""
    comment = _required_text(comment, "comment", _("Say what is unclear about the criterion."))
    with transaction.atomic():
        own = _own(assignment, expert)
        if not Criterion.objects.filter(pk=criterion_id, item_id=own.campaign_response.item_id).exists():
            raise ValidationError({"criterion": _("This criterion is not part of the response's rubric.")})
        return UnclearCriterionReport.objects.create(assignment=own, criterion_id=criterion_id, comment=comment)


def report_item_problem(*, assignment: Assignment, expert: User, comment: str) -> ItemProblemReport:
    """Record a problem with the item or the response as a whole."""
    comment = _required_text(comment, "comment", _("Describe the problem."))
    with transaction.atomic():
        own = _own(assignment, expert)
        return ItemProblemReport.objects.create(assignment=own, comment=comment)


# --- corrections -----------------------------------------------------------------------------


def request_correction(*, assignment: Assignment, expert: User, reason: str, entries: list[DraftEntry]) -> CorrectionRequest:
    """Ask to replace submitted judgments with corrected ones; both versions are kept."""
    reason = _required_text(reason, "reason", _("Give a reason for the correction."))
    with transaction.atomic():
        own = _own(assignment, expert, lock=True)
        if own.status != Assignment.Status.SUBMITTED:
            raise ValidationError(_("Only submitted work can be corrected; a draft can still be edited directly."))
        if CorrectionRequest.objects.filter(assignment=own, status=CorrectionRequest.Status.PENDING).exists():
            raise ValidationError(_("A correction of this response is already waiting for a decision."))
        _check_entries(own, entries)
        criteria = list(Criterion.objects.filter(item_id=own.campaign_response.item_id).order_by("position").only("id", "position"))
        after_discussion = is_post_discussion(own)
        # A further revision after the discussion starts from the standing revision, so the newest
        # one (the one the post-discussion view reads) holds every change the expert made.
        revision = standing_revision(own) if after_discussion else None
        if revision is not None:
            current = {row["criterion"]: (row["rationale"], row["hit"]) for row in revision}
        else:
            current = {j.criterion_id: (j.rationale, j.hit) for j in own.judgments.all()}
        proposed = dict(current)
        proposed.update({e.criterion_id: (e.rationale.strip(), e.hit) for e in entries})
        errors = _completeness_errors(criteria, proposed, own.campaign_response.campaign.rationale_min_chars)
        if errors:
            raise ValidationError(errors)
        original_rows = _rows(criteria, current)
        proposed_rows = _rows(criteria, proposed)
        if original_rows == proposed_rows:
            raise ValidationError({"judgments": _("The correction changes nothing.")})
        return CorrectionRequest.objects.create(
            assignment=own,
            reason=reason,
            original=original_rows,
            proposed=proposed_rows,
            # The row is locked, so the seen marker read here cannot change before the request exists.
            after_discussion=after_discussion,
        )


def is_post_discussion(assignment: Assignment) -> bool:
    """Whether a correction requested now would no longer be blind (a revision, not a blind verdict).

    It is not once the expert has seen the response's discussion (other raters' stances), or once
    a staff view showed them the response with other raters' judgments or the judge's verdicts
    (a user who is also staff, after the campaign closed): either way their verdict is informed.
    """
    if assignment.discussion_seen_at is not None:
        return True
    return StaffExposure.objects.filter(user_id=assignment.expert_id, response_id=assignment.campaign_response.response_id).exists()


def standing_revision(assignment: Assignment) -> list[JudgmentRow] | None:
    """The rows of the assignment's newest accepted post-discussion revision, or None when it has none."""
    return (
        CorrectionRequest.objects.filter(assignment_id=assignment.pk, status=CorrectionRequest.Status.ACCEPTED, after_discussion=True)
        .order_by("-decided_at", "-id")
        .values_list("proposed", flat=True)
        .first()
    )


def decide_correction(*, correction: CorrectionRequest, admin: User, accept: bool, note: str = "") -> CorrectionRequest:
    """Accept or refuse a pending correction; admins only.

    Accepting a correction requested before the expert saw the discussion applies it to the
    judgments; accepting one requested after records it as a post-discussion revision and
    leaves the blind verdict (the Judgment rows) as submitted.
    """
    if not has_role(admin, Role.ADMIN):
        raise PermissionDenied(_("Only an admin decides corrections."))
    with transaction.atomic():
        locked = CorrectionRequest.objects.select_for_update().get(pk=correction.pk)
        if locked.status != CorrectionRequest.Status.PENDING:
            raise ValidationError(_("This correction was already %(status)s.") % {"status": locked.get_status_display().lower()})
        now = timezone.now()
        # Once other raters' stances were seen, the verdict is no longer blind: the golden
        # standard and every statistic keep the verdict as submitted, and the accepted request
        # itself (its `proposed`) is the revision the post-discussion view of agreement reads.
        if accept and not locked.after_discussion:
            # The database guard lets judgments of a submitted assignment change only while
            # their correction is being applied, inside this transaction.
            locked.status = CorrectionRequest.Status.APPLYING
            locked.save(update_fields=["status"])
            by_criterion = {row["criterion"]: row for row in locked.proposed}
            judgments = list(Judgment.objects.filter(assignment_id=locked.assignment_id, criterion_id__in=by_criterion))
            for judgment in judgments:
                row = by_criterion[judgment.criterion_id]
                judgment.rationale, judgment.hit, judgment.updated_at = row["rationale"], row["hit"], now
            Judgment.objects.bulk_update(judgments, ["rationale", "hit", "updated_at"])
            missing = set(by_criterion) - {j.criterion_id for j in judgments}
            Judgment.objects.bulk_create(
                [
                    Judgment(
                        assignment_id=locked.assignment_id,
                        criterion_id=cid,
                        rationale=by_criterion[cid]["rationale"],
                        hit=by_criterion[cid]["hit"],
                    )
                    for cid in sorted(missing)
                ]
            )
        locked.status = CorrectionRequest.Status.ACCEPTED if accept else CorrectionRequest.Status.REFUSED
        locked.decided_by = admin
        locked.decided_at = now
        locked.decision_note = note.strip()
        locked.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
        return locked


def _rows(criteria: list[Criterion], judged: dict[int, tuple[str, bool | None]]) -> list[JudgmentRow]:
    return [
        {"criterion": c.id, "position": c.position, "rationale": judged[c.id][0], "hit": judged[c.id][1]}
        for c in criteria
        if c.id in judged
    ]


# --- discussion ------------------------------------------------------------------------------


def discussion_cohort(*, campaign: Campaign, position: int, submitted: int) -> slice | None:
    """The submission positions of an expert's discussion cohort, or None while their thread is not open.

    The one definition of who discusses a blind-test response together (the home page, the
    judging page, the thread and every write use it). Raters are grouped by submission order
    into cohorts of k (`position` is the expert's 0-based place in that order, `submitted` how
    many have submitted). An ordinary response has one cohort, its k raters; a hidden gold
    check, judged by more experts than k, gets one thread per cohort, so its discussion looks
    exactly like an ordinary one. A cohort opens when its k raters have submitted; once the
    campaign is closed, a short cohort opens among whoever judged (an ordinary response left
    with fewer than k raters, or a gold check's last cohort), so neither waits for ever and
    a thread that never opened marks nothing.
    """
    if campaign.kind != Campaign.Kind.BLIND_TEST or not 0 <= position < submitted:
        return None
    k = max(campaign.overlap, 1)
    start = (position // k) * k
    if submitted >= start + k:
        return slice(start, start + k)
    if campaign.status == Campaign.Status.CLOSED:
        return slice(start, submitted)
    return None


def discussion_open_for(assignment: Assignment) -> bool:
    """Whether the assignment's expert may read and write its response's discussion (one count query)."""
    if assignment.status != Assignment.Status.SUBMITTED:
        return False
    own_time = Subquery(Assignment.objects.filter(pk=assignment.pk).values("submitted_at")[:1])
    counts = Assignment.objects.filter(campaign_response_id=assignment.campaign_response_id, status=Assignment.Status.SUBMITTED).aggregate(
        total=Count("id"),
        before=Count("id", filter=Q(submitted_at__lt=own_time) | Q(submitted_at=own_time, id__lt=assignment.pk)),
    )
    return (
        discussion_cohort(campaign=assignment.campaign_response.campaign, position=counts["before"], submitted=counts["total"]) is not None
    )


def mark_discussion_seen(*, assignment: Assignment, expert: User) -> None:
    """Record, once, that the expert has seen the response's discussion: later corrections are post-discussion revisions.

    Called wherever the thread's content (other raters' stances and comments) is shown or
    written to, after the thread was found open. One UPDATE the first time, none afterwards.
    """
    if assignment.discussion_seen_at is not None:
        return
    now = timezone.now()
    if Assignment.objects.filter(pk=assignment.pk, expert_id=expert.pk, discussion_seen_at__isnull=True).update(discussion_seen_at=now):
        assignment.discussion_seen_at = now


def post_comment(*, assignment: Assignment, expert: User, body: str, criterion_id: int | None = None) -> DiscussionComment:
    """Add a comment (about the response, or one of its criteria) to an open discussion."""
    body = _required_text(body, "body", _("Write a comment."))
    with transaction.atomic():
        own = _open_discussion(assignment, expert)
        if criterion_id is not None and not Criterion.objects.filter(pk=criterion_id, item_id=own.campaign_response.item_id).exists():
            raise ValidationError({"criterion": _("This criterion is not part of the response's rubric.")})
        return DiscussionComment.objects.create(
            campaign_response_id=own.campaign_response_id, author=expert, criterion_id=criterion_id, body=body
        )


def cast_vote(*, assignment: Assignment, expert: User, criterion_id: int, hit: bool) -> DiscussionVote:
    """Set this expert's hit/miss stance on a criterion in an open discussion (one per criterion, changeable)."""
    with transaction.atomic():
        own = _open_discussion(assignment, expert)
        if not Criterion.objects.filter(pk=criterion_id, item_id=own.campaign_response.item_id).exists():
            raise ValidationError({"criterion": _("This criterion is not part of the response's rubric.")})
        vote, _created = DiscussionVote.objects.update_or_create(
            campaign_response_id=own.campaign_response_id, criterion_id=criterion_id, voter=expert, defaults={"hit": bool(hit)}
        )
        return vote


def _open_discussion(assignment: Assignment, expert: User) -> Assignment:
    own = _own(assignment, expert)
    if not discussion_open_for(own):
        raise ValidationError(_("The discussion opens once every expert assigned to this response has submitted."))
    # Writing to a thread answers with the thread: seen, whichever client wrote.
    mark_discussion_seen(assignment=own, expert=expert)
    return own


# --- shared checks ---------------------------------------------------------------------------


def _own(assignment: Assignment, expert: User, *, lock: bool = False) -> Assignment:
    # The campaign's settings ride along (a join, not a query): submission reads its extra-raters option.
    qs = Assignment.objects.select_related("campaign_response__campaign__settings")
    if lock:
        qs = qs.select_for_update(of=("self",))
    own = qs.filter(pk=assignment.pk, expert_id=expert.pk).first()
    if own is None:
        raise PermissionDenied(_("This work is not yours."))
    own.expert = expert  # the acting expert is the owner: spare the quality checks a lookup
    return own


def _lock_open(assignment: Assignment, expert: User) -> Assignment:
    own = _own(assignment, expert, lock=True)
    if own.status == Assignment.Status.SUBMITTED:
        raise ValidationError(_("This response was already submitted; submitted judgments cannot change (request a correction)."))
    if own.status != Assignment.Status.RESERVED:
        raise ValidationError(_("This response is no longer reserved for you."))
    if own.expires_at is not None and own.expires_at < timezone.now():
        raise ValidationError(_("Your reservation of this response expired; your text is still in this browser."))
    return own


def _check_entries(assignment: Assignment, entries: list[DraftEntry]) -> None:
    if not entries:
        return
    seen: set[int] = set()
    errors: dict[str, list[str]] = {}
    # No ordering: Criterion's default one joins the item and its version for nothing here.
    allowed = set(Criterion.objects.filter(item_id=assignment.campaign_response.item_id).order_by().values_list("id", flat=True))
    for i, entry in enumerate(entries):
        field = f"judgments[{i}]"
        if entry.criterion_id not in allowed:
            errors.setdefault(f"{field}.criterion", []).append(_("This criterion is not part of the response's rubric."))
        elif entry.criterion_id in seen:
            errors.setdefault(f"{field}.criterion", []).append(_("This criterion appears twice."))
        seen.add(entry.criterion_id)
        if len(entry.rationale or "") > RATIONALE_MAX_CHARS:
            errors.setdefault(f"{field}.rationale", []).append(_("A rationale has at most %(n)d characters.") % {"n": RATIONALE_MAX_CHARS})
        if entry.hit not in (True, False, None):
            errors.setdefault(f"{field}.hit", []).append(_("hit is true, false or null."))
    if errors:
        raise ValidationError(errors)


def _clip_seconds(seconds: int | str | None) -> int:
    try:
        value = int(seconds or 0)
    except (TypeError, ValueError):
        return 0
    return max(0, min(value, MAX_ACTIVE_SECONDS_PER_REPORT))


def _required_text(value: str, field: str, message: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValidationError({field: message})
    if len(value) > COMMENT_MAX_CHARS:
        raise ValidationError({field: _("At most %(n)d characters.") % {"n": COMMENT_MAX_CHARS}})
    return value
