"""Text diffs for display: per character, or per word with Chinese per character (it has no spaces); field changes.

Pure: the HTML comes escaped with `html.escape`; the Django side marks it safe where it renders it.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from html import escape
from typing import Any


def char_opcodes(before: str, after: str) -> list[tuple[str, str]]:
    """Return [(op, text)] with op in {'equal', 'delete', 'insert'}, character by character."""
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("equal", before[i1:i2]))
        else:
            if i2 > i1:
                out.append(("delete", before[i1:i2]))
            if j2 > j1:
                out.append(("insert", after[j1:j2]))
    return out


def char_diff_html(before: str, after: str) -> str:
    """Return escaped HTML marking deletions with <del> and insertions with <ins>."""
    return _html(char_opcodes(before or "", after or ""))


# --- word diffs (per character in Chinese) and field-by-field changes ------------------------------

# A word of Latin letters or digits (with inner apostrophes, hyphens, dots), a run of spaces, or any other single
# character: every Han character, Chinese punctuation and symbol is a token of its own, since Chinese has no spaces.
_TOKEN = re.compile(r"[^\W\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+(?:['’.\-][^\W\u3000-\u9fff]+)*|\s+|.", re.S)


def tokens(text: str) -> list[str]:
    """Split text into diff tokens: whole words in alphabetic scripts, single characters in Chinese."""
    return _TOKEN.findall(text or "")


def word_opcodes(before: str, after: str) -> list[tuple[str, str]]:
    """Return [(op, text)] with op in {'equal', 'delete', 'insert'}, word by word (character by character in Chinese)."""
    a, b = tokens(before), tokens(after)
    out: list[tuple[str, str]] = []

    def add(op: str, text: str) -> None:
        if out and out[-1][0] == op:
            out[-1] = (op, out[-1][1] + text)
        else:
            out.append((op, text))

    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            add("equal", "".join(a[i1:i2]))
            continue
        if i2 > i1:
            add("delete", "".join(a[i1:i2]))
        if j2 > j1:
            add("insert", "".join(b[j1:j2]))
    return out


def word_diff_html(before: str, after: str) -> str:
    """Escaped HTML of a word diff (per character in Chinese): deletions in <del>, insertions in <ins>."""
    return _html(word_opcodes(before or "", after or ""))


def _html(ops: list[tuple[str, str]]) -> str:
    parts = []
    for op, text in ops:
        if op == "equal":
            parts.append(escape(text))
        elif op == "delete":
            parts.append(f'<del class="diff-del">{escape(text)}</del>')
        else:
            parts.append(f'<ins class="diff-ins">{escape(text)}</ins>')
    return "".join(parts)


MISSING = "—"
# Text at least this long, or with a line break, is shown as a diff of old and new rather than as "old → new".
LONG_TEXT = 12


@dataclass(frozen=True)
class FieldChange:
    """One changed field: its (dotted) name, both values as text, and a diff of them when they are long text."""

    field: str
    before: str  # MISSING when the field was absent
    after: str  # MISSING when the field is gone
    status: str  # "changed", "added" or "removed"
    diff_html: str = ""  # escaped HTML (word_diff_html) for long text; empty otherwise


def display_value(value: Any) -> str:
    """A stored value as a person reads it: text as is, numbers and booleans as JSON, lists one entry per line."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(display_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {display_value(v)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


def flatten(values: Mapping[str, Any] | None, prefix: str = "") -> dict[str, Any]:
    """Nested mappings as one level of dotted names: {"lineage": {"retired": False}} → {"lineage.retired": False}."""
    out: dict[str, Any] = {}
    for key, value in (values or {}).items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def field_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[FieldChange]:
    """What differs between two states, field by field, in the order the fields first appear (unchanged fields left out).

    With no `before` (something created) every field of `after` is "added"; with no `after`, every field of
    `before` is "removed". Long text (LONG_TEXT characters or more, or several lines) on both sides comes with
    a word diff (per character in Chinese).
    """
    old, new = flatten(before), flatten(after)
    changes: list[FieldChange] = []
    for name in dict.fromkeys([*old, *new]):
        if name in old and name in new and old[name] == new[name]:
            continue
        if old.get(name) is None and new.get(name) is None:  # absent on one side, empty on the other: nothing to read
            continue
        a = display_value(old[name]) if name in old else MISSING
        b = display_value(new[name]) if name in new else MISSING
        status = "changed" if name in old and name in new else ("added" if name in new else "removed")
        long_text = status == "changed" and isinstance(old[name], str | list) and isinstance(new[name], str | list)
        long_text = long_text and (max(len(a), len(b)) >= LONG_TEXT or "\n" in a + b)
        changes.append(FieldChange(name, a, b, status, word_diff_html(a, b) if long_text else ""))
    return changes
