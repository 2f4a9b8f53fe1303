"""HeartBench records: validation of the upstream JSONL schema and canonical content.

No ORM: a record is checked by the serializer `_Record` (`heartbench_core.input_lines`), which names the
field of each problem, and parsed into `ItemContent`, which is also what the exporter writes back and what
version diffs compare.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy

from heartbench_core.input_lines import Choice, Integer, Items, Line, LineCheck, Text, refuse
from heartbench_core.lib.jsonl import ErrorCollector
from heartbench_core.lib.taxonomy import CATASTROPHIC_LABEL, is_known_label

RECORD_KEYS = ("question_id", "rubric", "dialogue", "difficulty", "primary_scene", "secondary_scene")
CRITERION_KEYS = ("dimension", "score", "content")
DIFFICULTIES = ("hard", "normal")
ROLES = ("A", "B")
MIN_WEIGHT, MAX_WEIGHT = -10, 10
# The lengths of the Item columns these are stored in: PostgreSQL refuses longer text mid-import.
MAX_LENGTHS = {"question_id": 64, "primary_scene": 100, "secondary_scene": 100}


@dataclass(frozen=True)
class CriterionContent:
    ability: str
    weight: int | None
    text: str
    extra: dict | None = None  # {"keys": [...order...], "values": {...unmodelled...}} when not plain

    @property
    def catastrophic(self) -> bool:
        return self.ability == CATASTROPHIC_LABEL

    def as_upstream(self) -> dict:
        values = {"dimension": self.ability, "score": self.weight, "content": self.text}
        if self.extra:
            values.update(self.extra.get("values", {}))
            return {k: values[k] for k in self.extra.get("keys", list(values))}
        return values


@dataclass(frozen=True)
class ItemContent:
    question_id: str
    dialogue: list[dict]
    rubric: tuple[CriterionContent, ...]
    difficulty: str = ""
    primary_scene: str = ""
    secondary_scene: str = ""
    extra: dict = field(default_factory=dict)
    key_order: tuple[str, ...] = RECORD_KEYS

    def as_upstream(self) -> dict:
        """The record as the upstream JSONL holds it, keys in their original order."""
        values: dict[str, Any] = {
            "question_id": self.question_id,
            "rubric": [c.as_upstream() for c in self.rubric],
            "dialogue": self.dialogue,
            "difficulty": self.difficulty,
            "primary_scene": self.primary_scene,
            "secondary_scene": self.secondary_scene,
            **self.extra,
        }
        return {k: values[k] for k in self.key_order if k in values}

    def content_hash(self) -> str:
        """Hash of the content (not of key order): equal hashes mean equal items."""
        canonical = {
            "question_id": self.question_id,
            "dialogue": self.dialogue,
            "rubric": [[c.ability, c.weight, c.text, c.extra] for c in self.rubric],
            "difficulty": self.difficulty,
            "primary_scene": self.primary_scene,
            "secondary_scene": self.secondary_scene,
            "extra": self.extra,
        }
        return _sha256(canonical)


def version_hash(items: list[ItemContent]) -> str:
    """Hash of a whole version: the ordered item hashes."""
    return _sha256([item.content_hash() for item in items])


def _sha256(value: Any) -> str:
    data = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def upstream_line(item: ItemContent) -> str:
    """Serialise an item exactly as the released benchmark files do (raw UTF-8, default separators)."""
    return json.dumps(item.as_upstream(), ensure_ascii=False)


class _Turn(Line):
    role = Choice(ROLES, gettext_lazy("must be 'A' or 'B', found %(found)r"), missing=None)
    content = Text(gettext_lazy("must be a string, found %(found)s"), blank=True, missing=None)


class _Criterion(Line):
    dimension = Text(gettext_lazy("must be a string, found %(found)s"), blank=True)
    score = Integer(gettext_lazy("must be an integer or null, found %(found)s"), allow_null=True)
    content = Text(gettext_lazy("must be a non-empty string, found %(found)s"))

    def validate_dimension(self, label: str) -> str:
        if not is_known_label(label, self.context["declared_labels"]):
            raise refuse(gettext_lazy("unknown ability label %(label)r (not in the HeartBench taxonomy)"), label=label)
        return label

    def validate_score(self, weight: int | None) -> int | None:
        if weight is not None and (not (MIN_WEIGHT <= weight <= MAX_WEIGHT) or weight == 0):
            raise refuse(gettext_lazy("weight %(weight)d is outside -10..10 or zero"), weight=weight)
        return weight


def _scene() -> Text:
    too_long = gettext_lazy("is longer than %(limit)d characters (%(length)d)")
    return Text(
        gettext_lazy("must be a string, found %(found)s"),
        blank=True,
        required=False,
        max_length=MAX_LENGTHS["primary_scene"],
        too_long=too_long,
    )


class _Record(Line):
    """One upstream record; the context gives the dataset's `declared_labels` and the import's `difficulty` option."""

    question_id = Text(
        gettext_lazy("must be a non-empty string, found %(found)s"),
        max_length=MAX_LENGTHS["question_id"],
        too_long=gettext_lazy("is longer than %(limit)d characters (%(length)d)"),
    )
    dialogue = Items(_Turn(), gettext_lazy("must be a non-empty list of turns, found %(found)s"))
    rubric = Items(_Criterion(), gettext_lazy("must be a non-empty list of criteria, found %(found)s"))
    difficulty = Choice(DIFFICULTIES, gettext_lazy("must be 'hard' or 'normal', found %(found)r"), required=False)
    primary_scene = _scene()
    secondary_scene = _scene()

    def validate_difficulty(self, value: str) -> str:
        option = self.context["difficulty"]
        if option and value != option:
            raise refuse(gettext_lazy("the record says %(record)r but --difficulty is %(option)r"), record=value, option=option)
        return value


def item_parser(
    errors: ErrorCollector, *, declared_labels: tuple[str, ...] = (), difficulty: str | None = None
) -> Callable[[dict, int], ItemContent | None]:
    """What checks one file's records: given a record and its line, its content, or None after recording its problems."""
    check = LineCheck(_Record, errors, declared_labels=declared_labels, difficulty=difficulty)

    def parse_item(record: dict, line: int) -> ItemContent | None:
        if check(record, line) is None:
            return None
        return ItemContent(
            question_id=record["question_id"],
            dialogue=record["dialogue"],
            rubric=tuple(_criterion(entry) for entry in record["rubric"]),
            difficulty=record.get("difficulty", difficulty or ""),
            primary_scene=record.get("primary_scene", ""),
            secondary_scene=record.get("secondary_scene", ""),
            extra={k: v for k, v in record.items() if k not in RECORD_KEYS},
            key_order=tuple(record.keys()),
        )

    return parse_item


def _criterion(entry: dict) -> CriterionContent:
    """A checked rubric entry's content; the keys it has beyond the three, and their order, are kept as they are."""
    extra = None
    if tuple(entry.keys()) != CRITERION_KEYS:
        extra = {"keys": list(entry.keys()), "values": {k: v for k, v in entry.items() if k not in CRITERION_KEYS}}
    return CriterionContent(ability=entry["dimension"], weight=entry["score"], text=entry["content"], extra=extra)
