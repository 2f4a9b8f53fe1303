"""Dataset versions: import the upstream JSONL, create versions, export, diff."""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from heartbench_core.jsonl import ErrorCollector, InputFileError
from heartbench_core.lib.jsonl import read_jsonl, source_name
from heartbench_core.models import Criterion, CriterionLineage, Dataset, DatasetVersion, Item, User
from heartbench_core.names import validate_name
from heartbench_core.records import CriterionContent, ItemContent, item_parser, upstream_line, version_hash
from heartbench_core.versioning import align_criteria, changelog


@dataclass(frozen=True)
class ImportOutcome:
    version: DatasetVersion
    created: bool
    items: int
    criteria: int


def parse_heartbench_file(
    source: str | Path | IO,
    *,
    declared_labels: tuple[str, ...] = (),
    difficulty: str | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[ItemContent]:
    """Read and validate a whole upstream file; raise InputFileError listing every problem."""
    errors = ErrorCollector(name or source_name(source))
    items: list[ItemContent] = []
    seen: dict[str, int] = {}
    parse_item = item_parser(errors, declared_labels=declared_labels, difficulty=difficulty)
    for line, record in read_jsonl(source, errors, progress=progress):
        item = parse_item(record, line)
        if item is None:
            continue
        if item.question_id in seen:
            errors.add(
                line,
                "question_id",
                gettext("duplicate question_id %(question_id)r (first on line %(first)d)")
                % {"question_id": item.question_id, "first": seen[item.question_id]},
            )
            continue
        seen[item.question_id] = line
        items.append(item)
    if not items and not errors:
        errors.add(None, None, gettext("the file holds no records"))
    errors.raise_if_any()
    return items


def import_heartbench(
    *,
    source: str | Path | IO,
    dataset_name: str,
    label: str | None = None,
    note: str = "",
    difficulty: str | None = None,
    created_by: User | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportOutcome:
    """Import an upstream file as a new version of the dataset (created if new); atomic."""
    if difficulty not in (None, "", "hard", "normal"):
        raise ValidationError({"difficulty": gettext("must be 'hard' or 'normal', not %(difficulty)r") % {"difficulty": difficulty}})
    existing = Dataset.objects.filter(name=dataset_name).first()
    if existing is None:
        validate_name(dataset_name, field="dataset", max_length=Dataset._meta.get_field("name").max_length)
    if label:
        validate_name(label.strip(), field="version")
    declared = tuple(existing.extra_labels) if existing else ()
    items = parse_heartbench_file(source, declared_labels=declared, difficulty=difficulty or None, name=name, progress=progress)
    with transaction.atomic():
        dataset, _ = Dataset.objects.get_or_create(name=dataset_name)
        # Serialise concurrent imports into one dataset: the second waits, then sees the first.
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        latest = dataset.versions.order_by("-number").first()
        if latest is not None and latest.content_hash == version_hash(items):
            return ImportOutcome(latest, False, latest.item_count, latest.criterion_count)
        version = create_version(
            dataset=dataset,
            items=items,
            parent=latest,
            label=label,
            note=note,
            created_by=created_by,
            source=name or source_name(source),
        )
    return ImportOutcome(version, True, version.item_count, version.criterion_count)


def create_version(
    *,
    dataset: Dataset,
    items: list[ItemContent],
    parent: DatasetVersion | None,
    label: str | None = None,
    note: str = "",
    created_by: User | None = None,
    source: str = "",
    lineage: dict[tuple[str, int], tuple[uuid.UUID, int]] | None = None,
) -> DatasetVersion:
    """Write a new frozen version with its items and criteria; criteria continue their parent's lineage.

    `lineage` may fix (key, revision) for given (question_id, position) pairs, as the rubric
    workflow does when it publishes approved revisions.
    """
    number = (parent.number + 1) if parent else 1
    last = dataset.versions.order_by("-number").values_list("number", flat=True).first()
    if last is not None:
        number = last + 1
    label = (label or f"v{number}").strip()
    validate_name(label, field="label")
    if dataset.versions.filter(label=label).exists():
        raise ValidationError(
            {"label": gettext("dataset %(dataset)r already has a version labelled %(label)r") % {"dataset": dataset.name, "label": label}}
        )
    parent_items = load_items(parent) if parent else []
    parent_rows = _criterion_lineage(parent) if parent else {}
    log = changelog(parent_items, items) if parent else {}
    try:
        with transaction.atomic():
            version = DatasetVersion.objects.create(
                dataset=dataset,
                number=number,
                label=label,
                parent=parent,
                content_hash=version_hash(items),
                created_by=created_by,
                note=note,
                changelog=log,
                source=source[:200],
                item_count=len(items),
                criterion_count=sum(len(i.rubric) for i in items),
            )
            rows = Item.objects.bulk_create(
                [
                    Item(
                        version=version,
                        question_id=item.question_id,
                        position=pos,
                        dialogue=item.dialogue,
                        difficulty=item.difficulty,
                        primary_scene=item.primary_scene,
                        secondary_scene=item.secondary_scene,
                        extra=item.extra,
                        key_order=list(item.key_order),
                        content_hash=item.content_hash(),
                    )
                    for pos, item in enumerate(items)
                ]
            )
            parent_by_id = {i.question_id: i for i in parent_items}
            criteria = []
            revisions: dict[uuid.UUID, int] = {}
            for row, item in zip(rows, items):
                keys = _lineage_for(item, parent_by_id.get(item.question_id), parent_rows, lineage or {})
                for pos, c in enumerate(item.rubric):
                    key, revision = keys[pos]
                    revisions[key] = revision
                    criteria.append(
                        Criterion(
                            item=row,
                            position=pos,
                            ability=c.ability,
                            weight=c.weight,
                            text=c.text,
                            catastrophic=c.catastrophic,
                            lineage_id=key,
                            revision=revision,
                            extra=c.extra,
                        )
                    )
            _record_lineages(dataset, revisions, semantic=lineage is None)
            Criterion.objects.bulk_create(criteria, batch_size=2000)
    except IntegrityError as exc:
        raise ValidationError(gettext("could not create version %(label)r: %(error)s") % {"label": label, "error": exc}) from exc
    return version


def _record_lineages(dataset: Dataset, revisions: dict[uuid.UUID, int], *, semantic: bool) -> None:
    """Create lineages for new criteria and move existing ones to the revision now published.

    An imported change has no author to say it kept the meaning, so imports count every change
    as a change of meaning; the rubric workflow passes its own classification instead.
    """
    existing = {row.key: row for row in CriterionLineage.objects.filter(dataset=dataset)}
    new, changed = [], []
    for key, revision in revisions.items():
        row = existing.get(key)
        if row is None:
            new.append(CriterionLineage(key=key, dataset=dataset, current_revision=revision, meaning_revision=revision))
        elif revision > row.current_revision:
            row.current_revision = revision
            if semantic:
                row.meaning_revision = revision
            changed.append(row)
    CriterionLineage.objects.bulk_create(new, batch_size=2000)
    CriterionLineage.objects.bulk_update(changed, ["current_revision", "meaning_revision"], batch_size=500)


def _criterion_lineage(version: DatasetVersion) -> dict[tuple[str, int], tuple[uuid.UUID, int]]:
    rows = Criterion.objects.filter(item__version=version).values_list("item__question_id", "position", "lineage_id", "revision")
    return {(q, p): (k, r) for q, p, k, r in rows}


def _lineage_for(
    item: ItemContent,
    parent_item: ItemContent | None,
    parent_rows: dict[tuple[str, int], tuple[uuid.UUID, int]],
    fixed: dict[tuple[str, int], tuple[uuid.UUID, int]],
) -> dict[int, tuple[uuid.UUID, int]]:
    keys: dict[int, tuple[uuid.UUID, int]] = {}
    if parent_item is not None:
        for m in align_criteria(parent_item.rubric, item.rubric):
            if m.old is not None and m.new is not None:
                key, revision = parent_rows[(item.question_id, m.old)]
                keys[m.new] = (key, revision + 1 if m.changes else revision)
    for pos in range(len(item.rubric)):
        if (item.question_id, pos) in fixed:
            keys[pos] = fixed[(item.question_id, pos)]
        keys.setdefault(pos, (uuid.uuid4(), 1))
    return keys


def load_items(version: DatasetVersion) -> list[ItemContent]:
    """Return a version's items as ItemContent, in file order (two queries)."""
    criteria: dict[int, list[CriterionContent]] = {}
    for item_id, ability, weight, text, extra in (
        Criterion.objects.filter(item__version=version)
        .order_by("item_id", "position")
        .values_list("item_id", "ability", "weight", "text", "extra")
    ):
        criteria.setdefault(item_id, []).append(CriterionContent(ability, weight, text, extra))
    return [
        ItemContent(
            question_id=row.question_id,
            dialogue=row.dialogue,
            rubric=tuple(criteria.get(row.pk, ())),
            difficulty=row.difficulty,
            primary_scene=row.primary_scene,
            secondary_scene=row.secondary_scene,
            extra=row.extra,
            key_order=tuple(row.key_order),
        )
        for row in version.items.order_by("position")
    ]


def export_lines(version: DatasetVersion) -> list[str]:
    """Return the version as upstream JSONL lines (without newlines)."""
    return [upstream_line(item) for item in load_items(version)]


def export_heartbench(*, version: DatasetVersion, path: str | Path) -> int:
    """Write the version to PATH in the upstream schema; return the number of records."""
    lines = export_lines(version)
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def diff_versions(a: DatasetVersion, b: DatasetVersion) -> dict:
    """Return the changelog from version a to version b (any two versions of one dataset)."""
    if a.dataset_id != b.dataset_id:
        raise ValidationError(gettext("versions belong to different datasets"))
    return changelog(load_items(a), load_items(b))


def get_version(dataset_name: str, label: str | None = None) -> DatasetVersion:
    """Return the named version (the latest when label is None) or raise ValidationError."""
    dataset = Dataset.objects.filter(name=dataset_name).first()
    if dataset is None:
        raise ValidationError({"dataset": gettext("no dataset named %(dataset)r") % {"dataset": dataset_name}})
    versions = dataset.versions.select_related("dataset")
    version = versions.filter(label=label).first() if label else versions.order_by("-number").first()
    if version is None:
        raise ValidationError(
            {
                "version": gettext("dataset %(dataset)r has no version %(label)r") % {"dataset": dataset_name, "label": label}
                if label
                else gettext("dataset %(dataset)r has no versions") % {"dataset": dataset_name}
            }
        )
    return version


__all__ = [
    "ImportOutcome",
    "InputFileError",
    "create_version",
    "diff_versions",
    "export_heartbench",
    "export_lines",
    "get_version",
    "import_heartbench",
    "load_items",
    "parse_heartbench_file",
]
