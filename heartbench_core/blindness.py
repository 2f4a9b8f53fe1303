"""Blindness is a property of the person in a campaign, whatever their roles.

While a user is an expert of an open campaign on dataset D, every staff view of D is closed to
them: D's responses, judge runs and verdicts, scores and leaderboards, and every campaign on D
(refused whole, or left out of a list whole). The unit is the dataset, never the response or the
item: a list that left out exactly the responses of the user's campaign would name, by the hole,
the model of the response they judge and which items their campaign sampled (and so which of
their work is a hidden gold check). What a user knows anyway (that they are an expert of a
campaign on D) is the only thing a closed view may reveal.

Every response a staff view did show a user together with its model, the judge's verdicts, other
raters' judgments or gold status is recorded as a `StaffExposure`, so the assignment service
never serves it to them blind.

The core knows no campaigns: the app that owns them registers, in its `AppConfig.ready`, the
source that answers "which open campaigns is this user an expert of, on which datasets, and which
responses do they hold" (`register_blind_scope_source`), so no import points out of the core.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, Model, OuterRef, QuerySet
from django.utils.translation import gettext_lazy as _

from heartbench_core.models import ModelResponse, StaffExposure

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from heartbench_core.models import User

ModelT = TypeVar("ModelT", bound=Model)
# A subquery of ModelResponse ids (values_list("…", flat=True) of any model).
ResponseIds = QuerySet[Any, int]

CLOSED_CAMPAIGN = _("You are an expert in this campaign; its staff views are closed to you until it closes.")
CLOSED_DATASET_CAMPAIGN = _(
    "You are an expert in an open campaign on this campaign's dataset; its staff views are closed to you until that campaign closes."
)
CLOSED_RESPONSE = _(
    "You are an expert in an open campaign on this response's dataset; its staff views are closed to you until that campaign closes."
)
CLOSED_MODEL = _(
    "You are an expert in an open campaign on this dataset; its judge verdicts and scores are closed to you until that campaign closes."
)
CLOSED_DATASET = _("You are an expert in an open campaign on this dataset; its leaderboards are closed to you until that campaign closes.")


@dataclass(frozen=True)
class BlindScopeSource:
    """How the app that owns campaigns answers the questions blindness asks."""

    campaign_ids: Callable[[User], frozenset[int]]  # signed-in user -> ids of the open campaigns they are an expert of
    dataset_ids: Callable[[frozenset[int]], frozenset[int]]  # campaign ids -> the datasets they are on
    campaigns_on: Callable[[frozenset[int]], frozenset[int]]  # dataset ids -> ids of every campaign on them (any kind, any status)
    response_ids: Callable[[frozenset[int]], ResponseIds]  # campaign ids -> ModelResponse ids sampled into them


_source: BlindScopeSource | None = None


def register_blind_scope_source(source: BlindScopeSource) -> None:
    """Called once, from the campaign app's AppConfig.ready."""
    global _source
    _source = source


