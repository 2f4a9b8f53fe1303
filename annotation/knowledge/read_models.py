"""Read models of the knowledge library: what its pages, its API and the judging page's panel show, one function per screen.

The library's one set of visibility rules is `annotation.knowledge.selectors` (published entries
for experts; for staff everything except the cases of a campaign they rate in while it runs, and
never, for anyone, a case drawn from a response an open campaign of theirs sampled:
`BlindScope.sampled_response_ids`). Every read model starts from those querysets with the viewer,
so a page and its API cannot show more than they allow; who may act on an entry (its author
edits, someone else reviews) is decided here too, and beside the judging page the expert reads
only through their own assignment, as an expert whatever else they are.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet, prefetch_related_objects
from django.utils.translation import gettext as _

from annotation.knowledge import selectors
from annotation.knowledge.filters import CaseFilters, FaqFilters
from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry
from annotation.knowledge.services import knowledge as services
from annotation.models import Assignment, CampaignResponse
from annotation.services.guidelines import GuidelinesInForce, current_dataset_guidelines, guidelines_in_force
from annotation.workspace.read_models import found, own_work, owned
from heartbench_core.models import Criterion, CriterionLineage, Dataset
from heartbench_core.read_models import Viewer, read_model

PAGE_SIZE = 50
KINDS = ("faq", "cases")

# The shapes the pages render and the API serialises (built by the selectors).
CriterionKnowledge = selectors.CriterionKnowledge
Hit = selectors.Hit
OpenCounts = selectors.OpenCounts
SearchResults = selectors.SearchResults


@read_model
def reads_as_staff(viewer: Viewer) -> bool:
    """Whether the library shows the viewer the staff view (every status, sources, counts) rather than an expert's."""
    return selectors.reads_as_staff(viewer.person())


@read_model
def datasets(viewer: Viewer) -> list[Dataset]:
    """The datasets the library files entries under, by name (names only: nothing of a campaign)."""
    viewer.person()
    return list(Dataset.objects.order_by("name"))


@read_model
def dataset_named(viewer: Viewer, name: str) -> Dataset:
    """The dataset of that name, else 404."""
    viewer.person()
    return found(Dataset.objects.all(), name=name)


@read_model
def dataset_to_write_in(viewer: Viewer, name: str | None) -> Dataset | None:
    """The dataset of that name, else the first by name (a new entry's form starts there); None when there is none yet."""
    viewer.person()
    return Dataset.objects.filter(name=name).first() or Dataset.objects.order_by("name").first()


# --- lists and search ---------------------------------------------------------------------------------


@read_model
def faq_rows(
    viewer: Viewer, *, dataset: Dataset | None, status: str = "", lineage_key: uuid.UUID | None = None, with_criteria: bool = False
) -> QuerySet[FaqEntry]:
    """FAQ entries of the list (an expert's: published ones, newest published first; staff filter by status too).

    `with_criteria` reads their criteria's keys with them (the API's rows show them).
    """
    as_expert = not reads_as_staff(viewer)
    rows = selectors.faq_list(viewer.person(), as_expert=as_expert, dataset=dataset, status=status, lineage_key=lineage_key)
    return rows.prefetch_related("lineages") if with_criteria else rows


@read_model
def case_rows(
    viewer: Viewer, *, dataset: Dataset | None, status: str = "", lineage_key: uuid.UUID | None = None, with_sources: bool = False
) -> QuerySet[Case]:
    """Cases of the list (an expert's: those the rules allow them, newest published first; staff filter by status too).

    `with_sources` reads the source response and the publisher with the staff's rows (the API's rows show them).
    """
    as_expert = not reads_as_staff(viewer)
    rows = selectors.case_list(viewer.person(), as_expert=as_expert, dataset=dataset, status=status, lineage_key=lineage_key)
    return rows.select_related("source_response", "published_by") if with_sources and not as_expert else rows


@read_model
def faq_list(viewer: Viewer, params: Mapping[str, Any]) -> QuerySet[FaqEntry]:
    """The API's FAQ entries, filtered by `FaqFilters`, with their criteria's keys (`faq_rows`)."""
    given = FaqFilters(params).check().values
    dataset = dataset_named(viewer, given["dataset"]) if "dataset" in given else None
    return faq_rows(viewer, dataset=dataset, status=given.get("status", ""), lineage_key=given.get("key"), with_criteria=True)


