"""HeartBench records: validation of the upstream JSONL schema and canonical content.

No ORM (messages go through gettext): a record is parsed into `ItemContent`, which is also what the exporter
writes back and what version diffs compare.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from heartbench_core.jsonl import type_name
from heartbench_core.lib.jsonl import ErrorCollector
from heartbench_core.lib.taxonomy import CATASTROPHIC_LABEL, is_known_label

RECORD_KEYS = ("question_id", "rubric", "dialogue", "difficulty", "primary_scene", "secondary_scene")
REQUIRED_KEYS = ("question_id", "rubric", "dialogue")
CRITERION_KEYS = ("dimension", "score", "content")
DIFFICULTIES = ("hard", "normal")
ROLES = ("A", "B")
MIN_WEIGHT, MAX_WEIGHT = -10, 10
# The lengths of the Item columns these are stored in: PostgreSQL refuses longer text mid-import.
MAX_LENGTHS = {"question_id": 64, "primary_scene": 100, "secondary_scene": 100}

# Records one error of the current line: (field, message).
ReportError = Callable[[str, str], None]


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


def parse_item(
    record: dict,
    line: int,
    errors: ErrorCollector,
    *,
    declared_labels: tuple[str, ...] = (),
    difficulty: str | None = None,
) -> ItemContent | None:
    """Validate one upstream record; return its content, or None after recording errors."""
    before = len(errors.errors)

    def err(field_name: str, message: str) -> None:
        errors.add(line, field_name, message)

    for key in REQUIRED_KEYS:
        if key not in record:
            err(key, _("missing key"))
    question_id = record.get("question_id")
    if "question_id" in record and (not isinstance(question_id, str) or not question_id.strip()):
        err("question_id", _("must be a non-empty string, found %(found)s") % {"found": type_name(question_id)})

    dialogue = record.get("dialogue")
    if "dialogue" in record:
        if not isinstance(dialogue, list) or not dialogue:
            err("dialogue", _("must be a non-empty list of turns, found %(found)s") % {"found": type_name(dialogue)})
        else:
            for i, turn in enumerate(dialogue):
                path = f"dialogue[{i}]"
                if not isinstance(turn, dict):
                    err(path, _("must be an object, found %(found)s") % {"found": type_name(turn)})
                    continue
                if turn.get("role") not in ROLES:
                    err(f"{path}.role", _("must be 'A' or 'B', found %(found)r") % {"found": turn.get("role")})
                if not isinstance(turn.get("content"), str):
                    err(f"{path}.content", _("must be a string, found %(found)s") % {"found": type_name(turn.get("content"))})

    rubric_items: list[CriterionContent] = []
    rubric = record.get("rubric")
    if "rubric" in record:
        if not isinstance(rubric, list) or not rubric:
            err("rubric", _("must be a non-empty list of criteria, found %(found)s") % {"found": type_name(rubric)})
        else:
            for i, entry in enumerate(rubric):
                parsed = _parse_criterion(entry, f"rubric[{i}]", err, declared_labels)
                if parsed is not None:
                    rubric_items.append(parsed)

    record_difficulty = record.get("difficulty")
    if "difficulty" in record and record_difficulty not in DIFFICULTIES:
        err("difficulty", _("must be 'hard' or 'normal', found %(found)r") % {"found": record_difficulty})
    elif "difficulty" in record and difficulty and record_difficulty != difficulty:
        err(
            "difficulty",
            _("the record says %(record)r but --difficulty is %(option)r") % {"record": record_difficulty, "option": difficulty},
        )
    for key in ("primary_scene", "secondary_scene"):
        if key in record and not isinstance(record[key], str):
            err(key, _("must be a string, found %(found)s") % {"found": type_name(record[key])})
    for key, limit in MAX_LENGTHS.items():
        if isinstance(record.get(key), str) and len(record[key]) > limit:
            err(key, _("is longer than %(limit)d characters (%(length)d)") % {"limit": limit, "length": len(record[key])})

    if len(errors.errors) > before or not isinstance(question_id, str) or not isinstance(dialogue, list):
        return None  # the type checks hold whenever no error was recorded; they say so to the type checker
    return ItemContent(
        question_id=question_id,
        dialogue=dialogue,
        rubric=tuple(rubric_items),
        difficulty=record.get("difficulty", difficulty or ""),
        primary_scene=record.get("primary_scene", ""),
        secondary_scene=record.get("secondary_scene", ""),
        extra={k: v for k, v in record.items() if k not in RECORD_KEYS},
        key_order=tuple(record.keys()),
    )


def _parse_criterion(entry: Any, path: str, err: ReportError, declared_labels: tuple[str, ...]) -> CriterionContent | None:
    if not isinstance(entry, dict):
        err(path, _("must be an object, found %(found)s") % {"found": type_name(entry)})
        return None
    ok = True
    for key in CRITERION_KEYS:
        if key not in entry:
            err(f"{path}.{key}", _("missing key"))
            ok = False
    label = entry.get("dimension")
    if "dimension" in entry:
        if not isinstance(label, str):
            err(f"{path}.dimension", _("must be a string, found %(found)s") % {"found": type_name(label)})
            ok = False
        elif not is_known_label(label, declared_labels):
            err(f"{path}.dimension", _("unknown ability label %(label)r (not in the HeartBench taxonomy)") % {"label": label})
            ok = False
    weight = entry.get("score")
    if "score" in entry and weight is not None:
        if isinstance(weight, bool) or not isinstance(weight, int):
            err(f"{path}.score", _("must be an integer or null, found %(found)s") % {"found": type_name(weight)})
            ok = False
        elif not (MIN_WEIGHT <= weight <= MAX_WEIGHT) or weight == 0:
            err(f"{path}.score", _("weight %(weight)d is outside -10..10 or zero") % {"weight": weight})
            ok = False
    text = entry.get("content")
    if "content" in entry and (not isinstance(text, str) or not text.strip()):
        err(f"{path}.content", _("must be a non-empty string, found %(found)s") % {"found": type_name(text)})
        ok = False
    if not ok or not isinstance(label, str) or not isinstance(text, str):
        return None  # the type checks hold whenever ok; they say so to the type checker
    extra = None
    if tuple(entry.keys()) != CRITERION_KEYS:
        extra = {"keys": list(entry.keys()), "values": {k: v for k, v in entry.items() if k not in CRITERION_KEYS}}
    return CriterionContent(ability=label, weight=weight, text=text, extra=extra)
