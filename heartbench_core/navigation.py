"""The main navigation: each person's links by role, grouped into work, data, validation, people and settings.

A person with at most `FLAT_LINKS` links (an expert, a rubric author, a senior reviewer) sees them
all in the bar. With more (an admin), each group of two or more links is a menu — a native
<details>, opened by click or keyboard, no script needed — and a group of one stays a plain link,
so the bar keeps to one row. The apps' pages are named by URL name, so the core imports none of
them; a name that does not resolve (an app not installed) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy, pgettext_lazy

from heartbench_core.roles import Role, roles_of

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise as StrPromise

FLAT_LINKS = 7
ANY_ROLE = frozenset(Role)
ADMIN = frozenset({Role.ADMIN})
EXPERT = frozenset({Role.EXPERT})
READERS_OF_DATA = frozenset({Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER})


@dataclass(frozen=True)
class Entry:
    """A link of the navigation: shown to holders of any of `roles`."""

    key: str
    label: StrPromise
    url_name: str
    roles: frozenset[Role]


@dataclass(frozen=True)
class Link:
    key: str
    label: StrPromise
    url: str
    current: bool


@dataclass(frozen=True)
class Group:
    key: str
    label: StrPromise
    links: list[Link]
    menu: bool  # shown as a menu (else its links sit in the bar)

    @property
    def current(self) -> bool:
        """True when the page shown is one of the group's."""
        return any(link.current for link in self.links)


GROUPS: tuple[tuple[str, StrPromise, tuple[Entry, ...]], ...] = (
    (
        "work",
        pgettext_lazy("navigation group", "Work"),
        (
            Entry("my_work", gettext_lazy("My work"), "annotation:home", EXPERT),
            Entry("my_reports", gettext_lazy("My reports"), "annotation:my_reports", EXPERT),
            Entry("my_profile", gettext_lazy("My profile"), "annotation:profile", EXPERT),
            Entry("needs_action", gettext_lazy("Needs action"), "annotation:needs_action", ADMIN),
            Entry("campaigns", gettext_lazy("Campaigns"), "annotation:campaigns", ADMIN),
            Entry("library", pgettext_lazy("the knowledge library: guidelines, FAQ and cases", "Library"), "annotation:library", ANY_ROLE),
        ),
    ),
    (
        "data",
        pgettext_lazy("navigation group", "Data"),
        (
            Entry("datasets", gettext_lazy("Datasets"), "core:datasets", READERS_OF_DATA),
            Entry("rubrics", gettext_lazy("Rubrics"), "rubrics:index", READERS_OF_DATA),
            Entry("judging", gettext_lazy("Judging"), "judging:index", ADMIN),
        ),
    ),
    (
        "validation",
        pgettext_lazy("navigation group", "Validation"),
        (
            Entry("agreement", gettext_lazy("Agreement"), "validation:index", ADMIN),
            Entry("adjudication", gettext_lazy("Adjudication"), "validation:adjudication-index", frozenset({Role.SENIOR_REVIEWER})),
        ),
    ),
    (
        "people",
        pgettext_lazy("navigation group", "People"),
        (
            Entry("people", gettext_lazy("People"), "people:list", ADMIN),
            Entry("tokens", gettext_lazy("Tokens"), "tokens", ADMIN),
        ),
    ),
    (
        "settings",
        pgettext_lazy("navigation group", "Settings"),
        (
            Entry("api", gettext_lazy("API"), "api-docs", ADMIN),
            Entry("admin", gettext_lazy("Admin"), "admin:index", ADMIN),
        ),
    ),
)


def navigation_for(roles: frozenset[Role], path: str) -> list[Group]:
    """The groups a holder of `roles` sees on the page at `path`, in order; groups without a link are left out."""
    found: list[tuple[str, StrPromise, list[tuple[Entry, str]]]] = []
    for key, label, entries in GROUPS:
        links = [(entry, url) for entry in entries if entry.roles & roles and (url := _url(entry.url_name))]
        if links:
            found.append((key, label, links))
    current = _current_url([url for _key, _label, links in found for _entry, url in links], path)
    grouped = sum(len(links) for _key, _label, links in found) > FLAT_LINKS
    return [
        Group(
            key=key,
            label=label,
            links=[Link(entry.key, entry.label, url, url == current) for entry, url in links],
            menu=grouped and len(links) > 1,
        )
        for key, label, links in found
    ]


def navigation(request: HttpRequest) -> dict[str, Any]:
    """Context processor: `navigation`, the signed-in person's groups of links (empty for anyone else)."""
    user = getattr(request, "user", None)
    roles = roles_of(user) if user is not None else frozenset()
    return {"navigation": navigation_for(roles, request.path) if roles else []}


def _url(name: str) -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return ""


def _current_url(urls: list[str], path: str) -> str:
    """The link the page belongs to: the longest one its path starts with ("" when none)."""
    return max((url for url in urls if path.startswith(url)), key=len, default="")
