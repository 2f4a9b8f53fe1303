"""What each rubric screen reads, for its page and its API alike, with the viewer's blind scope applied here.

A rubric author or reviewer may also be an expert of an open campaign. Quality signals (hit rate,
agreement, saturation), the work list's unclear reports and the adjudication causes on a criterion
would tell them the judge's verdicts and other raters' work on that campaign's responses: every read
model that counts judgments or verdicts leaves out the responses of the datasets closed to the viewer
(`_closed_responses`). Drafts, reviews and the audit log name criteria, not responses, and are read
as they are by every member of staff; so is the stale list (responses by their opaque public id,
with how many judgments and verdicts predate a criterion's meaning, never a model or a verdict).
Every read model here is a staff read: anyone else is refused (or reads an empty list).

The query builders stay in rubrics.selectors (services use them too); these functions find the
object (404 when missing), apply the viewer's scope and role, and return what the screen shows.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.exceptions import ValidationError
from django.db.models import Count, Max, Model, OuterRef, Q, QuerySet, Subquery
from django.http import Http404
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from annotation.knowledge import selectors as knowledge_selectors
from annotation.knowledge.models import Case
from annotation.models import UnclearCriterionReport
from heartbench_core.filters import InvalidFilters
from heartbench_core.lib import rubric_quality as quality
from heartbench_core.lib.textdiff import word_diff_html
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, Item
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import STAFF_ROLES, Role, has_role
from heartbench_core.selectors import items_of
from rubrics import feedback, selectors, services
from rubrics.filters import AuditFilters, CriterionFilters, RevisionFilters, WorkFilters
from rubrics.models import AuditEntry, CriterionFlag, CriterionRevision, ReviewDecision, RevisionComment
from rubrics.selectors import (
    SEVERITY_NAMES,
    WORK_KINDS,
    WORK_SORTS,
    CriterionSignals,
    EditorRow,
    HistoryEntry,
    StaleRow,
    WorkItem,
)

if TYPE_CHECKING:
    from annotation.knowledge.selectors import LineageKnowledge
    from heartbench_core.blindness import ResponseIds

__all__ = ["SEVERITY_NAMES", "WORK_KINDS", "WORK_SORTS", "WorkItem"]

Status = CriterionRevision.Status
ModelT = TypeVar("ModelT", bound=Model)


def _closed_responses(viewer: Viewer) -> ResponseIds | None:
    """Responses of the datasets of the open campaigns the viewer is an expert of: signals leave them out (None: nothing to leave out)."""
    scope = viewer.scope
    return scope.response_ids if scope else None


def _staff_only(viewer: Viewer, qs: QuerySet[ModelT]) -> QuerySet[ModelT]:
    """A list as staff read it; empty for anyone else (a list is asked for its model too, e.g. by the schema generator)."""
    return qs if viewer.holds(*STAFF_ROLES) else qs.none()


def _can_edit(viewer: Viewer) -> bool:
    return has_role(viewer.user, Role.RUBRIC_AUTHOR)


# --- datasets and criteria, found by name or key ------------------------------------------


@read_model
def dataset(viewer: Viewer, name: str, *, field: str | None = None) -> Dataset:
    """The dataset named `name`: 404 when there is none, or, for a name a request body gave in `field`, a 400 naming it."""
    viewer.require(*STAFF_ROLES)
    found = Dataset.objects.filter(name=name).first()
    if found is None:
        if field is not None:
            raise ValidationError({field: gettext("no dataset named %(name)r") % {"name": name}})
        raise Http404
    return found


@read_model
def criterion_lineage(viewer: Viewer, key: uuid.UUID | str) -> CriterionLineage:
    """A criterion (its lineage), with its dataset; 404 when there is none."""
    viewer.require(*STAFF_ROLES)
    return one(CriterionLineage.objects.select_related("dataset"), key=key)


@read_model
def question_of(viewer: Viewer, lineage: CriterionLineage) -> str:
    """The question id a criterion belongs to (where the pages go back to after acting on it)."""
    viewer.require(*STAFF_ROLES)
    question_id, _ = selectors.lineage_question(lineage)
    return question_id


# --- the work list --------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkListPage:
    """What the work list page shows beside the list: the viewer's drafts, the review queue, what waits to be published."""

    datasets: list[Dataset]
    page_size: int
    drafts: list[CriterionRevision] | None
    queue_count: int | None  # None: the viewer is no senior reviewer
    awaiting_publish: int | None


