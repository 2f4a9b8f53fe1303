"""The gold-set builder's list: the responses of imported models on a version, each with whether it is free and its settled verdicts.

The builder's read models (its list, the drafts and their sheets), rendered by the pages and
serialised by the API through `validation.read_models`. The viewer's blind scope applies: a dataset
an open campaign of theirs is on lists nothing (and is not offered).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet

from annotation.services.campaigns import labelled_holders
from heartbench_core.blindness import CLOSED_RESPONSE, blind_scope, record_exposures
from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item, LanguageModel, ModelResponse, User
from heartbench_core.read_models import Viewer, read_model
from validation.models import GoldDraft
from validation.services.gold_builder import criteria_by_item, settled_verdicts

PER_PAGE = 50
EXCERPT = 240


@dataclass(frozen=True)
class BuilderFilters:
    question_id: str = ""
    ability: str = ""
    difficulty: str | None = None  # None: any; "" is the "unspecified" difficulty
    model: str = ""
    free_only: bool = False


@dataclass(frozen=True)
class Holder:
    kind: str
    name: str


@dataclass(frozen=True)
class CandidateRow:
    """One response as the builder lists it."""

    response_id: int
    question_id: str
    difficulty: str
    abilities: list[str]
    model: str
    excerpt: str
    held_by: list[Holder]
    criteria: int
    missing_positions: list[int]  # 1-based positions of criteria without a settled verdict

    @property
    def free(self) -> bool:
        return not self.held_by

    @property
    def settled(self) -> int:
        return self.criteria - len(self.missing_positions)

    @property
    def pickable(self) -> bool:
        return self.free and not self.missing_positions


@dataclass
class CandidateList:
    version: DatasetVersion | None
    page: Page | None
    rows: list[CandidateRow] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    abilities: list[str] = field(default_factory=list)


def builder_versions(user: User) -> QuerySet[DatasetVersion]:
    """Versions the viewer may build from or plan on: every version of a dataset their blind scope leaves open."""
    visible = blind_scope(user).visible_on_datasets(Dataset.objects.all(), "pk")
    return DatasetVersion.objects.filter(dataset__in=visible).select_related("dataset").order_by("dataset__name", "-created_at")


@read_model
def gold_candidates(
    viewer: Viewer, version: DatasetVersion | None, filters: BuilderFilters, page_number: str | int | None = 1
) -> CandidateList:
    """The version's responses matching the filters, a page at a time, with holders and verdict coverage (a fixed number of
    queries); refused on a dataset closed to the viewer."""
    user = viewer.person()
    if version is None:
        return CandidateList(version=None, page=None)
    if viewer.hides_dataset(version.dataset_id):
        raise PermissionDenied(CLOSED_RESPONSE)
    items = Item.objects.filter(version=version)
    if filters.question_id:
        items = items.filter(question_id=filters.question_id)
    if filters.difficulty is not None:
        items = items.filter(difficulty=filters.difficulty)
    if filters.ability:
        items = items.filter(criteria__ability=filters.ability)
    responses = viewer.visible_responses(
        ModelResponse.objects.filter(dataset_id=version.dataset_id, question_id__in=items.values("question_id"))
    ).select_related("model")
    if filters.model:
        responses = responses.filter(model__name=filters.model)
    if filters.free_only:
        held = labelled_holders(list(responses.values_list("pk", flat=True)), dataset_id=version.dataset_id)
        responses = responses.exclude(pk__in=list(held))
    page = Paginator(responses.order_by("question_id", "model__name", "pk"), PER_PAGE).get_page(page_number)
    shown: list[ModelResponse] = list(page.object_list)
    ids = [r.pk for r in shown]
    item_of = {
        qid: (pk, difficulty)
        for pk, qid, difficulty in version.items.filter(question_id__in={r.question_id for r in shown}).values_list(
            "pk", "question_id", "difficulty"
        )
    }
    criteria = criteria_by_item([pk for pk, _d in item_of.values()], "position", "pk", "ability")
    held_by = labelled_holders(ids, dataset_id=version.dataset_id)
    verdicts = settled_verdicts(version=version, response_ids=ids)
    rows = []
    for r in shown:
        item_id, difficulty = item_of[r.question_id]
        mine = verdicts.get(r.pk, {})
        rows.append(
            CandidateRow(
                response_id=r.pk,
                question_id=r.question_id,
                difficulty=difficulty,
                abilities=sorted({a for _p, _c, a in criteria[item_id]}),
                model=r.model.name,
                excerpt=r.text[:EXCERPT],
                held_by=[Holder(kind, name) for kind, name in held_by.get(r.pk, [])],
                criteria=len(criteria[item_id]),
                missing_positions=[p + 1 for p, c, _a in criteria[item_id] if c not in mine],
            )
        )
    # A staff view showing responses with their model and settled verdicts: none of them may reach this user blind.
    record_exposures(user=user, response_ids=ids, via="gold_builder")
    return CandidateList(
        version=version,
        page=page,
        rows=rows,
        models=sorted(LanguageModel.objects.filter(responses__dataset_id=version.dataset_id).distinct().values_list("name", flat=True)),
        abilities=sorted(set(Criterion.objects.filter(item__version=version).values_list("ability", flat=True))),
    )


# --- drafts whose verdicts senior reviewers write --------------------------------------------------


@dataclass(frozen=True)
class DraftLine:
    """A draft with how far its verdicts are written."""

    draft: GoldDraft
    responses: int
    needed: int  # criteria over all its responses
    written: int


@read_model
def gold_drafts(viewer: Viewer) -> list[DraftLine]:
    """Drafts not yet finalised, on datasets the viewer's blind scope leaves open (a fixed number of queries)."""
    drafts = list(
        blind_scope(viewer.person())
        .visible_on_datasets(GoldDraft.objects.filter(campaign__isnull=True), "version__dataset_id")
        .select_related("version__dataset")
        .annotate(n_responses=Count("responses", distinct=True), n_written=Count("verdicts", distinct=True))
    )
    through = GoldDraft.responses.through.objects.filter(golddraft_id__in=[d.pk for d in drafts])
    questions = list(through.values_list("golddraft_id", "golddraft__version_id", "modelresponse__question_id"))
    sizes = {
        (version, question): n
        for version, question, n in Item.objects.filter(
            version_id__in={v for _d, v, _q in questions}, question_id__in={q for _d, _v, q in questions}
        )
        .annotate(n=Count("criteria"))
        .values_list("version_id", "question_id", "n")
    }
    needed: dict[int, int] = defaultdict(int)
    for draft_id, version, question in questions:
        needed[draft_id] += sizes.get((version, question), 0)
    return [DraftLine(d, d.n_responses, needed[d.pk], d.n_written) for d in drafts]