@read_model
def case_list(viewer: Viewer, params: Mapping[str, Any]) -> QuerySet[Case]:
    """The API's cases, filtered by `CaseFilters`, with their source response and publisher (`case_rows`)."""
    given = CaseFilters(params).check().values
    dataset = dataset_named(viewer, given["dataset"]) if "dataset" in given else None
    return case_rows(viewer, dataset=dataset, status=given.get("status", ""), lineage_key=given.get("key"), with_sources=True)


@read_model
def search(
    viewer: Viewer,
    query: str,
    *,
    dataset: Dataset | None,
    lineage_key: uuid.UUID | None = None,
    among: Sequence[Dataset] | None = None,
    label: Callable[[Dataset], str] | None = None,
) -> SearchResults:
    """FAQ entries and cases the viewer may read matching the query, with the sections of the datasets' current guidelines.

    The guidelines searched are the dataset's, or those of every dataset (`among`, when the caller
    has them already), each labelled by `label` (the dataset's name by default).
    """
    documents = []
    for d in [dataset] if dataset else (among if among is not None else Dataset.objects.order_by("name")):
        current = current_dataset_guidelines(d)
        if current is not None:
            documents.append((label(d) if label else d.name, current.body))
    return selectors.search(
        viewer.person(), query, as_expert=not reads_as_staff(viewer), dataset=dataset, lineage_key=lineage_key, guidelines=documents
    )


@dataclass(frozen=True)
class LibraryIndex:
    """The library's front page: a search, or a page of FAQ entries or cases; staff see drafts, their review queue's length."""

    staff: bool
    datasets: list[Dataset]
    dataset: Dataset | None
    kind: str
    key: uuid.UUID | None
    query: str
    status: str
    statuses: list[tuple[str, Any]]  # (value, label) of the kind's statuses
    filters: FaqFilters  # what the page asked for, a bad value with its error
    can_write_faq: bool
    can_write_cases: bool
    results: SearchResults | None = None
    page: Page[Any] | None = None
    waiting: int | None = None  # staff: FAQ entries waiting for a review they may give
    focus: Criterion | None = None  # the criterion `key` names, as the rubric shows it now


@read_model
def library_index(viewer: Viewer, params: Mapping[str, Any], *, kind: str, query: str, page: str | None) -> LibraryIndex:
    """The library's front page, its list filtered by `FaqFilters` or `CaseFilters` (a bad value is ignored, with its error;
    an unknown dataset and, for an expert, a status are ignored)."""
    user = viewer.person()
    staff = reads_as_staff(viewer)
    every = datasets(viewer)
    filters = FaqFilters(params) if kind == "faq" else CaseFilters(params)
    given = filters.values
    dataset = next((d for d in every if d.name == given.get("dataset")), None)
    key: uuid.UUID | None = given.get("key")
    statuses = FaqEntry.Status.choices if kind == "faq" else Case.Status.choices
    status = given.get("status", "") if staff else ""
    results: SearchResults | None = None
    shown: Page[Any] | None = None
    if query:
        label: Callable[[Dataset], str] = lambda d: _("Guidelines of %(dataset)s") % {"dataset": d.name}  # noqa: E731
        results = search(viewer, query, dataset=dataset, lineage_key=key, among=every, label=label)
    elif kind == "faq":
        shown = Paginator(faq_rows(viewer, dataset=dataset, status=status, lineage_key=key), PAGE_SIZE).get_page(page)
    else:
        shown = Paginator(case_rows(viewer, dataset=dataset, status=status, lineage_key=key), PAGE_SIZE).get_page(page)
    return LibraryIndex(
        staff=staff,
        datasets=every,
        dataset=dataset,
        kind=kind,
        key=key,
        query=query,
        status=status,
        statuses=statuses,
        filters=filters,
        can_write_faq=services.can_write_faq(user),
        can_write_cases=services.can_write_cases(user),
        results=results,
        page=shown,
        waiting=selectors.waiting_for_review(user) if staff else None,
        focus=selectors.latest_snapshots([key]).get(str(key)) if key is not None else None,
    )


@read_model
def review_queue(viewer: Viewer) -> list[FaqEntry]:
    """FAQ entries waiting for a review the viewer may give (not their own), oldest first."""
    return list(selectors.review_queue(viewer.person()))


# --- FAQ entries -------------------------------------------------------------------------------------

Who = Literal["author", "reviewer"]