class BlindScope:
    """What one user must not see through staff views: every dataset an open campaign of theirs is on, whole."""

    def __init__(self, campaign_ids: frozenset[int], source: BlindScopeSource | None) -> None:
        self.campaign_ids = campaign_ids
        self._source = source

    def __bool__(self) -> bool:
        return bool(self.campaign_ids)

    @cached_property
    def dataset_ids(self) -> frozenset[int]:
        """Datasets of the user's open campaigns: closed whole to their staff views."""
        if not self or self._source is None:
            return frozenset()
        return frozenset(self._source.dataset_ids(self.campaign_ids))

    @cached_property
    def closed_campaign_ids(self) -> frozenset[int]:
        """Every campaign on a closed dataset (their own, and any other blind test, gold or calibration set on it)."""
        if not self or self._source is None:
            return frozenset()
        return frozenset(self._source.campaigns_on(self.dataset_ids)) | self.campaign_ids

    @property
    def response_ids(self) -> ResponseIds:
        """ModelResponse ids of the closed datasets (a subquery; empty when none)."""
        return ModelResponse.objects.filter(dataset_id__in=sorted(self.dataset_ids)).values_list("pk", flat=True)

    @property
    def sampled_response_ids(self) -> ResponseIds:
        """ModelResponse ids sampled into the user's open campaigns (a subquery): what the knowledge library keeps from them."""
        if not self or self._source is None:
            return ModelResponse.objects.none().values_list("pk", flat=True)
        return self._source.response_ids(self.campaign_ids)

    def hides_campaign(self, campaign_id: int) -> bool:
        return campaign_id in self.closed_campaign_ids

    def hides_response(self, response_id: int) -> bool:
        if not self:
            return False
        return ModelResponse.objects.filter(pk=response_id, dataset_id__in=sorted(self.dataset_ids)).exists()

    def hidden_among(self, response_ids: Iterable[int]) -> set[int]:
        """The given ModelResponse ids that are hidden (one query)."""
        ids = set(response_ids)
        if not self or not ids:
            return set()
        return set(ModelResponse.objects.filter(pk__in=ids, dataset_id__in=sorted(self.dataset_ids)).values_list("pk", flat=True))

    def visible_responses(self, qs: QuerySet[ModelT], field: str = "pk") -> QuerySet[ModelT]:
        """`qs` without the rows whose `field` (a ModelResponse id) is a response of a closed dataset."""
        if not self:
            return qs
        return qs.exclude(**{f"{_dataset_path(field)}__in": sorted(self.dataset_ids)})

    def visible_on_datasets(self, qs: QuerySet[ModelT], field: str) -> QuerySet[ModelT]:
        """`qs` without the rows whose `field` (a Dataset id) is closed."""
        if not self:
            return qs
        return qs.exclude(**{f"{field}__in": sorted(self.dataset_ids)})

    def hides_model_on(self, dataset_id: int, model_id: int) -> bool:
        """Judge runs and scores of any model on a closed dataset are closed (by dataset: which models a campaign holds stays hidden)."""
        return dataset_id in self.dataset_ids

    def hides_dataset(self, dataset_id: int) -> bool:
        return dataset_id in self.dataset_ids


def _dataset_path(response_field: str) -> str:
    """The dataset id path beside a ModelResponse id path: "pk" -> "dataset_id", "x__response_id" -> "x__response__dataset_id"."""
    if response_field == "pk":
        return "dataset_id"
    return response_field.removesuffix("_id") + "__dataset_id"


_EMPTY = BlindScope(frozenset(), None)


def blind_scope(user: User | AnonymousUser | None) -> BlindScope:
    """The user's blind scope, computed once per request (cached on the user object)."""
    if _source is None or user is None or not user.is_authenticated or not user.is_active:
        return _EMPTY
    if user._hb_blind_scope is not None:
        return user._hb_blind_scope
    campaign_ids = frozenset(_source.campaign_ids(user))
    scope = BlindScope(campaign_ids, _source) if campaign_ids else _EMPTY
    user._hb_blind_scope = scope
    return scope


def refuse_campaign(user: User | AnonymousUser | None, campaign_id: int) -> None:
    """PermissionDenied (with the reason) when the user is an expert of this open campaign, or of an open one on its dataset."""
    scope = blind_scope(user)
    if campaign_id in scope.campaign_ids:
        raise PermissionDenied(CLOSED_CAMPAIGN)
    if scope.hides_campaign(campaign_id):
        raise PermissionDenied(CLOSED_DATASET_CAMPAIGN)


def refuse_response(user: User | AnonymousUser | None, response_id: int) -> None:
    """PermissionDenied when the response is on the dataset of an open campaign the user is an expert of."""
    if blind_scope(user).hides_response(response_id):
        raise PermissionDenied(CLOSED_RESPONSE)


def record_exposures(*, user: User | AnonymousUser | None, response_ids: Iterable[int | None], via: str) -> int:
    """Record that a staff view showed `user` these responses with their model, judge verdicts or other raters.

    One bulk insert; a response already recorded keeps its first `via` and time. Returns how many ids were given.
    """
    ids = {int(i) for i in response_ids if i is not None}
    if not ids or user is None or not user.is_authenticated:
        return 0
    StaffExposure.objects.bulk_create(
        [StaffExposure(user_id=user.pk, response_id=i, via=via[:64]) for i in sorted(ids)], ignore_conflicts=True, batch_size=1000
    )
    return len(ids)


def exposed_response_ids(user_id: int) -> QuerySet[StaffExposure, int]:
    """ModelResponse ids a staff view has shown this user (a subquery): never serve them to this user blind."""
    return StaffExposure.objects.filter(user_id=user_id).values_list("response_id", flat=True)


def exposed_to(user_id: int, response: OuterRef) -> Exists:
    """Whether a staff view has shown this user the response `response` refers to: a condition checked row by row
    (an index lookup each), for reads that stop after a window of rows. Never serve such a response to this user blind."""
    return Exists(StaffExposure.objects.filter(user_id=user_id, response_id=response))