@dataclass
class DraftCriterion:  # the API names its component after it
    pk: int
    position: int
    ability: str
    weight: int | None
    text: str
    hit: bool | None = field(metadata={"help_text": "Null until a verdict is written."})
    explanation: str


@dataclass
class ResponseSheet:
    """One response of a draft as senior reviewers write its verdicts: no model name."""

    response_id: int
    number: int
    question_id: str
    dialogue: list
    text: str
    criteria: list[DraftCriterion]

    @property
    def written(self) -> int:
        return sum(c.hit is not None for c in self.criteria)


@read_model
def gold_draft_sheets(viewer: Viewer, draft: GoldDraft, *, posted: tuple[int, Any] | None = None) -> list[ResponseSheet]:
    """Every response of the draft with its criteria and the verdicts written so far (or, for `posted`, what a refused POST typed)."""
    user = viewer.person()
    if blind_scope(user).hides_dataset(draft.version.dataset_id):
        raise PermissionDenied(CLOSED_RESPONSE)
    responses = list(draft.responses.order_by("question_id", "pk").values_list("pk", "question_id", "text"))
    items = {
        qid: (pk, dialogue)
        for pk, qid, dialogue in draft.version.items.filter(question_id__in={q for _r, q, _t in responses}).values_list(
            "pk", "question_id", "dialogue"
        )
    }
    criteria = criteria_by_item([pk for pk, _d in items.values()], "pk", "position", "ability", "weight", "text")
    written = {(r, c): (hit, expl) for r, c, hit, expl in draft.verdicts.values_list("response_id", "criterion_id", "hit", "explanation")}
    # The page shows these responses as gold to be: none of them may reach this viewer blind.
    record_exposures(user=user, response_ids=[pk for pk, _q, _t in responses], via="gold_draft")
    sheets = []
    for number, (pk, qid, text) in enumerate(responses, start=1):
        item_id, dialogue = items.get(qid, (0, []))
        lines = []
        for cpk, position, ability, weight, ctext in criteria[item_id]:
            hit, explanation = written.get((pk, cpk), (None, ""))
            if posted is not None and posted[0] == pk:
                typed = posted[1].get(f"hit_{cpk}")
                hit = True if typed == "1" else False if typed == "0" else hit
                explanation = posted[1].get(f"explanation_{cpk}", explanation)
            lines.append(DraftCriterion(cpk, position, ability, weight, ctext, hit, explanation))
        sheets.append(ResponseSheet(pk, number, qid, dialogue, text, lines))
    return sheets