@read_model
def work_list_page(viewer: Viewer, *, full: bool = True) -> WorkListPage:
    """Every dataset (the list's filter); with `full`, the viewer's open drafts and the counts the page's buttons show."""
    user = viewer.require(*STAFF_ROLES)
    datasets = list(Dataset.objects.order_by("name"))
    if not full:
        return WorkListPage(datasets, selectors.WORK_PAGE_SIZE, None, None, None)
    drafts = list(
        CriterionRevision.objects.filter(author=user, status__in=[Status.DRAFT, Status.REJECTED])
        .exclude(children__isnull=False)
        .select_related("dataset")
        .order_by("-created_at")[:20]
    )
    queue_count = selectors.review_queue(user).count() if has_role(user, Role.SENIOR_REVIEWER) else None
    awaiting = CriterionRevision.objects.awaiting_publication().count()
    return WorkListPage(datasets, selectors.WORK_PAGE_SIZE, drafts, queue_count, awaiting)


@dataclass(frozen=True)
class WorkListScreen:
    """The work list as its page shows it: the entries of the signal and ability asked for, and the signal menu's counts."""

    filters: WorkFilters  # what the page asked for, a bad value with its error
    items: list[WorkItem]
    by_signal: Counter[str]  # entries of each signal of the ability asked for (the menu counts every signal)
    abilities: list[tuple[str, str]]  # the labels the list holds, with their names


@read_model
def work_list_screen(viewer: Viewer, datasets: Sequence[Dataset], params: Mapping[str, Any]) -> WorkListScreen:
    """The work list page: `work_list` over `datasets` filtered by `WorkFilters` (a bad value is ignored, with its error)."""
    filters = WorkFilters(params, datasets=datasets)
    wanted = filters.values
    everything = work_list(viewer, filters.chosen, question_id=wanted.get("question_id"), sort=filters.order)
    ability, kind = wanted.get("ability"), wanted.get("kind")
    mine = [w for w in everything if not ability or w.ability == ability]
    labels = sorted({w.ability for w in everything if w.ability} | ({ability} if ability else set()))
    return WorkListScreen(
        filters=filters,
        items=[w for w in mine if not kind or w.kind == kind],
        by_signal=Counter(w.kind for w in mine),
        abilities=[(label, filters.ability_names.get(label, label)) for label in labels],
    )


@read_model
def work_list_api(viewer: Viewer, params: Mapping[str, Any]) -> list[WorkItem]:
    """The API's work list: one dataset's (required), filtered by `WorkFilters`; a bad value is an `InvalidFilters` (400)."""
    viewer.require(*STAFF_ROLES)
    filters = WorkFilters(params, datasets=list(Dataset.objects.order_by("name"))).check()
    wanted = filters.values
    if "dataset" not in wanted:
        raise InvalidFilters({"dataset": [gettext("This field is required.")]})
    (dataset,) = filters.chosen
    question_id = wanted.get("question_id")
    if question_id and not Item.objects.filter(version__dataset=dataset, question_id=question_id).exists():
        message = gettext("no question %(item)r in dataset %(dataset)r") % {"item": question_id, "dataset": dataset.name}
        raise InvalidFilters({"question_id": [message]})
    return work_list(viewer, [dataset], kind=wanted.get("kind"), question_id=question_id, ability=wanted.get("ability"), sort=filters.order)


@read_model
def work_list(
    viewer: Viewer,
    datasets: Sequence[Dataset],
    *,
    kind: str | None = None,
    question_id: str | None = None,
    ability: str | None = None,
    sort: str = WORK_SORTS[0],
) -> list[WorkItem]:
    """The authors' work list over `datasets`, most severe first (or by item), without the viewer's closed responses.

    Neither its signals nor its unclear reports count the responses of a dataset an open campaign of
    the viewer is on (a saturated criterion would give the judge's verdicts away).
    """
    viewer.require(*STAFF_ROLES)
    leave_out = _closed_responses(viewer)
    items = [
        w
        for d in datasets
        for w in selectors.work_list(d, kind=kind, question_id=question_id, ability=ability, leave_out=leave_out, sort=sort)
    ]
    if len(datasets) > 1:
        items.sort(key=WorkItem.item_key if sort == "item" else WorkItem.sort_key)
    return items


@read_model
def work_entry(viewer: Viewer, kind: str, pk: int) -> CriterionFlag | UnclearCriterionReport:
    """A work-list entry an author resolves: a flag or an expert's unclear report; 404 for any other kind."""
    viewer.require(*STAFF_ROLES)
    if kind == "flag":
        return one(CriterionFlag.objects.all(), pk=pk)
    if kind == "unclear":
        return one(UnclearCriterionReport.objects.all(), pk=pk)
    raise Http404(gettext("Unknown work-list entry."))


