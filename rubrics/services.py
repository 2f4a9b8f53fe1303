"""Rubric writes: propose, review, publish and flag criterion revisions; every action is audited.

A criterion lineage has at most one open (draft or submitted) revision: a new edit is written
on top of the newest revision (the "head") and supersedes an open one. Every edit names the
revision it was based on, so two people editing the same criterion cannot overwrite each other:
the second save is refused with a ConflictError and the caller keeps the user's text.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext

from heartbench_core.lib.taxonomy import CATASTROPHIC_LABEL, is_known_label
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, User
from heartbench_core.records import MAX_WEIGHT, MIN_WEIGHT, CriterionContent, ItemContent
from heartbench_core.roles import Role, has_role
from heartbench_core.services.datasets import create_version, load_items
from heartbench_core.services.stored_scores import forget_scores
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment

if TYPE_CHECKING:
    from annotation.models import UnclearCriterionReport

Kind = CriterionRevision.Kind
Status = CriterionRevision.Status
Action = AuditEntry.Action


class ConflictError(ValidationError):
    """The criterion changed since the user started editing; nothing was saved."""

    def __init__(self, message: str, *, head: int) -> None:
        super().__init__(message, code="conflict")
        self.head = head


@dataclass(frozen=True)
class Content:
    """What a revision says: the four fields that make up a criterion."""

    text: str
    ability: str
    weight: int | None
    number: int

    @property
    def catastrophic(self) -> bool:
        return self.ability == CATASTROPHIC_LABEL

    def as_dict(self) -> dict[str, Any]:
        return {
            "revision": self.number,
            "text": self.text,
            "ability": self.ability,
            "weight": self.weight,
            "catastrophic": self.catastrophic,
        }


# --- reading the state a write depends on -------------------------------------------------


def approved_content(lineage: CriterionLineage) -> Content | None:
    """The content of the lineage's current approved revision (None for a pending addition)."""
    if lineage.current_revision == 0:
        return None
    rev = lineage.revisions.filter(number=lineage.current_revision, status=Status.APPROVED).first()
    if rev is not None:
        return Content(rev.text, rev.ability, rev.weight, rev.number)
    snap = Criterion.objects.filter(lineage=lineage, revision=lineage.current_revision).order_by("-item__version__number").first()
    if snap is None:
        return None
    return Content(snap.text, snap.ability, snap.weight, snap.revision)


def latest_version(dataset: Dataset) -> DatasetVersion:
    version = dataset.versions.order_by("-number").first()
    if version is None:
        raise ValidationError(gettext("dataset %(name)r has no versions") % {"name": dataset.name})
    return version


class CleanContent(TypedDict):
    """A proposed criterion once `validate_content` has checked it: stripped text, ability and reason."""

    text: str
    ability: str
    weight: int | None
    reason: str


def validate_content(*, dataset: Dataset, text: str, ability: str, weight: int | None, reason: str) -> CleanContent:
    """Check a proposed criterion; raise ValidationError naming each bad field."""
    errors: dict[str, str] = {}
    text = (text or "").strip()
    reason = (reason or "").strip()
    ability = (ability or "").strip()
    if not text:
        errors["text"] = gettext("The criterion text may not be empty.")
    if not ability:
        errors["ability"] = gettext("Choose an ability label.")
    elif not is_known_label(ability, tuple(dataset.extra_labels or ())):
        errors["ability"] = gettext(
            "Unknown ability label %(label)r: not in the HeartBench taxonomy or this dataset's declared labels."
        ) % {"label": ability}
    if weight is None:
        if ability and ability != CATASTROPHIC_LABEL:
            errors["weight"] = gettext("A weight is required (only %(label)s criteria may have none).") % {"label": CATASTROPHIC_LABEL}
    elif isinstance(weight, bool) or not isinstance(weight, int):
        errors["weight"] = gettext("The weight must be a whole number.")
    elif weight == 0 or not (MIN_WEIGHT <= weight <= MAX_WEIGHT):
        errors["weight"] = gettext("The weight must be between %(min)s and %(max)s and not 0 (got %(weight)s).") % {
            "min": MIN_WEIGHT,
            "max": MAX_WEIGHT,
            "weight": weight,
        }
    if not reason:
        errors["reason"] = gettext("Say why you are making this change.")
    if errors:
        raise ValidationError(errors)
    return {"text": text, "ability": ability, "weight": weight, "reason": reason}


