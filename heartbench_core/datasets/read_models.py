"""Read models of the dataset browser and the datasets API: datasets, versions, items, models and responses.

A dataset's items and rubric are what its experts judge against, so they are closed to no one on
staff; what blindness closes is a dataset's model responses (left out of a list whole, refused by
id) and what was shown of them is recorded (`Viewer.shown`, by the API's `ShowsResponses`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from heartbench_core import selectors
from heartbench_core.datasets.filters import ItemFilters, ResponseFilters, VersionFilters
from heartbench_core.models import Dataset, DatasetVersion, Item, LanguageModel, ModelResponse
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import STAFF_ROLES


def _api_list(viewer: Viewer) -> None:
    """An API viewset's queryset: its permission class admits staff only, and the schema generator reads it with no user
    (to type the path's id), so the role is not checked again here. Nothing in it is closed to anyone on staff."""


@read_model
def datasets(viewer: Viewer) -> QuerySet[Dataset]:
    """Every dataset with its version and response counts, by name (the dataset list, and the home page of anyone signed in)."""
    viewer.person()
    return selectors.datasets_with_versions()


@read_model
def dataset_list(viewer: Viewer) -> QuerySet[Dataset]:
    """Every dataset by name (the API's list)."""
    _api_list(viewer)
    return Dataset.objects.order_by("name")


def _dataset(name: str) -> Dataset:
    return one(Dataset.objects.all(), name=name)


def version_of(name: str, label: str) -> DatasetVersion:
    """The version `label` of the dataset `name`, with its dataset, parent and author (404): for the read models of its screens."""
    dataset = _dataset(name)
    return one(dataset.versions.select_related("dataset", "parent", "created_by"), label=label)


@dataclass(frozen=True)
class DatasetPage:
    dataset: Dataset
    versions: list[DatasetVersion]  # newest first


@read_model
def dataset_page(viewer: Viewer, name: str) -> DatasetPage:
    """A dataset with every version, newest first (its page, and the version diff's choices)."""
    viewer.require(*STAFF_ROLES)
    dataset = _dataset(name)
    return DatasetPage(dataset, list(selectors.versions_of(dataset)))


@dataclass(frozen=True)
class VersionPage:
    version: DatasetVersion
    items: QuerySet[Item]  # filtered, with their criterion counts, in file order (the page cuts it)
    scenes: list[str]
    filters: ItemFilters  # what was asked, a bad value with its error


@read_model
def version_page(viewer: Viewer, name: str, label: str, params: Mapping[str, Any]) -> VersionPage:
    """A version's items, filtered as the API filters them, and the scenes to filter by."""
    viewer.require(*STAFF_ROLES)
    found = version_of(name, label)
    filters = ItemFilters(params)
    return VersionPage(found, filters.narrow(selectors.items_of(found)), selectors.scenes_of(found), filters)


@read_model
def changed_items(viewer: Viewer, version: DatasetVersion, question_ids: list[str], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The given items of a version, as rows of `fields` (the version diff's before and after; one query)."""
    viewer.require(*STAFF_ROLES)
    return list(version.items.filter(question_id__in=question_ids).values("question_id", *fields))


@dataclass(frozen=True)
class ItemPage:
    version: DatasetVersion
    item: Item
    criteria: list[Any]


@read_model
def item_page(viewer: Viewer, name: str, label: str, question_id: str) -> ItemPage:
    """An item of a version with its rubric, in order (404 when the version does not hold it)."""
    viewer.require(*STAFF_ROLES)
    found = version_of(name, label)
    pair = selectors.item_with_rubric(found, question_id)
    if pair is None:
        raise Http404(_("No such item in this version."))
    return ItemPage(found, *pair)


@read_model
def versions(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[DatasetVersion]:
    """Every version (filtered by `VersionFilters`), by dataset and newest first (the API's list)."""
    _api_list(viewer)
    qs = DatasetVersion.objects.select_related("dataset", "parent", "created_by").order_by("dataset__name", "-number")
    return VersionFilters(params).check().narrow(qs)


@read_model
def version_against(viewer: Viewer, version: DatasetVersion, label: str | None) -> DatasetVersion | None:
    """The version a diff compares `version` with: the dataset's version `label` (404 when none), by default the parent."""
    viewer.require(*STAFF_ROLES)
    return one(DatasetVersion.objects.all(), dataset=version.dataset, label=label) if label else version.parent


@read_model
def items(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[Item]:
    """Items with their criteria, by version and position, filtered as a version's page filters them (the API's list)."""
    _api_list(viewer)
    return ItemFilters(params).check().narrow(Item.objects.prefetch_related("criteria").order_by("version_id", "position"))


@read_model
def language_models(viewer: Viewer) -> QuerySet[LanguageModel]:
    """Every model by name (the names are not closed: which model a campaign's responses come from is, by dataset)."""
    _api_list(viewer)
    return LanguageModel.objects.order_by("name")


def _responses(params: Mapping[str, Any] | None) -> QuerySet[ModelResponse]:
    return ResponseFilters(params).check().narrow(ModelResponse.objects.select_related("dataset", "model").order_by("id"))


@read_model
def responses(viewer: Viewer, params: Mapping[str, Any] | None = None) -> QuerySet[ModelResponse]:
    """Responses with their dataset and model, by id; those of a dataset closed to the viewer are left out whole."""
    return viewer.visible_responses(_responses(params))


@read_model
def response(viewer: Viewer, public_id: str, params: Mapping[str, Any] | None = None, *, via: str) -> ModelResponse:
    """One response by its public id (404), refused with the reason when its dataset is closed to the viewer; recorded as shown."""
    viewer.require(*STAFF_ROLES)
    found = one(_responses(params), public_id=public_id)
    viewer.refuse_response(found.pk)
    viewer.shown([found.pk], via=via)
    return found
