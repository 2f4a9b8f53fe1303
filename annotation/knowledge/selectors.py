"""Reads of the knowledge library, and its one set of visibility rules.

Who reads what (docs/knowledge.md, "Blindness"):

- An expert reads published FAQ entries and the published cases of `visible_cases(as_expert=True)`:
  a case made from a campaign only once that campaign is closed and only when its response is in
  no open campaign the expert rates in, or once it was rewritten on an invented response, and
  then never by an expert who was given that response. A written-from-scratch case has no
  source. Experts never see where a case came from, its cause, who wrote anything, or counts of
  what others opened.
- Staff read every entry and case, drafts included, except (whatever their roles) the cases made
  from a campaign they are an expert of while it is open, or from a response sampled into one:
  the staff views of those are closed to them, as every staff view of that campaign is.

Every list, search, count and snippet below starts from these querysets, so none can say more
than they do.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from annotation.knowledge import search as sql_search
from annotation.knowledge.models import Case, FaqEntry, LibraryOpen
from annotation.models import Assignment, Campaign
from heartbench_core.blindness import blind_scope
from heartbench_core.lib import search as lib
from heartbench_core.models import Criterion, CriterionLineage, Dataset, User
from heartbench_core.roles import STAFF_ROLES, has_role

M = TypeVar("M", FaqEntry, Case)

RESULTS_PER_KIND = 20
SNIPPET_CHARS = 140


def reads_as_staff(user: User) -> bool:
    """Whether the library pages show this user the staff view (every status, sources, counts)."""
    return has_role(user, *STAFF_ROLES)


def visible_faq(viewer: User, *, as_expert: bool) -> QuerySet[FaqEntry]:
    """FAQ entries the viewer may read: published ones as an expert, all as staff (they hold no campaign data)."""
    if as_expert or not reads_as_staff(viewer):
        return FaqEntry.objects.published()
    return FaqEntry.objects.all()


def visible_cases(viewer: User, *, as_expert: bool) -> QuerySet[Case]:
    """Cases the viewer may read (the module docstring has the rules)."""
    scope = blind_scope(viewer)
    if as_expert or not reads_as_staff(viewer):
        real = Q(source_campaign__isnull=True) | Q(source_campaign__status=Campaign.Status.CLOSED)
        if scope:
            real &= ~Q(source_response__in=scope.sampled_response_ids)
        given = Assignment.objects.filter(expert_id=viewer.pk).values("campaign_response__response_id")
        invented = Q(invented=True) & ~Q(source_response__in=given)
        return Case.objects.published().filter(real | invented)
    qs = Case.objects.all()
    if scope:
        qs = qs.exclude(source_campaign_id__in=scope.closed_campaign_ids).exclude(source_response__in=scope.response_ids)
    return qs


def faq_entry(viewer: User, pk: int, *, as_expert: bool) -> FaqEntry:
    """One FAQ entry the viewer may read (with its criteria), else 404 (an unknown id answers alike)."""
    found = (
        visible_faq(viewer, as_expert=as_expert)
        .select_related("dataset", "author", "reviewer", "replaces")
        .prefetch_related(Prefetch("lineages", queryset=CriterionLineage.objects.order_by("key")))
        .filter(pk=pk)
        .first()
    )
    if found is None:
        raise Http404(_("No such FAQ entry."))
    return found


def case(viewer: User, pk: int, *, as_expert: bool) -> Case:
    """One case the viewer may read, else 404 (a hidden case and an unknown id answer alike)."""
    found = (
        visible_cases(viewer, as_expert=as_expert)
        .select_related("dataset", "author", "published_by", "source_campaign")
        .filter(pk=pk)
        .first()
    )
    if found is None:
        raise Http404(_("No such case."))
    return found


# --- search ---------------------------------------------------------------------------------------


@dataclass
class Hit:
    """One search result: the entry (or a guidelines section), its title and a snippet, marked where the query matched."""

    kind: str  # "faq" | "case" | "guidelines"
    title: list[lib.Segment]
    snippet: list[lib.Segment]
    score: float
    faq: FaqEntry | None = None
    case: Case | None = None
    heading: str = ""  # for a guidelines section


@dataclass
class SearchResults:
    query: str
    terms: list[lib.Term]
    guidelines: list[Hit] = field(default_factory=list)
    faq: list[Hit] = field(default_factory=list)
    cases: list[Hit] = field(default_factory=list)
    faq_total: int = 0
    case_total: int = 0

    @property
    def empty(self) -> bool:
        return not (self.guidelines or self.faq or self.cases)


def search(
    viewer: User,
    query: str,
    *,
    as_expert: bool,
    dataset: Dataset | None = None,
    lineage_key: uuid.UUID | None = None,
    guidelines: list[tuple[str, str]] | None = None,
    limit: int = RESULTS_PER_KIND,
) -> SearchResults:
    """FAQ entries and cases the viewer may read that match every term, best first; guidelines sections too.

    `lineage_key` (the criterion in focus) ranks entries linked to it higher; `guidelines` are
    (label, Markdown) documents searched section by section. Four queries (per kind, the ranked ids with the
    total, then the page's rows).
    """
    terms = lib.parse_query(query)
    results = SearchResults(query=query, terms=terms)
    if not terms:
        return results
    faq = visible_faq(viewer, as_expert=as_expert)
    cases = visible_cases(viewer, as_expert=as_expert)
    if dataset is not None:
        faq, cases = faq.filter(dataset_id=dataset.pk), cases.filter(dataset_id=dataset.pk)
    faq_focus = cases_focus = None
    if lineage_key is not None:
        faq_focus = Exists(FaqEntry.lineages.through.objects.filter(faqentry_id=OuterRef("pk"), criterionlineage_id=lineage_key))
        cases_focus = Q(lineage_id=lineage_key)
    faq_page, results.faq_total = _page(faq, sql_search.ranked(faq, terms, focus=faq_focus), limit)
    case_page, results.case_total = _page(cases, sql_search.ranked(cases, terms, focus=cases_focus), limit)
    for entry in faq_page:
        snippet = _snippet([lib.plain_text(entry.answer), " · ".join(entry.tags)], terms)
        results.faq.append(Hit("faq", lib.highlight(entry.question, terms), snippet, entry.score, faq=entry))  # type: ignore[attr-defined]
    for found in case_page:
        snippet = _snippet([found.excerpt, lib.plain_text(found.reasoning), found.criterion_text, " · ".join(found.tags)], terms)
        results.cases.append(Hit("case", lib.highlight(found.title, terms), snippet, found.score, case=found))  # type: ignore[attr-defined]
    results.guidelines = guidelines_hits(guidelines or [], terms, limit=limit)
    return results


def _page(visible: QuerySet[M], ranked: QuerySet[M], limit: int) -> tuple[list[M], int]:
    """The best `limit` rows of a ranked search, with their scores, and how many match in all (two queries).

    The ranking reads only ids, scores and dates (each row carries the total as a window count), so
    its sort and count hold narrow rows whatever the number of matches; then the page's rows are
    read whole, by id, from the same visible rows.
    """
    top = list(ranked.values_list("pk", "score", "total")[:limit])  # type: ignore[misc]  # annotations of `ranked`
    if not top:
        return [], 0
    found = {row.pk: row for row in visible.filter(pk__in=[row[0] for row in top]).select_related("dataset")}
    page = []
    for pk, score, _total in top:
        if pk in found:
            found[pk].score = score  # type: ignore[attr-defined]
            page.append(found[pk])
    return page, top[0][2]


def _snippet(texts: list[str], terms: list[lib.Term]) -> list[lib.Segment]:
    """A window of the first text where the query matched (the first text when none holds a whole term or pair)."""
    for text in texts:
        segments = lib.highlight(text, terms, width=SNIPPET_CHARS)
        if any(s.marked for s in segments):
            return segments
    return lib.highlight(texts[0], terms, width=SNIPPET_CHARS)


def guidelines_hits(documents: list[tuple[str, str]], terms: list[lib.Term], *, limit: int = RESULTS_PER_KIND) -> list[Hit]:
    """The sections of the guidelines documents every term matches, best first (scored in Python: a document is not a row)."""
    hits: list[Hit] = []
    for label, markdown in documents:
        for section in lib.sections(markdown):
            body = lib.plain_text(section.body)
            heading = section.heading or label
            value = lib.score(lib.normalise(heading), lib.normalise(f"{heading}\n{body}"), terms)
            if value is not None:
                hits.append(
                    Hit("guidelines", lib.highlight(heading, terms), lib.highlight(body, terms, width=SNIPPET_CHARS), value, heading=label)
                )
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]


# --- the judging page's panel: the criterion in focus ------------------------------------------------


@dataclass
class CriterionKnowledge:
    """What the library holds on one criterion, for an expert: FAQ entries (its own, then its ability's) and cases."""

    criterion: Criterion
    faq: list[FaqEntry]
    ability_faq: list[FaqEntry]
    cases: list[Case]

    @property
    def empty(self) -> bool:
        return not (self.faq or self.ability_faq or self.cases)


def for_criterion(viewer: User, criterion: Criterion, *, as_expert: bool, limit: int = RESULTS_PER_KIND) -> CriterionKnowledge:
    """The FAQ entries and cases on a criterion (by lineage key, so across dataset versions), newest first (three queries)."""
    faq = visible_faq(viewer, as_expert=as_expert).filter(dataset_id=criterion.lineage.dataset_id)
    own = list(faq.filter(lineages=criterion.lineage_id).order_by("-published_at", "-id")[:limit])
    by_ability = list(
        faq.filter(ability_labels__contains=f" {criterion.ability} ")
        .exclude(pk__in=[e.pk for e in own])
        .order_by("-published_at", "-id")[:limit]
    )
    cases = list(
        visible_cases(viewer, as_expert=as_expert).filter(lineage_id=criterion.lineage_id).order_by("-published_at", "-id")[:limit]
    )
    return CriterionKnowledge(criterion=criterion, faq=own, ability_faq=by_ability, cases=cases)


# --- staff: lists, counts, a criterion's page ----------------------------------------------------------


@dataclass(frozen=True)
class OpenCounts:
    """How often experts opened an entry and how many said it helped (opens from the viewer's own open campaigns left out)."""

    opens: int = 0
    helped: int = 0


def open_counts(viewer: User, *, faq_ids: Sequence[int] = (), case_ids: Sequence[int] = ()) -> dict[tuple[str, int], OpenCounts]:
    """Per ("faq"|"case", id): opens and "helped" answers, without the opens made on judging pages of the viewer's open campaigns."""
    rows = LibraryOpen.objects.filter(Q(faq_id__in=list(faq_ids)) | Q(case_id__in=list(case_ids)))
    scope = blind_scope(viewer)
    if scope:
        rows = rows.exclude(campaign_id__in=scope.campaign_ids)
    out: dict[tuple[str, int], OpenCounts] = {}
    for faq_id, case_id, opens, helped in (
        rows.order_by().values_list("faq_id", "case_id").annotate(n=Count("id"), h=Count("id", filter=Q(helped=True)))
    ):
        out[("faq", faq_id) if faq_id else ("case", case_id)] = OpenCounts(opens, helped)
    return out


def _listed(qs: QuerySet[M], *, as_expert: bool, dataset: Dataset | None, status: str, on_lineage: Q | None) -> QuerySet[M]:
    """A list's rows: of the dataset, of the status (staff only), on the lineage; newest published first (staff: then newest changed)."""
    if dataset is not None:
        qs = qs.filter(dataset_id=dataset.pk)
    if status and not as_expert:
        qs = qs.filter(status=status)
    if on_lineage is not None:
        qs = qs.filter(on_lineage)
    return qs.order_by(*(("-published_at", "-id") if as_expert else ("-published_at", "-updated_at", "-id")))


def faq_list(
    viewer: User, *, as_expert: bool = False, dataset: Dataset | None = None, status: str = "", lineage_key: uuid.UUID | None = None
) -> QuerySet[FaqEntry]:
    """The FAQ entries of a list the viewer may read, as an expert or as staff (with who wrote and reviewed them)."""
    qs = visible_faq(viewer, as_expert=as_expert).select_related("dataset", *(() if as_expert else ("author", "reviewer")))
    return _listed(qs, as_expert=as_expert, dataset=dataset, status=status, on_lineage=Q(lineages=lineage_key) if lineage_key else None)


def case_list(
    viewer: User, *, as_expert: bool = False, dataset: Dataset | None = None, status: str = "", lineage_key: uuid.UUID | None = None
) -> QuerySet[Case]:
    """The cases of a list the viewer may read, as an expert or as staff (with who wrote them and their campaign)."""
    qs = visible_cases(viewer, as_expert=as_expert).select_related("dataset", *(() if as_expert else ("author", "source_campaign")))
    return _listed(qs, as_expert=as_expert, dataset=dataset, status=status, on_lineage=Q(lineage_id=lineage_key) if lineage_key else None)


def review_queue(viewer: User) -> QuerySet[FaqEntry]:
    """FAQ entries waiting for review that the viewer may review (not their own), oldest first."""
    return (
        FaqEntry.objects.filter(status=FaqEntry.Status.IN_REVIEW)
        .exclude(author_id=viewer.pk)
        .select_related("dataset", "author")
        .order_by("submitted_at", "id")
    )


@dataclass
class LineageKnowledge:
    """A criterion's FAQ entries and cases for its rubric page (staff), with open counts and the causes decided against it."""

    faq: list[FaqEntry]
    cases: list[Case]
    counts: dict[tuple[str, int], OpenCounts]
    causes: Counter[str] = field(default_factory=Counter)


def lineage_knowledge(viewer: User, lineage: CriterionLineage) -> LineageKnowledge:
    """Every FAQ entry and case on the lineage the viewer may read, with their open counts (three queries)."""
    faq = list(faq_list(viewer, lineage_key=lineage.key))
    cases = list(case_list(viewer, lineage_key=lineage.key))
    counts = open_counts(viewer, faq_ids=[e.pk for e in faq], case_ids=[c.pk for c in cases])
    return LineageKnowledge(faq=faq, cases=cases, counts=counts)


def latest_snapshots(keys: Sequence[uuid.UUID | str] | None, *, datasets: Sequence[Dataset] = ()) -> dict[str, Criterion]:
    """Each lineage's newest snapshot (its question id, number, wording and ability as the rubric shows them now), in one query.

    Of the lineages `keys`, or (None) of every lineage of `datasets`.
    """
    found: dict[str, Criterion] = {}
    criteria = (
        Criterion.objects.filter(lineage_id__in=list(keys)) if keys is not None else Criterion.objects.filter(lineage__dataset__in=datasets)
    )
    for criterion in criteria.select_related("item__version").order_by("lineage_id", "-item__version__number"):
        found.setdefault(str(criterion.lineage_id), criterion)
    return found


def waiting_for_review(viewer: User) -> int:
    """How many FAQ entries wait for a review the viewer may give."""
    return review_queue(viewer).count()
