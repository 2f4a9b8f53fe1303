"""What a campaign archive may carry: each app declares its own tables, and nothing else is restored.

An app lists, from its `AppConfig.ready`, the tables of its own that hold a campaign's results
(`register_archived_tables`), each with the rows of one campaign (`ArchivedTable.rows`) and the
many-to-many members that travel with it; the app that owns campaigns says how a campaign's
name becomes the scope those rows are chosen by (`register_campaign_source`). Export writes
exactly these tables and import restores exactly these: a manifest that names any other table
(users, groups, tokens, schedules, sessions…) is refused. The core never imports the apps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db.models import Model, Q


@dataclass(frozen=True)
class ArchiveScope:
    """Whose rows one archive holds: a campaign, with everything its results depend on."""

    campaign_name: str
    dataset_id: int
    dataset_name: str
    campaign_ids: tuple[int, ...]  # the campaign, its gold set and the dataset's calibration sets
    user_ids: tuple[int, ...]  # the experts whose profiles and qualifications travel


@dataclass(frozen=True)
class HeldBack:
    """A value a row cannot take until every table is in: it goes in as `meanwhile`, and becomes `value` at the end."""

    column: str
    value: str
    meanwhile: str


@dataclass(frozen=True)
class ArchivedTable:
    """One table a campaign archive may carry: which rows belong to a campaign, and its many-to-many members."""

    label: str  # "annotation.Judgment"
    rows: Callable[[ArchiveScope], Q]
    many_to_many: tuple[str, ...] = ()  # names of the model's many-to-many fields whose members travel
    held_back: HeldBack | None = None
    # Columns holding another archived table's id without a foreign key (column, model label): checked as links are.
    soft_links: tuple[tuple[str, str], ...] = ()
    # The column naming the person a row is about (their profile, their qualifications): for an archive
    # user mapped onto an account already here, the account keeps its own and the row is left out,
    # with the rows that point to it.
    person: str = ""
    # Columns copying a field of the row another column points to (column, that column, the field), which an archive
    # written before the copy existed lacks: on restore they are read from that row, restored before them.
    copied: tuple[tuple[str, str, str], ...] = ()

    @property
    def model(self) -> type[Model]:
        return apps.get_model(self.label)


@dataclass(frozen=True)
class CampaignSource:
    """How the app that owns campaigns answers the archive's questions about them."""

    scope: Callable[[str], ArchiveScope]  # a campaign's name -> its scope; ValidationError naming the known ones
    exists: Callable[[str], bool]  # a campaign of this name is here


_tables: dict[str, tuple[ArchivedTable, ...]] = {}
_source: CampaignSource | None = None


def register_archived_tables(app_label: str, tables: tuple[ArchivedTable, ...]) -> None:
    """Called once by each app, from its AppConfig.ready, with its own tables, parents first."""
    foreign = [t.label for t in tables if t.label.split(".")[0] != app_label]
    if foreign:
        raise ValueError(f"{app_label} may declare only its own tables, not {', '.join(foreign)}")
    _tables[app_label] = tables


def register_campaign_source(source: CampaignSource) -> None:
    """Called once, from the campaign app's AppConfig.ready."""
    global _source
    _source = source


def archived_tables() -> list[ArchivedTable]:
    """Every table a campaign archive may carry, parents first (the apps in the order they are installed)."""
    return [t for config in apps.get_app_configs() for t in _tables.get(config.label, ())]


def campaign_source() -> CampaignSource:
    if _source is None:
        raise RuntimeError("no app has registered a campaign source for archives")
    return _source