# --- a dataset's items ----------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetItems:
    dataset: Dataset
    version: DatasetVersion
    items: QuerySet[Item]  # paged by the page
    pending: dict[str, int]  # question id -> open revisions
    approved: int  # approved revisions waiting to be published
    can_publish: bool


@read_model
def dataset_items(viewer: Viewer, name: str, *, q: str | None = None) -> DatasetItems:
    """The items of a dataset's latest version (`q`: question ids containing it), with their open revisions."""
    found = dataset(viewer, name)
    version = selectors.latest_version(found)
    if version is None:
        raise Http404(gettext("This dataset has no versions."))
    revisions = CriterionRevision.objects.filter(dataset=found)
    return DatasetItems(
        dataset=found,
        version=version,
        items=items_of(version, q=q),
        pending=dict(revisions.open().values_list("question_id").annotate(n=Count("id"))),
        approved=revisions.awaiting_publication().count(),
        can_publish=has_role(viewer.user, Role.RUBRIC_AUTHOR, Role.ADMIN),
    )


# --- the editor and a criterion's row -----------------------------------------------------


@read_model
def criterion_signals(viewer: Viewer, dataset: Dataset, keys: Sequence[uuid.UUID] | None) -> dict[uuid.UUID, CriterionSignals]:
    """Quality signals of these criteria (None: every criterion of the dataset), without the viewer's closed responses."""
    viewer.require(*STAFF_ROLES)
    return selectors.cached_quality_signals(dataset, keys, leave_out=_closed_responses(viewer))


@dataclass(frozen=True)
class Editor:
    dataset: Dataset
    version: DatasetVersion
    item: Item
    rows: list[EditorRow]  # each with its signals
    additions: list[CriterionRevision]
    can_edit: bool


@read_model
def editor(viewer: Viewer, name: str, question_id: str) -> Editor:
    """An item of a dataset's latest version: its criteria with their open revision, head and signals, and pending additions."""
    found = dataset(viewer, name)
    version = selectors.latest_version(found)
    rows_of = selectors.editor_rows(version, question_id) if version else None
    if version is None or rows_of is None:
        raise Http404(gettext("No such item in the latest version."))
    item, rows, additions = rows_of
    signals = criterion_signals(viewer, found, [r.criterion.lineage_id for r in rows])
    for row in rows:
        row.signals = signals.get(row.criterion.lineage_id)
    return Editor(found, version, item, rows, additions, _can_edit(viewer))


@dataclass(frozen=True)
class CriterionRow:
    lineage: CriterionLineage
    row: EditorRow  # with its signals
    can_edit: bool

    @property
    def dataset(self) -> Dataset:
        return self.lineage.dataset


@read_model
def criterion_row(viewer: Viewer, key: uuid.UUID | str, *, lineage: CriterionLineage | None = None) -> CriterionRow:
    """One criterion's row of the editor (in the latest version), with its signals; `lineage` when already found."""
    lineage = lineage or criterion_lineage(viewer, key)
    question_id, _ = selectors.lineage_question(lineage)
    version = selectors.latest_version(lineage.dataset)
    found = selectors.editor_rows(version, question_id) if version else None
    if found is None:
        raise Http404(gettext("No such item."))
    rows = [r for r in found[1] if r.criterion.lineage_id == lineage.key]
    if not rows:
        raise Http404(gettext("This criterion is not in the latest version."))
    row = rows[0]
    row.signals = criterion_signals(viewer, lineage.dataset, [lineage.key]).get(lineage.key)
    return CriterionRow(lineage, row, _can_edit(viewer))


# --- a criterion's history ----------------------------------------------------------------


@dataclass(frozen=True)
class Diff:
    a: HistoryEntry
    b: HistoryEntry
    html: SafeString


@dataclass(frozen=True)
class History:
    lineage: CriterionLineage
    question_id: str
    entries: list[HistoryEntry]
    a: int | None
    b: int | None
    diff: Diff | None
    # What the library and adjudication know of the criterion (None when not asked for: the diff alone).
    knowledge: LineageKnowledge | None = None
    causes: list[tuple[str, int]] | None = None
    decisions: int = 0


