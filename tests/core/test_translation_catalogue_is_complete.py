"""The zh-Hans catalogues are complete: no entry empty or fuzzy, placeholders kept, compiled, and the scripts' strings in djangojs.

A fuzzy or empty entry shows English on a Chinese page; a placeholder missing from a translation
drops a value (or, for a misspelt name, fails the page); a `.po` edited but not compiled changes
nothing. Each failure names the entries, for the translation pass.
"""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES"
SCRIPTS = Path(settings.BASE_DIR) / "static" / "js"
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifr]|\{(\w+)\}")


@dataclass
class Entry:
    context: str | None = None
    msgid: str = ""
    plural: str | None = None
    strings: dict[str, str] = field(default_factory=dict)  # "" for msgstr, "0", "1"… for msgstr[n]
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False


def read_po(path: Path) -> list[Entry]:
    """The entries of a .po file (header and obsolete entries included, marked)."""
    entries: list[Entry] = []
    current, target = Entry(), None
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if target is not None:
                entries.append(current)
            current, target = Entry(), None
            continue
        if line.startswith("#~"):
            current.obsolete = True
            line = line[2:].strip()
            if not line:
                continue
        elif line.startswith("#,"):
            current.flags |= {f.strip() for f in line[2:].split(",")}
            continue
        elif line.startswith("#"):
            continue
        keyword, _space, rest = line.partition(" ")
        if line.startswith('"'):
            value = ast.literal_eval(line)
        else:
            target, value = keyword, ast.literal_eval(rest)
        if target == "msgctxt":
            current.context = (current.context or "") + value
        elif target == "msgid":
            current.msgid += value
        elif target == "msgid_plural":
            current.plural = (current.plural or "") + value
        elif target and target.startswith("msgstr"):
            index = target[7:-1] if "[" in target else ""
            current.strings[index] = current.strings.get(index, "") + value
    return [e for e in entries if e.msgid or e.context]


def _live(name: str) -> list[Entry]:
    path = LOCALE / name
    return [e for e in read_po(path) if not e.obsolete] if path.exists() else []


def _placeholders(text: str) -> set[str]:
    return {name for pair in _PLACEHOLDER.findall(text) for name in pair if name}


def _label(entry: Entry) -> str:
    return f"{entry.context + ' | ' if entry.context else ''}{entry.msgid[:90]!r}"


@pytest.mark.parametrize("name", ["django.po", "djangojs.po"])
def test_no_entry_is_empty_or_fuzzy(name):
    entries = _live(name)
    bad = [_label(e) for e in entries if "fuzzy" in e.flags or not e.strings or any(not s for s in e.strings.values())]
    assert not bad, f"{len(bad)} empty or fuzzy entries in {name}:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", ["django.po", "djangojs.po"])
def test_every_translation_keeps_the_placeholders_of_its_english(name):
    wrong = []
    for entry in _live(name):
        wanted = _placeholders(entry.msgid + (entry.plural or ""))
        for index, translated in entry.strings.items():
            if not translated:
                continue
            found = _placeholders(translated)
            # A plural form may leave its count out ("一项"); every other placeholder must be there, and no other.
            optional = {"count", "n"} if entry.plural else set()
            if not found <= wanted or wanted - found - optional:
                wrong.append(f"{_label(entry)} [{index or '-'}]: {sorted(wanted)} → {sorted(found)}")
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_the_compiled_catalogue_holds_every_translation_of_the_po():
    compiled = gettext.GNUTranslations((LOCALE / "django.mo").open("rb"))
    stale = []
    for entry in _live("django.po"):
        key = f"{entry.context}\x04{entry.msgid}" if entry.context else entry.msgid
        if entry.plural is None and entry.strings.get("") and compiled._catalog.get(key) != entry.strings[""]:  # type: ignore[attr-defined]
            stale.append(_label(entry))
    assert not stale, f"{len(stale)} entries differ in django.mo: run compilemessages\n" + "\n".join(stale[:40])


def test_every_string_the_scripts_mark_is_in_the_scripts_catalogue():
    marked = set()
    for script in sorted(SCRIPTS.glob("*.js")):
        if script.name.startswith("htmx"):
            continue
        marked |= set(re.findall(r"\bgettext\(\s*\"((?:[^\"\\]|\\.)*)\"\s*\)", script.read_text(encoding="utf-8")))
    assert marked, "the scripts mark nothing: is static/js/workspace.js still using gettext()?"
    known = {e.msgid for e in _live("djangojs.po")}
    missing = sorted(marked - known)
    assert not missing, (
        f"{len(missing)} script strings are not in locale/zh_Hans/LC_MESSAGES/djangojs.po "
        "(makemessages -d djangojs -l zh_Hans --ignore=.venv --ignore=staticfiles):\n" + "\n".join(missing)
    )
