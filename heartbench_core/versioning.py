"""Version diffs: which items and criteria were added, removed, changed between two versions.

Pure code over `ItemContent`. Criteria of one question are aligned old→new in three passes:
identical content, then the same text with another weight or label, then the most similar
remaining text (difflib, ratio ≥ 0.5) as a rewording. The alignment also tells the importer
which new criterion continues which old one (its lineage key).
"""

from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from heartbench_core.records import CriterionContent, ItemContent

SIMILARITY_THRESHOLD = 0.5

# Two criteria of one question, old and new: do they match, and what changed between them.
Pairing = Callable[[CriterionContent, CriterionContent], bool]
Changes = Callable[[CriterionContent, CriterionContent], tuple[str, ...]]


@dataclass(frozen=True)
class CriterionMatch:
    old: int | None  # position in the old rubric
    new: int | None  # position in the new rubric
    changes: tuple[str, ...]  # subset of ("reworded", "reweighted", "relabelled")


def align_criteria(old: tuple[CriterionContent, ...], new: tuple[CriterionContent, ...]) -> list[CriterionMatch]:
    """Align two rubrics of one question; unmatched criteria come back as added or removed."""
    old_left = set(range(len(old)))
    new_left = set(range(len(new)))
    matches: list[CriterionMatch] = []

    def take(predicate: Pairing, changes_of: Changes) -> None:
        for j in sorted(new_left):
            for i in sorted(old_left):
                if predicate(old[i], new[j]):
                    matches.append(CriterionMatch(i, j, changes_of(old[i], new[j])))
                    old_left.discard(i)
                    new_left.discard(j)
                    break

    take(lambda a, b: (a.ability, a.weight, a.text, a.extra) == (b.ability, b.weight, b.text, b.extra), _changes)
    take(lambda a, b: a.text == b.text, _changes)
    # Remaining: most similar pairs first, so a reworded criterion is not paired with a stranger.
    candidates = sorted(
        ((SequenceMatcher(None, old[i].text, new[j].text, autojunk=False).ratio(), i, j) for i in old_left for j in new_left),
        key=lambda t: (-t[0], t[2], t[1]),
    )
    for ratio, i, j in candidates:
        if ratio < SIMILARITY_THRESHOLD:
            break
        if i in old_left and j in new_left:
            matches.append(CriterionMatch(i, j, _changes(old[i], new[j])))
            old_left.discard(i)
            new_left.discard(j)
    matches.extend(CriterionMatch(i, None, ("removed",)) for i in sorted(old_left))
    matches.extend(CriterionMatch(None, j, ("added",)) for j in sorted(new_left))
    return matches


def _changes(a: CriterionContent, b: CriterionContent) -> tuple[str, ...]:
    changes = []
    if a.text != b.text:
        changes.append("reworded")
    if a.weight != b.weight:
        changes.append("reweighted")
    if a.ability != b.ability:
        changes.append("relabelled")
    return tuple(changes)


ITEM_FIELDS = ("dialogue", "difficulty", "primary_scene", "secondary_scene", "extra")


def changelog(old_items: list[ItemContent], new_items: list[ItemContent]) -> dict[str, Any]:
    """Return the changelog from one version's items to another's (JSON-serialisable)."""
    old_by_id = {i.question_id: i for i in old_items}
    new_by_id = {i.question_id: i for i in new_items}
    log: dict[str, Any] = {
        "items_added": [q for q in new_by_id if q not in old_by_id],
        "items_removed": [q for q in old_by_id if q not in new_by_id],
        "items_changed": [],
        "criteria_added": [],
        "criteria_removed": [],
        "criteria_reworded": [],
        "criteria_reweighted": [],
        "criteria_relabelled": [],
    }
    for qid, new in new_by_id.items():
        old = old_by_id.get(qid)
        if old is None:
            for pos, c in enumerate(new.rubric):
                log["criteria_added"].append({"question_id": qid, "position": pos, "ability": c.ability, "text": c.text})
            continue
        if old.content_hash() == new.content_hash():
            continue
        fields = [f for f in ITEM_FIELDS if getattr(old, f) != getattr(new, f)]
        rubric_changed = old.rubric != new.rubric
        if rubric_changed:
            fields.append("rubric")
        log["items_changed"].append({"question_id": qid, "fields": fields})
        if rubric_changed:
            _log_criteria(log, qid, old.rubric, new.rubric)
    for qid in log["items_removed"]:
        for pos, c in enumerate(old_by_id[qid].rubric):
            log["criteria_removed"].append({"question_id": qid, "position": pos, "ability": c.ability, "text": c.text})
    log["summary"] = {key: len(value) for key, value in log.items()}
    return log


def _log_criteria(log: dict[str, Any], qid: str, old: tuple[CriterionContent, ...], new: tuple[CriterionContent, ...]) -> None:
    for m in align_criteria(old, new):
        match m.old, m.new:
            case None, int(j):
                c = new[j]
                log["criteria_added"].append({"question_id": qid, "position": j, "ability": c.ability, "text": c.text})
            case int(i), None:
                c = old[i]
                log["criteria_removed"].append({"question_id": qid, "position": i, "ability": c.ability, "text": c.text})
            case int(i), int(j):
                a, b = old[i], new[j]
                base = {"question_id": qid, "old_position": i, "position": j}
                if "reworded" in m.changes:
                    log["criteria_reworded"].append({**base, "before": a.text, "after": b.text})
                if "reweighted" in m.changes:
                    log["criteria_reweighted"].append({**base, "before": a.weight, "after": b.weight, "text": b.text})
                if "relabelled" in m.changes:
                    log["criteria_relabelled"].append({**base, "before": a.ability, "after": b.ability, "text": b.text})


def format_changelog(log: dict[str, Any]) -> str:
    """Render a changelog as plain text for the command line."""
    if not log:
        return "(no changelog: first version)"
    s = log.get("summary", {})
    lines = [
        "items: {} added, {} removed, {} changed".format(s.get("items_added", 0), s.get("items_removed", 0), s.get("items_changed", 0)),
        "criteria: {} added, {} removed, {} reworded, {} reweighted, {} relabelled".format(
            s.get("criteria_added", 0),
            s.get("criteria_removed", 0),
            s.get("criteria_reworded", 0),
            s.get("criteria_reweighted", 0),
            s.get("criteria_relabelled", 0),
        ),
    ]
    for qid in log.get("items_added", []):
        lines.append(f"+ item {qid}")
    for qid in log.get("items_removed", []):
        lines.append(f"- item {qid}")
    for entry in log.get("items_changed", []):
        lines.append(f"~ item {entry['question_id']}: {', '.join(entry['fields'])}")
    for e in log.get("criteria_added", []):
        lines.append(f"+ criterion {e['question_id']}#{e['position']} [{e['ability']}] {e['text']}")
    for e in log.get("criteria_removed", []):
        lines.append(f"- criterion {e['question_id']}#{e['position']} [{e['ability']}] {e['text']}")
    for change in ("reworded", "reweighted", "relabelled"):
        for e in log.get(f"criteria_{change}", []):
            lines.append(f"~ {change} {e['question_id']}#{e['position']}: {e['before']} → {e['after']}")
    return "\n".join(lines)