def _may_act(viewer: Viewer, entry: FaqEntry, must_be: Who | None) -> FaqEntry:
    if must_be == "author" and entry.author_id != viewer.user_id:
        raise PermissionDenied(_("Only its author edits a FAQ entry."))
    if must_be == "reviewer" and entry.author_id == viewer.user_id:
        raise PermissionDenied(_("Someone other than its author reviews a FAQ entry."))
    return entry


@read_model
def faq_entry(viewer: Viewer, pk: int, *, as_expert: bool | None = None, must_be: Who | None = None) -> FaqEntry:
    """One FAQ entry with its criteria, as the viewer may read it (`as_expert`: by their roles unless told), else 404.

    `must_be` refuses an entry the viewer may not act on: only its author edits it, only someone else reviews it.
    """
    as_expert = not reads_as_staff(viewer) if as_expert is None else as_expert
    return _may_act(viewer, selectors.faq_entry(viewer.person(), pk, as_expert=as_expert), must_be)


@read_model
def faq_to_write(viewer: Viewer, pk: int, *, must_be: Who | None = None) -> FaqEntry:
    """An entry a writer's page acts on (with its dataset; a writer reads every entry), else 404; `must_be` as for `faq_entry`."""
    return _may_act(viewer, found(FaqEntry.objects.select_related("dataset"), pk=pk), must_be)


@read_model
def faq_criterion_keys(viewer: Viewer, entry: FaqEntry) -> list[str]:
    """The lineage keys of the entry's criteria (for its form)."""
    viewer.person()
    return [str(k) for k in entry.lineages.values_list("key", flat=True)]


@read_model
def with_criteria(viewer: Viewer, entries: list[FaqEntry]) -> list[FaqEntry]:
    """The entries with their criteria read (one query for them all; none for entries read with them already), to be shown."""
    viewer.person()
    prefetch_related_objects(entries, "lineages")
    return entries


@dataclass(frozen=True)
class FaqPage:
    """One FAQ entry's page: the entry, its criteria as the rubric shows them now, and (staff) its open counts and what they may do."""

    entry: FaqEntry
    staff: bool
    criteria: list[Criterion]
    counts: OpenCounts | None
    can_edit: bool
    can_review: bool
    can_revise: bool
    can_retire: bool


@read_model
def faq_page(viewer: Viewer, pk: int) -> FaqPage:
    user = viewer.person()
    staff = reads_as_staff(viewer)
    entry = faq_entry(viewer, pk, as_expert=not staff)
    writer = services.can_write_faq(user)
    keys = [lineage.key for lineage in entry.lineages.all()]
    return FaqPage(
        entry=entry,
        staff=staff,
        criteria=list(selectors.latest_snapshots(keys).values()),
        counts=selectors.open_counts(user, faq_ids=[entry.pk]).get(("faq", entry.pk)) if staff else None,
        can_edit=entry.status == FaqEntry.Status.DRAFT and entry.author_id == user.pk,
        can_review=entry.status == FaqEntry.Status.IN_REVIEW and entry.author_id != user.pk and writer,
        can_revise=entry.status == FaqEntry.Status.PUBLISHED and writer,
        can_retire=entry.status != FaqEntry.Status.RETIRED and writer,
    )


# --- cases ----------------------------------------------------------------------------------------


@read_model
def case(viewer: Viewer, pk: int, *, as_expert: bool | None = None) -> Case:
    """One case as the viewer may read it (`as_expert`: by their roles unless told), else 404 (a hidden case and an unknown id alike)."""
    as_expert = not reads_as_staff(viewer) if as_expert is None else as_expert
    return selectors.case(viewer.person(), pk, as_expert=as_expert)


@read_model
def criterion_snapshot(viewer: Viewer, key: uuid.UUID | str | None) -> Criterion | None:
    """The newest snapshot of the criterion lineage `key` (its wording and number as the rubric shows them now), or None."""
    viewer.person()
    if key is None:
        return None
    return selectors.latest_snapshots([key]).get(str(key))


@dataclass(frozen=True)
class CasePage:
    """One case's page: the case, its criterion as the rubric words it now, and (staff) its open counts."""

    case: Case
    staff: bool
    snapshot: Criterion | None
    counts: OpenCounts | None
    can_write: bool

    @property
    def reworded(self) -> bool:
        """The criterion was reworded since the case was written."""
        return self.snapshot is not None and self.snapshot.text != self.case.criterion_text


