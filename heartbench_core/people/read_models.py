"""Read models of the People pages and API, and of API tokens (an admin's list of everyone's, and the viewer's own).

People and tokens are no campaign's data, so no blind scope applies; what the viewer is allowed is
ownership: the viewer's own tokens are theirs alone (another's is a 404, not a 403).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.admin.models import LogEntry
from django.db.models import QuerySet
from django.http import Http404

from heartbench_core.models import ApiToken, User
from heartbench_core.people import selectors
from heartbench_core.people.filters import PeopleFilters, TokenFilters
from heartbench_core.people.selectors import Person
from heartbench_core.read_models import Viewer, one, read_model
from heartbench_core.roles import Role


@dataclass(frozen=True)
class PeopleList:
    users: QuerySet[User]
    filters: PeopleFilters  # what was asked, a bad value with its error


@read_model
def people(viewer: Viewer, params: Mapping[str, Any], *, strict: bool = False) -> PeopleList:
    """Every user by username, filtered by role and status, ready for `people_rows`.

    A bad filter value is the form's error, the filter left out (the page), or with `strict` an `InvalidFilters` naming it (the API's 400).
    """
    viewer.require(Role.ADMIN)
    filters = PeopleFilters(params)
    if strict:
        filters.check()
    return PeopleList(filters.narrow(selectors.people()), filters)


@read_model
def no_people(viewer: Viewer) -> QuerySet[User]:
    """No user, whoever asks: what the API schema's generator reads instead of a list (its request has no user, filter or role)."""
    del viewer  # it holds no row
    return User.objects.none()


@read_model
def people_rows(viewer: Viewer, users: Iterable[User]) -> list[Person]:
    """The rows of users read through `people` (their groups prefetched: no query)."""
    viewer.require(Role.ADMIN)
    return [selectors.person_of(u) for u in users]


@read_model
def person(viewer: Viewer, user_id: int) -> Person | None:
    """One user's row, or None when there is no such user."""
    viewer.require(Role.ADMIN)
    return selectors.person(user_id)


@read_model
def held_roles(viewer: Viewer, person: Person) -> list[Role]:
    """The roles the user's groups grant (prefetched by `people`: no query); a superuser may hold fewer groups than roles."""
    viewer.require(Role.ADMIN)
    return selectors.held_roles(person)


@dataclass(frozen=True)
class PersonPage:
    person: Person
    held_roles: list[Role]  # what the role checkboxes show
    changes: list[LogEntry]  # the latest entries of the change log about them
    tokens: QuerySet[ApiToken]  # theirs, newest first


@read_model
def person_page(viewer: Viewer, person: Person) -> PersonPage:
    """What a person's page shows besides their row."""
    viewer.require(Role.ADMIN)
    return PersonPage(person, selectors.held_roles(person), selectors.changes_of(person.user), _tokens().filter(user=person.user))


def _tokens() -> QuerySet[ApiToken]:
    return ApiToken.objects.select_related("user", "created_by", "revoked_by").order_by("-created_at", "-pk")


@dataclass(frozen=True)
class Tokens:
    tokens: QuerySet[ApiToken]
    filters: TokenFilters  # what the page asked for, a bad value with its error


@read_model
def tokens(viewer: Viewer, params: Mapping[str, Any], *, strict: bool = False) -> Tokens:
    """Every user's tokens (admins) with their user and who created and revoked them, newest first, filtered by `TokenFilters`
    (a bad value: ignored with its error, or with `strict` an `InvalidFilters`, the API's 400)."""
    viewer.require(Role.ADMIN)
    filters = TokenFilters(params)
    return Tokens((filters.check() if strict else filters).narrow(_tokens()), filters)


@read_model
def token(viewer: Viewer, pk: int) -> ApiToken:
    """Any user's token (admins; 404 when there is none)."""
    viewer.require(Role.ADMIN)
    return one(ApiToken.objects.all(), pk=pk)


@read_model
def own_tokens(viewer: Viewer) -> QuerySet[ApiToken]:
    """The viewer's own tokens, newest first (none for an anonymous viewer)."""
    qs = _tokens()
    return qs.none() if viewer.user_id is None else qs.filter(user_id=viewer.user_id)


@read_model
def own_token(viewer: Viewer, pk: int) -> ApiToken:
    """One of the viewer's own tokens (404 when it is another's: whose it is stays unsaid)."""
    if viewer.user_id is None:
        raise Http404
    return one(ApiToken.objects.all(), pk=pk, user_id=viewer.user_id)