@read_model
def criterion_history(viewer: Viewer, key: uuid.UUID | str, *, a: int | None, b: int | None, feedback_too: bool) -> History:
    """Every revision of a criterion and the word diff of revisions `a` and `b` (by default the last two).

    With `feedback_too`, the library's entries on it the viewer may read and the causes adjudication
    gave on it, none counted from a response of a dataset closed to the viewer.
    """
    lineage = criterion_lineage(viewer, key)
    entries = selectors.criterion_history(lineage)
    question_id, _ = selectors.lineage_question(lineage)
    by_number = {e.number: e for e in entries}
    if b is None and entries:
        b = entries[-1].number
    if a is None and len(entries) > 1:
        a = entries[-2].number
    diff = None
    if a is not None and b is not None:
        if a not in by_number or b not in by_number:
            raise Http404(gettext("No such revision of this criterion."))
        ea, eb = by_number[a], by_number[b]
        diff = Diff(ea, eb, mark_safe(word_diff_html(ea.text, eb.text)))  # escaped by word_diff_html
    history = History(lineage, question_id, entries, a, b, diff)
    if not feedback_too:
        return history
    causes = feedback.adjudication_causes(lineage.dataset, [str(lineage.key)], leave_out=_closed_responses(viewer)).get(
        str(lineage.key), Counter()
    )
    labels = dict(Case.Cause.choices)
    return replace(
        history,
        knowledge=knowledge_selectors.lineage_knowledge(viewer.require(*STAFF_ROLES), lineage),
        causes=[(str(labels.get(cause, cause)), n) for cause, n in causes.most_common()],
        decisions=sum(causes.values()),
    )


# --- revisions and their review -----------------------------------------------------------


def _diff_against_approved(rev: CriterionRevision) -> tuple[SafeString, services.Content | None]:
    before = services.approved_content(rev.lineage)
    return mark_safe(word_diff_html(before.text if before else "", rev.text)), before  # escaped by word_diff_html


@read_model
def review_queue(viewer: Viewer) -> list[CriterionRevision]:
    """Submitted revisions the viewer may still decide on (never their own), each with `diff_html` against the approved text."""
    queue = list(selectors.review_queue(viewer.require(*STAFF_ROLES)))
    for rev in queue:
        rev.diff_html = _diff_against_approved(rev)
    return queue


@dataclass(frozen=True)
class RevisionPage:
    rev: CriterionRevision
    before: services.Content | None
    diff_html: SafeString
    decisions: list[ReviewDecision]
    thread: list[tuple[RevisionComment, int]]
    can_submit: bool
    can_review: bool
    can_revise: bool

    @property
    def panel_size(self) -> int:
        return self.rev.dataset.review_panel_size


@read_model
def revision_page(viewer: Viewer, pk: int) -> RevisionPage:
    """A revision with its diff against the approved text, the panel's decisions, its discussion and what the viewer may do."""
    user = viewer.require(*STAFF_ROLES)
    rev = selectors.revision_detail(pk)
    if rev is None:
        raise Http404(gettext("No such revision."))
    html, before = _diff_against_approved(rev)
    return RevisionPage(
        rev=rev,
        before=before,
        diff_html=html,
        decisions=list(rev.decisions.select_related("reviewer")),
        thread=selectors.comment_thread(rev),
        can_submit=rev.status == Status.DRAFT and rev.author_id == user.pk,
        can_review=rev.status == Status.SUBMITTED
        and rev.author_id != user.pk
        and has_role(user, Role.SENIOR_REVIEWER)
        and not rev.decisions.filter(reviewer=user).exists(),
        can_revise=rev.status in (Status.DRAFT, Status.REJECTED)
        and _can_edit(viewer)
        and not rev.children.exists()
        and rev.change_kind != CriterionRevision.Kind.RETIREMENT,
    )


@read_model
def revision(viewer: Viewer, pk: int) -> CriterionRevision:
    """A revision the viewer acts on (submits, reviews, comments on); 404 when there is none."""
    viewer.require(*STAFF_ROLES)
    return one(CriterionRevision.objects.all(), pk=pk)