@read_model
def case_page(viewer: Viewer, pk: int) -> CasePage:
    staff = reads_as_staff(viewer)
    found_case = case(viewer, pk, as_expert=not staff)
    return CasePage(
        case=found_case,
        staff=staff,
        snapshot=criterion_snapshot(viewer, found_case.lineage_id),
        counts=selectors.open_counts(viewer.person(), case_ids=[found_case.pk]).get(("case", found_case.pk)) if staff else None,
        can_write=services.can_write_cases(viewer.person()),
    )


@read_model
def calibration_item(viewer: Viewer, entry_id: int, criterion_id: int) -> tuple[CampaignResponse, Criterion]:
    """A calibration item and one of its criteria, to write a case from (refused when its response is closed to the viewer), else 404."""
    entry = found(CampaignResponse.objects.select_related("campaign", "item", "response"), pk=entry_id)
    viewer.refuse_response(entry.response_id)
    return entry, found(Criterion.objects.select_related("lineage"), pk=criterion_id, item_id=entry.item_id)


@read_model
def lineage_knowledge(viewer: Viewer, lineage: CriterionLineage) -> selectors.LineageKnowledge:
    """Every FAQ entry and case on a criterion lineage the viewer may read, with their open counts (its rubric page, staff)."""
    return selectors.lineage_knowledge(viewer.person(), lineage)


# --- dataset guidelines ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuidelinesHistory:
    dataset: Dataset
    history: list[DatasetGuidelines]  # every revision, newest first, with its author


@read_model
def dataset_guidelines(viewer: Viewer, name: str) -> GuidelinesHistory:
    """A dataset's guidelines: every revision, newest first (staff: they hold no campaign data)."""
    dataset = dataset_named(viewer, name)
    history = list(DatasetGuidelines.objects.filter(dataset_id=dataset.pk).select_related("author").order_by("-revision"))
    return GuidelinesHistory(dataset=dataset, history=history)


# --- beside the judging page: the expert's own assignment ----------------------------------------------


@read_model
def panel_assignment(viewer: Viewer, public_id: str) -> Assignment:
    """The expert's own assignment the panel sits beside (lapsed work too: its page opens); another's id answers 404 like an unknown one."""
    return own_work(viewer, public_id, lapsed_too=True)


@read_model
def criterion_in_focus(viewer: Viewer, assignment: Assignment, criterion_id: int | None) -> Criterion | None:
    """The criterion of the expert's assignment in focus (None when none is), else 404."""
    owned(viewer, assignment)
    if criterion_id is None:
        return None
    return found(Criterion.objects.select_related("lineage"), pk=criterion_id, item_id=assignment.campaign_response.item_id)


@dataclass(frozen=True)
class Panel:
    """The library beside the judging page: the guidelines in force, entries on the criterion in focus, and search results."""

    assignment: Assignment
    criterion: Criterion | None
    guidelines: GuidelinesInForce | None
    knowledge: CriterionKnowledge | None
    results: SearchResults | None


@read_model
def panel(viewer: Viewer, assignment: Assignment, criterion: Criterion | None, *, query: str, with_guidelines: bool) -> Panel:
    """What the panel shows, read as an expert whatever else the viewer is; the guidelines in force when asked (and for a search)."""
    user = viewer.person()
    owned(viewer, assignment)
    campaign = assignment.campaign_response.campaign
    in_force = guidelines_in_force(campaign) if with_guidelines or query else None
    knowledge = selectors.for_criterion(user, criterion, as_expert=True) if criterion is not None else None
    results = None
    if query:
        results = selectors.search(
            user,
            query,
            as_expert=True,
            dataset=campaign.version.dataset,
            lineage_key=criterion.lineage_id if criterion else None,
            guidelines=[(_("Guidelines"), in_force.body)] if in_force is not None else [],  # those in force, labelled
        )
    return Panel(assignment=assignment, criterion=criterion, guidelines=in_force, knowledge=knowledge, results=results)


@read_model
def panel_entry(viewer: Viewer, *, faq_id: int | None, case_id: int | None) -> tuple[FaqEntry | None, Case | None]:
    """The FAQ entry or the case named (the FAQ entry when both are), as an expert may read it, else 404."""
    if faq_id is not None:
        return faq_entry(viewer, faq_id, as_expert=True), None
    if case_id is not None:
        return None, case(viewer, case_id, as_expert=True)
    return None, None
