"""The read-model layer: the one way a page or an API view reaches a campaign's data.

A page and its API read the same thing, so they call the same read model: a function of an app's
`read_models` module (or a sub-package's), marked `@read_model`, whose first parameter is the
`Viewer`. The viewer carries the person's blind scope (heartbench_core.blindness: a person who is an
expert of an open campaign sees nothing of its dataset through staff views, whatever their roles),
and the read model applies it *inside*: it refuses what is closed with the reason, leaves closed
datasets out of a list whole, and records what it showed (staff exposures). A view is a thin
adapter: it parses the request, calls a read model or a service (services write), and renders or
serialises what it got.

Views and API views do not query the database themselves: no manager, no queryset method, no
`get_object_or_404`, no selector. tests/security/test_views_read_through_read_models.py reads every
view module and fails on one that does, so a new endpoint cannot forget blindness by forgetting a
call: it has no other way to the data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db.models import Model, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from heartbench_core import blindness
from heartbench_core.roles import Role, has_role

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser
    from django.http import HttpRequest
    from rest_framework.request import Request

    from heartbench_core.models import User

P = ParamSpec("P")
R = TypeVar("R")
ModelT = TypeVar("ModelT", bound=Model)

# Every read model, by "module.qualname": the architecture test checks each takes the viewer and uses it.
READ_MODELS: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True, eq=False)
class Viewer:
    """Who is reading, with their blind scope: what every read model receives first."""

    user: User | AnonymousUser

    @classmethod
    def of(cls, request: HttpRequest | Request) -> Viewer:
        """The request's viewer (one per request: the blind scope it holds is computed once)."""
        viewer = getattr(request, "_hb_viewer", None)
        if viewer is None or viewer.user is not request.user:
            viewer = cls(request.user)
            request._hb_viewer = viewer  # type: ignore[union-attr]
        return viewer

    @property
    def scope(self) -> blindness.BlindScope:
        return blindness.blind_scope(self.user)

    @property
    def user_id(self) -> int | None:
        return self.user.pk if self.user.is_authenticated else None

    # --- who may read at all: every read model checks it itself, behind the view's own check -----

    def person(self) -> User:
        """The signed-in person reading, or PermissionDenied (a read model of one's own things)."""
        if not self.user.is_authenticated:
            raise PermissionDenied(gettext("You do not have access to this page."))
        return self.user

    def holds(self, *roles: Role) -> bool:
        return has_role(self.user, *roles)

    def require(self, *roles: Role) -> User:
        """The person reading when they hold one of `roles`, else PermissionDenied."""
        if not self.user.is_authenticated or not has_role(self.user, *roles):
            raise PermissionDenied(gettext("You do not have access to this page."))
        return self.user

    # --- refusing what is closed, with the reason ------------------------------------------------

    def refuse_campaign(self, campaign_id: int) -> None:
        blindness.refuse_campaign(self.user, campaign_id)

    def refuse_response(self, response_id: int) -> None:
        blindness.refuse_response(self.user, response_id)

    def refuse_dataset(self, dataset_id: int, reason: str | None = None) -> None:
        """PermissionDenied (with `reason`, by default the leaderboards') when the dataset is closed to the viewer."""
        if self.scope.hides_dataset(dataset_id):
            raise PermissionDenied(reason or blindness.CLOSED_DATASET)

    # --- lists: closed datasets left out whole ---------------------------------------------------

    def visible_responses(self, qs: QuerySet[ModelT], field: str = "pk") -> QuerySet[ModelT]:
        return self.scope.visible_responses(qs, field)

    def visible_on_datasets(self, qs: QuerySet[ModelT], field: str) -> QuerySet[ModelT]:
        return self.scope.visible_on_datasets(qs, field)

    def hides_campaign(self, campaign_id: int) -> bool:
        return self.scope.hides_campaign(campaign_id)

    def hides_dataset(self, dataset_id: int) -> bool:
        return self.scope.hides_dataset(dataset_id)

    # --- what was shown ---------------------------------------------------------------------------

    def shown(self, response_ids: Iterable[int | None], *, via: str) -> int:
        """Record that these responses were shown with their model, the judge or other raters (never served to them blind)."""
        return blindness.record_exposures(user=self.user, response_ids=response_ids, via=via)


def read_model(func: Callable[P, R]) -> Callable[P, R]:
    """Mark a function as a read model: its first parameter is the `Viewer`, whose blind scope it applies."""
    READ_MODELS[f"{func.__module__}.{func.__qualname__}"] = func
    func.__read_model__ = True  # type: ignore[attr-defined]
    return func


def one(qs: QuerySet[ModelT], **lookup: Any) -> ModelT:
    """The row of `qs` matching `lookup`, or 404 (a read model's get_object_or_404)."""
    try:
        return qs.get(**lookup)
    except (ObjectDoesNotExist, ValueError, TypeError) as exc:
        raise Http404 from exc