@read_model
def revisions(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[CriterionRevision]:
    """Revisions, newest first, each with its number of approvals (`approvals`), filtered by `RevisionFilters`."""
    qs = (
        _staff_only(viewer, CriterionRevision.objects.all())
        .select_related("dataset", "author", "parent", "published_in")
        .annotate(approvals=Count("decisions", filter=Q(decisions__verdict=ReviewDecision.Verdict.APPROVE)))
    )
    return RevisionFilters(params).check().narrow(qs).order_by("-created_at", "-id")


@read_model
def listed_revision(viewer: Viewer, pk: int) -> CriterionRevision:
    """One revision as `revisions` lists it (with its approvals): what the API answers after a service changed it."""
    return one(revisions(viewer), pk=pk)


@read_model
def comment_thread(viewer: Viewer, rev: CriterionRevision) -> list[tuple[RevisionComment, int]]:
    """A revision's comments in thread order, with their depth (the page's discussion)."""
    viewer.require(*STAFF_ROLES)
    return selectors.comment_thread(rev)


@read_model
def comments(viewer: Viewer, rev: CriterionRevision) -> list[RevisionComment]:
    """A revision's comments, oldest first (the API's discussion)."""
    viewer.require(*STAFF_ROLES)
    return list(rev.comments.select_related("author").order_by("created_at", "id"))


@read_model
def reply_target(viewer: Viewer, rev: CriterionRevision, reply_id: int | None) -> RevisionComment | None:
    """The comment of this revision a new comment answers (None when none is named or it is not on this revision)."""
    viewer.require(*STAFF_ROLES)
    if reply_id is None:
        return None
    return rev.comments.filter(pk=reply_id).first()


# --- the audit log --------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditLog:
    entries: QuerySet[AuditEntry]  # newest first; paged by the page and the API
    datasets: QuerySet[Dataset]  # the page's filter (read only when shown)
    filters: AuditFilters  # a bad value: its error, and no entry until it is corrected

    def each(self) -> Iterator[AuditEntry]:
        """Every entry, read in chunks (the CSV export streams them)."""
        return self.entries.iterator(chunk_size=2000)


@read_model
def audit_log(viewer: Viewer, params: Mapping[str, Any] | None) -> AuditLog:
    """The audit log filtered as `params` ask (AuditFilters); a filter given a bad value: nothing until it is corrected."""
    filters = AuditFilters(params)
    log = AuditEntry.objects.select_related("dataset").order_by("-created_at", "-id")
    entries = _staff_only(viewer, filters.narrow(log)) if filters.form.is_valid() else AuditEntry.objects.none()
    return AuditLog(entries, Dataset.objects.order_by("name"), filters)


# --- staleness and quality ------------------------------------------------------------------


@dataclass(frozen=True)
class StaleList:
    rows: list[StaleRow]
    totals: dict[str, int]  # responses, judgments, verdicts over every row


@read_model
def stale_list(viewer: Viewer, dataset: Dataset, *, question_id: str | None = None) -> StaleList:
    """Responses with judgments or verdicts made against an older meaning of a criterion, with the totals to re-check.

    Which responses carry experts' judgments tells which were sampled into blind tests: on a dataset an
    open campaign of the viewer is on, every response is left out, as the quality signals leave them out.
    """
    viewer.require(*STAFF_ROLES)
    rows = [] if viewer.hides_dataset(dataset.pk) else selectors.stale_rows(dataset, question_id=question_id)
    return StaleList(rows, selectors.stale_totals(rows))


@dataclass(frozen=True)
class RubricQuality:
    ambiguity_rule: quality.AmbiguityRule
    criteria: dict[uuid.UUID, CriterionSignals]


@read_model
def rubric_quality(viewer: Viewer, name: str, *, question_id: str | None = None) -> RubricQuality:
    """The quality signals of a dataset's criteria (`question_id`: of one item of its latest version), without the viewer's closed responses."""
    found = dataset(viewer, name)
    keys = None
    if question_id:
        version = selectors.latest_version(found)
        keys = list(Criterion.objects.filter(item__version=version, item__question_id=question_id).values_list("lineage_id", flat=True))
    return RubricQuality(selectors.ambiguity_rule(), criterion_signals(viewer, found, keys))


@read_model
def latest_criteria(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[Criterion]:
    """Criteria of each dataset's latest version, with their newest revision number (`drafted`), in one query (`CriterionFilters`)."""
    # Each dataset's latest version, as a subquery: one query whatever the number of datasets.
    newest = DatasetVersion.objects.filter(dataset=OuterRef("dataset")).order_by("-number").values("number")[:1]
    latest = DatasetVersion.objects.filter(number=Subquery(newest)).values("id")
    qs = (
        _staff_only(viewer, Criterion.objects.filter(item__version_id__in=latest))
        .select_related("item__version__dataset", "lineage")
        .annotate(drafted=Max("lineage__revisions__number"))
        .order_by("item__version_id", "item__position", "position")
    )
    return CriterionFilters(params).check().narrow(qs)