def classify(before: Content | None, *, text: str, ability: str, weight: int | None, meaning_changed: bool) -> str:
    """Addition, semantic (weight, sign, ability, catastrophic flag, or declared) or wording."""
    if before is None:
        return Kind.ADDITION
    if meaning_changed or before.weight != weight or before.ability != ability:
        return Kind.SEMANTIC
    return Kind.WORDING


# --- audit ------------------------------------------------------------------------------


def record_audit(
    *,
    actor: User | None,
    action: str,
    object_type: str,
    object_id: int | str,
    dataset: Dataset | None = None,
    question_id: str = "",
    criterion_key: uuid.UUID | None = None,
    revision_number: int | None = None,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append one audit entry (the only way entries are written; none is ever changed)."""
    return AuditEntry.objects.create(
        actor=actor,
        actor_name=actor.get_username() if actor else "",
        action=action,
        dataset=dataset,
        question_id=question_id,
        criterion_key=criterion_key,
        revision_number=revision_number,
        object_type=object_type,
        object_id=str(object_id),
        reason=reason,
        before=before,
        after=after,
    )


def _audit_revision(
    rev: CriterionRevision,
    *,
    actor: User | None,
    action: str,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    object_type: str = "revision",
    object_id: int | None = None,
) -> AuditEntry:
    """An audit entry about the revision, or about a record of its review (`object_type`, `object_id`)."""
    return record_audit(
        actor=actor,
        action=action,
        object_type=object_type,
        object_id=rev.pk if object_id is None else object_id,
        dataset=rev.dataset,
        question_id=rev.question_id,
        criterion_key=rev.lineage_id,
        revision_number=rev.number,
        reason=reason,
        before=before,
        after=after,
    )


def revision_state(rev: CriterionRevision) -> dict[str, Any]:
    return {
        "revision": rev.number,
        "kind": rev.change_kind,
        "status": rev.status,
        "text": rev.text,
        "ability": rev.ability,
        "weight": rev.weight,
        "catastrophic": rev.catastrophic,
    }


# --- proposing revisions ----------------------------------------------------------------


def _require_author(user: User) -> None:
    if not has_role(user, Role.RUBRIC_AUTHOR):
        raise PermissionDenied(gettext("Only rubric authors can change criteria."))


def _locked_lineage(key: uuid.UUID | str) -> CriterionLineage:
    lineage = CriterionLineage.objects.select_for_update().filter(key=key).select_related("dataset").first()
    if lineage is None:
        raise ValidationError({"criterion": gettext("no criterion with key %(key)s") % {"key": key}})
    return lineage


def _check_base(lineage: CriterionLineage, base_revision: int | None) -> tuple[int, CriterionRevision | None]:
    head = max(lineage.current_revision, lineage.revisions.aggregate(n=Max("number"))["n"] or 0)  # the newest, imports included
    head_rev = lineage.revisions.filter(number=head).select_related("author").first()
    if base_revision is None:
        raise ValidationError({"base_revision": gettext("Missing the revision number the edit was based on.")})
    if int(base_revision) != head:
        facts: dict[str, object] = {"head": head, "base": base_revision}
        if head_rev is not None:
            facts |= {"who": head_rev.author.get_username(), "when": f"{timezone.localtime(head_rev.created_at):%Y-%m-%d %H:%M}"}
            message = gettext(
                "Conflict: this criterion was changed by %(who)s at %(when)s (now revision %(head)s) after you started editing "
                "revision %(base)s. Nothing was saved; your text is kept — compare it with the new revision and save again."
            )
        else:
            message = gettext(
                "Conflict: this criterion was changed (now revision %(head)s) after you started editing revision %(base)s. "
                "Nothing was saved; your text is kept — compare it with the new revision and save again."
            )
        raise ConflictError(message % facts, head=head)
    return head, head_rev


def _move(rev: CriterionRevision, status: str, *, actor: User, action: str, reason: str = "", stamp: str = "decided_at") -> None:
    """Give the revision its new status, stamped now (`stamp`), and audit the change."""
    before = revision_state(rev)
    rev.status = status
    setattr(rev, stamp, timezone.now())
    rev.save(update_fields=["status", stamp])
    _audit_revision(rev, actor=actor, action=action, reason=reason, before=before, after=revision_state(rev))


def _supersede(open_rev: CriterionRevision | None, *, actor: User, by: CriterionRevision) -> None:
    if open_rev is not None and open_rev.is_open:
        _move(open_rev, Status.SUPERSEDED, actor=actor, action=Action.SUPERSEDED, reason=f"superseded by revision {by.number}")


def _snapshot_in(version: DatasetVersion, lineage: CriterionLineage) -> Criterion | None:
    return Criterion.objects.filter(item__version=version, lineage=lineage).select_related("item").first()


@transaction.atomic
def edit_criterion(
    *,
    author: User,
    key: uuid.UUID | str,
    text: str,
    ability: str,
    weight: int | None,
    reason: str,
    base_revision: int | None,
    meaning_changed: bool = False,
) -> CriterionRevision:
    """Propose a change to a criterion (or to its pending addition) as a new draft revision."""
    _require_author(author)
    lineage = _locked_lineage(key)
    if lineage.retired:
        raise ValidationError({"criterion": gettext("This criterion is retired; add a new one instead.")})
    clean = validate_content(dataset=lineage.dataset, text=text, ability=ability, weight=weight, reason=reason)
    head, head_rev = _check_base(lineage, base_revision)
    before = approved_content(lineage)
    if head_rev is not None and head_rev.is_open and head_rev.change_kind == Kind.RETIREMENT:
        raise ValidationError(
            {"criterion": gettext("Revision %(head)s proposes retiring this criterion; it must be decided first.") % {"head": head}}
        )
    current = head_rev if (head_rev is not None and head_rev.is_open) else before
    if current is not None and (current.text, current.ability, current.weight) == (clean["text"], clean["ability"], clean["weight"]):
        raise ValidationError(
            {
                "text": gettext("Nothing changed: the text, ability and weight are those of revision %(number)s.")
                % {"number": current.number}
            }
        )
    kind = classify(before, text=clean["text"], ability=clean["ability"], weight=clean["weight"], meaning_changed=meaning_changed)
    version = latest_version(lineage.dataset)
    snapshot = _snapshot_in(version, lineage)
    if snapshot is not None:
        question_id = snapshot.item.question_id
    elif kind == Kind.ADDITION and head_rev is not None:
        question_id = head_rev.question_id  # a pending addition: in no version yet
    else:
        raise ValidationError(
            {
                "criterion": gettext("This criterion is not part of the latest version %(version)s; publish its approved revisions first.")
                % {"version": version.label}
            }
        )
    rev = CriterionRevision.objects.create(
        lineage=lineage,
        number=head + 1,
        parent=head_rev,
        dataset=lineage.dataset,
        question_id=question_id,
        edited_from_version=version,
        edited_from=snapshot,
        text=clean["text"],
        ability=clean["ability"],
        weight=clean["weight"],
        catastrophic=clean["ability"] == CATASTROPHIC_LABEL,
        change_kind=kind,
        meaning_changed=bool(meaning_changed),
        reason=clean["reason"],
        author=author,
    )
    _supersede(head_rev, actor=author, by=rev)
    _audit_revision(
        rev,
        actor=author,
        action=Action.CREATED if kind == Kind.ADDITION else Action.EDITED,
        reason=clean["reason"],
        before=before.as_dict() if before else None,
        after=revision_state(rev),
    )
    return rev


@transaction.atomic
def add_criterion(
    *, author: User, dataset: Dataset, question_id: str, text: str, ability: str, weight: int | None, reason: str
) -> CriterionRevision:
    """Propose a new criterion for an item of the dataset's latest version (a new lineage)."""
    _require_author(author)
    clean = validate_content(dataset=dataset, text=text, ability=ability, weight=weight, reason=reason)
    version = latest_version(dataset)
    if not version.items.filter(question_id=question_id).exists():
        raise ValidationError(
            {"question_id": gettext("no item %(item)r in version %(version)s") % {"item": question_id, "version": version.label}}
        )
    # Nothing approved yet: revision 0 keeps meaning_revision ≤ current_revision and marks "no approved content".
    lineage = CriterionLineage.objects.create(key=uuid.uuid4(), dataset=dataset, current_revision=0, meaning_revision=0)
    rev = CriterionRevision.objects.create(
        lineage=lineage,
        number=1,
        parent=None,
        dataset=dataset,
        question_id=question_id,
        edited_from_version=version,
        edited_from=None,
        text=clean["text"],
        ability=clean["ability"],
        weight=clean["weight"],
        catastrophic=clean["ability"] == CATASTROPHIC_LABEL,
        change_kind=Kind.ADDITION,
        meaning_changed=True,
        reason=clean["reason"],
        author=author,
    )
    _audit_revision(rev, actor=author, action=Action.CREATED, reason=clean["reason"], after=revision_state(rev))
    return rev


@transaction.atomic
def retire_criterion(*, author: User, key: uuid.UUID | str, reason: str, base_revision: int | None) -> CriterionRevision:
    """Propose removing a criterion from the rubric (it leaves the next published version)."""
    _require_author(author)
    lineage = _locked_lineage(key)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": gettext("Say why you are retiring this criterion.")})
    if lineage.retired:
        raise ValidationError({"criterion": gettext("This criterion is already retired.")})
    head, head_rev = _check_base(lineage, base_revision)
    before = approved_content(lineage)
    if before is None:
        raise ValidationError({"criterion": gettext("This criterion was never approved; let its addition be rejected instead.")})
    version = latest_version(lineage.dataset)
    snapshot = _snapshot_in(version, lineage)
    if snapshot is None:
        raise ValidationError(
            {"criterion": gettext("This criterion is not part of the latest version %(version)s.") % {"version": version.label}}
        )
    rev = CriterionRevision.objects.create(
        lineage=lineage,
        number=head + 1,
        parent=head_rev,
        dataset=lineage.dataset,
        question_id=snapshot.item.question_id,
        edited_from_version=version,
        edited_from=snapshot,
        text=before.text,
        ability=before.ability,
        weight=before.weight,
        catastrophic=before.catastrophic,
        change_kind=Kind.RETIREMENT,
        meaning_changed=False,
        reason=reason,
        author=author,
    )
    _supersede(head_rev, actor=author, by=rev)
    _audit_revision(rev, actor=author, action=Action.RETIRED, reason=reason, before=before.as_dict(), after=revision_state(rev))
    return rev


# --- review -----------------------------------------------------------------------------


def _locked_revision(revision: CriterionRevision) -> CriterionRevision:
    return CriterionRevision.objects.select_for_update().select_related("dataset", "lineage").get(pk=revision.pk)


@transaction.atomic
def submit_revision(*, revision: CriterionRevision, user: User) -> CriterionRevision:
    """The author sends a draft to the review panel."""
    rev = _locked_revision(revision)
    if rev.author_id != user.pk:
        raise PermissionDenied(gettext("Only the revision's author can submit it."))
    if rev.status != Status.DRAFT:
        raise ValidationError(
            {
                "status": gettext("Only a draft can be submitted; this revision is %(status)s.")
                % {"status": rev.get_status_display().lower()}
            }
        )
    _move(rev, Status.SUBMITTED, actor=user, action=Action.SUBMITTED, stamp="submitted_at")
    return rev


@transaction.atomic
def review_revision(*, revision: CriterionRevision, reviewer: User, verdict: str, comment: str = "") -> CriterionRevision:
    """Record one panel member's decision; a reject ends the round, the panel's unanimous approval applies it."""
    if not has_role(reviewer, Role.SENIOR_REVIEWER):
        raise PermissionDenied(gettext("Only senior reviewers sit on the review panel."))
    rev = _locked_revision(revision)
    if rev.author_id == reviewer.pk:
        raise PermissionDenied(gettext("You cannot review your own revision."))
    if verdict not in ReviewDecision.Verdict.values:
        raise ValidationError({"verdict": gettext("Choose approve or reject.")})
    comment = (comment or "").strip()
    if verdict == ReviewDecision.Verdict.REJECT and not comment:
        raise ValidationError({"comment": gettext("Say why you reject it, so the author can revise it.")})
    if rev.status != Status.SUBMITTED:
        raise ValidationError(
            {"status": gettext("This revision is %(status)s, not awaiting review.") % {"status": rev.get_status_display().lower()}}
        )
    if rev.decisions.filter(reviewer=reviewer).exists():
        raise ValidationError({"verdict": gettext("You have already decided on this revision.")})
    decision = ReviewDecision.objects.create(revision=rev, reviewer=reviewer, verdict=verdict, comment=comment)
    _audit_revision(
        rev,
        actor=reviewer,
        action=Action.REVIEWED,
        object_type="decision",
        object_id=decision.pk,
        reason=comment,
        after={"verdict": verdict, "revision": rev.number},
    )
    if comment:
        RevisionComment.objects.create(revision=rev, author=reviewer, body=f"[{decision.get_verdict_display()}] {comment}")
    if verdict == ReviewDecision.Verdict.REJECT:
        _move(rev, Status.REJECTED, actor=reviewer, action=Action.REJECTED, reason=comment)
        return rev
    approvals = rev.decisions.filter(verdict=ReviewDecision.Verdict.APPROVE).count()
    if approvals >= max(1, rev.dataset.review_panel_size):
        _apply_approval(rev, actor=reviewer)
    return rev


def _apply_approval(rev: CriterionRevision, *, actor: User) -> None:
    lineage = CriterionLineage.objects.select_for_update().get(pk=rev.lineage_id)

    def lineage_state() -> dict[str, Any]:
        return {"current_revision": lineage.current_revision, "meaning_revision": lineage.meaning_revision, "retired": lineage.retired}

    before_lineage = lineage_state()
    before = revision_state(rev)
    lineage.current_revision = rev.number
    if rev.change_kind in (Kind.SEMANTIC, Kind.ADDITION):
        # Every judgment and verdict made against an older revision is now stale (core stale_q).
        lineage.meaning_revision = rev.number
    if rev.change_kind == Kind.RETIREMENT:
        lineage.retired = True
    lineage.save(update_fields=["current_revision", "meaning_revision", "retired"])
    if lineage.meaning_revision != before_lineage["meaning_revision"]:
        # Verdicts carried over from other versions through this lineage may have become stale.
        forget_scores(datasets=[lineage.dataset_id])
    rev.status = Status.APPROVED
    rev.decided_at = timezone.now()
    rev.save(update_fields=["status", "decided_at"])
    _audit_revision(
        rev,
        actor=actor,
        action=Action.APPROVED,
        reason=f"unanimous approval by {rev.dataset.review_panel_size} reviewers",
        before={**before, "lineage": before_lineage},
        after={**revision_state(rev), "lineage": lineage_state()},
    )


@transaction.atomic
def comment_on_revision(
    *, revision: CriterionRevision, author: User, body: str, reply_to: RevisionComment | None = None
) -> RevisionComment:
    """Add a comment (or a reply) to a revision's review thread."""
    if not has_role(author, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER, Role.ADMIN):
        raise PermissionDenied(gettext("Only rubric authors, senior reviewers and admins take part in reviews."))
    body = (body or "").strip()
    if not body:
        raise ValidationError({"body": gettext("The comment is empty.")})
    if reply_to is not None and reply_to.revision_id != revision.pk:
        raise ValidationError({"reply_to": gettext("That comment belongs to another revision.")})
    comment = RevisionComment.objects.create(revision=revision, author=author, body=body, reply_to=reply_to)
    _audit_revision(
        revision,
        actor=author,
        action=Action.COMMENTED,
        object_type="comment",
        object_id=comment.pk,
        after={"body": body, "reply_to": reply_to.pk if reply_to else None},
    )
    return comment


# --- publishing -------------------------------------------------------------------------


@transaction.atomic
def publish_revisions(*, dataset: Dataset, user: User, label: str | None = None, note: str = "") -> DatasetVersion:
    """Apply every approved, unpublished revision to the latest version and freeze the result as a new version."""
    if not has_role(user, Role.RUBRIC_AUTHOR, Role.ADMIN):
        raise PermissionDenied(gettext("Only rubric authors and admins publish revisions."))
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    parent = latest_version(dataset)
    pending = list(
        CriterionRevision.objects.filter(dataset=dataset).awaiting_publication().select_related("lineage").order_by("lineage_id", "number")
    )
    if not pending:
        raise ValidationError(gettext("There are no approved revisions waiting to be published."))
    # The newest approved revision of each lineage is what the lineage now says.
    final = {rev.lineage_id: rev for rev in pending if rev.number == rev.lineage.current_revision}
    rows = Criterion.objects.filter(item__version=parent).values_list("item__question_id", "position", "lineage_id", "revision")
    at = {(q, p): (k, r) for q, p, k, r in rows}
    present = {k for k, _ in at.values()}
    missing = [rev for rev in final.values() if rev.change_kind != Kind.ADDITION and rev.lineage_id not in present]
    if missing:
        raise ValidationError(
            gettext("These approved revisions change criteria that are not in the latest version %(version)s: %(revisions)s")
            % {"version": parent.label, "revisions": ", ".join(f"{r.question_id} r{r.number}" for r in missing)}
        )
    additions: dict[str, list[CriterionRevision]] = {}
    for rev in final.values():
        if rev.change_kind == Kind.ADDITION and rev.lineage_id not in present:
            additions.setdefault(rev.question_id, []).append(rev)
    items: list[ItemContent] = []
    lineage: dict[tuple[str, int], tuple[uuid.UUID, int]] = {}
    for item in load_items(parent):
        rubric: list[CriterionContent] = []
        for pos, content in enumerate(item.rubric):
            key, revision = at[(item.question_id, pos)]
            approved = final.get(key)
            if approved is not None and approved.change_kind == Kind.RETIREMENT:
                continue
            if approved is not None:
                content = CriterionContent(approved.ability, approved.weight, approved.text, content.extra)
                revision = approved.number
            lineage[(item.question_id, len(rubric))] = (key, revision)
            rubric.append(content)
        for rev in sorted(additions.pop(item.question_id, []), key=lambda r: r.created_at):
            lineage[(item.question_id, len(rubric))] = (rev.lineage_id, rev.number)
            rubric.append(CriterionContent(rev.ability, rev.weight, rev.text, None))
        if not rubric:
            raise ValidationError(gettext("Publishing would leave item %(item)s without criteria.") % {"item": item.question_id})
        items.append(dataclasses.replace(item, rubric=tuple(rubric)))
    if additions:
        raise ValidationError(
            gettext("Approved additions for items not in the latest version: %(items)s") % {"items": ", ".join(sorted(additions))}
        )
    version = create_version(
        dataset=dataset,
        items=items,
        parent=parent,
        label=label,
        note=note or f"{len(final)} approved rubric revisions",
        created_by=user,
        source="rubric revisions",
        lineage=lineage,
    )
    for rev in pending:
        rev.published_in = version
        rev.save(update_fields=["published_in"])
        _audit_revision(
            rev,
            actor=user,
            action=Action.PUBLISHED,
            reason=f"published in {version.label}",
            after={"version": version.label, "revision": rev.number},
        )
    record_audit(
        actor=user,
        action=Action.PUBLISHED,
        object_type="version",
        object_id=version.pk,
        dataset=dataset,
        reason=note,
        before={"version": parent.label},
        after={"version": version.label, "summary": version.changelog.get("summary", {})},
    )
    return version


# --- the authors' work list -------------------------------------------------------------


@transaction.atomic
def flag_criterion(*, lineage: CriterionLineage, reason: str, source: str, flagged_by: User | None = None) -> CriterionFlag:
    """Put a criterion on the rubric authors' work list (called by people and by other apps)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": gettext("Say why the criterion needs attention.")})
    if not (source or "").strip():
        raise ValidationError({"source": gettext("Name where the flag comes from.")})
    flag = CriterionFlag.objects.create(lineage=lineage, reason=reason, source=source.strip()[:40], flagged_by=flagged_by)
    snap = Criterion.objects.filter(lineage=lineage).select_related("item").order_by("-item__version__number").first()
    record_audit(
        actor=flagged_by,
        action=Action.FLAGGED,
        object_type="flag",
        object_id=flag.pk,
        dataset=lineage.dataset,
        question_id=snap.item.question_id if snap else "",
        criterion_key=lineage.key,
        reason=reason,
        after={"source": flag.source},
    )
    return flag


def _resolve(
    entry: CriterionFlag | UnclearCriterionReport,
    *,
    user: User,
    note: str,
    already: str,
    object_type: str,
    dataset: Dataset,
    criterion_key: uuid.UUID,
    question_id: str = "",
) -> None:
    """Take a work-list entry (locked) off the list, by a rubric author or an admin; `already`: why not, when it is off."""
    if not has_role(user, Role.RUBRIC_AUTHOR, Role.ADMIN):
        raise PermissionDenied(gettext("Only rubric authors and admins resolve work-list entries."))
    if entry.resolved_at is not None:
        raise ValidationError(already)
    entry.resolved_at, entry.resolved_by = timezone.now(), user
    entry.save(update_fields=["resolved_at", "resolved_by"])
    record_audit(
        actor=user,
        action=Action.RESOLVED,
        object_type=object_type,
        object_id=entry.pk,
        dataset=dataset,
        question_id=question_id,
        criterion_key=criterion_key,
        reason=note,
        before={"resolved": False},
        after={"resolved": True},
    )


@transaction.atomic
def resolve_flag(*, flag: CriterionFlag, user: User, note: str = "") -> CriterionFlag:
    """Take a flag off the work list."""
    flag = CriterionFlag.objects.select_for_update().get(pk=flag.pk)
    already = gettext("This flag is already resolved.")
    _resolve(flag, user=user, note=note, already=already, object_type="flag", dataset=flag.lineage.dataset, criterion_key=flag.lineage_id)
    return flag


@transaction.atomic
def resolve_unclear_report(*, report: UnclearCriterionReport, user: User, note: str = "") -> UnclearCriterionReport:
    """Take an expert's "unclear criterion" report off the work list."""
    from annotation.models import UnclearCriterionReport

    report = UnclearCriterionReport.objects.select_for_update().select_related("criterion__item__version__dataset").get(pk=report.pk)
    _resolve(
        report,
        user=user,
        note=note,
        already=gettext("This report is already resolved."),
        object_type="unclear_report",
        dataset=report.criterion.item.version.dataset,
        question_id=report.criterion.item.question_id,
        criterion_key=report.criterion.lineage_id,
    )
    return report
