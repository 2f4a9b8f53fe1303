"""How the taxonomy reads on a page: one helper for abilities, dimensions, difficulties and breakdown groups.

Abilities are Chinese labels in the data. A reader in Chinese sees the label alone; a reader in
English sees the label with its English name beside it ("温暖 · Warmth"), so both can match a
criterion with the released data. Dimensions and difficulties are machine names in the data and
the API (`Personality`, `hard`); pages show them through the catalogue. Scenes are the dataset's
own Chinese words and show as they are. The API keeps the machine names: nothing here is used there.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import get_language, pgettext_lazy

from heartbench_core.lib.taxonomy import english_name

DIMENSION_NAMES: dict[str, Promise] = {
    "Personality": pgettext_lazy("ability dimension", "Personality"),
    "Emotion": pgettext_lazy("ability dimension", "Emotion"),
    "Social": pgettext_lazy("ability dimension", "Social"),
    "Motivation": pgettext_lazy("ability dimension", "Motivation"),
    "Morality": pgettext_lazy("ability dimension", "Morality"),
    # The agreement report's groups beyond the five dimensions (heartbench_core.lib.agreement_report.dimension_label).
    "Catastrophic": pgettext_lazy("ability dimension", "Catastrophic failure"),
    "Other": pgettext_lazy("ability dimension", "Other (outside the taxonomy)"),
}

DIFFICULTY_NAMES: dict[str, Promise] = {
    "hard": pgettext_lazy("item difficulty", "hard"),
    "normal": pgettext_lazy("item difficulty", "normal"),
}

GROUP_KINDS: dict[str, Promise] = {
    "ability": pgettext_lazy("breakdown group kind", "ability"),
    "dimension": pgettext_lazy("breakdown group kind", "dimension"),
    "difficulty": pgettext_lazy("breakdown group kind", "difficulty"),
    "scene": pgettext_lazy("breakdown group kind", "scene"),
    "model": pgettext_lazy("breakdown group kind", "model"),
}


def reads_chinese() -> bool:
    """Whether the active language is Chinese (the data's own language)."""
    return (get_language() or "").lower().startswith("zh")


def ability_english(label: str) -> str:
    """The English name to show beside an ability label: empty in Chinese, or when there is none."""
    if reads_chinese():
        return ""
    name = english_name(label)
    return "" if name == label else name


def ability_display(label: str) -> str:
    """An ability label as a reader sees it: `温暖` in Chinese, `温暖 · Warmth` in English."""
    if not label:
        return ""
    name = ability_english(label)
    return f"{label} · {name}" if name else label


def dimension_display(name: str) -> str:
    """A dimension's name in the reader's language (an unknown name shows as it is)."""
    translated = DIMENSION_NAMES.get(name)
    return str(translated) if translated is not None else name


def difficulty_display(code: str) -> str:
    """An item's difficulty code as a word in the reader's language; empty shows as a dash."""
    if not code:
        return "—"
    translated = DIFFICULTY_NAMES.get(code)
    return str(translated) if translated is not None else code


def group_value_display(kind: str, key: str) -> str:
    """A breakdown group's own name in the reader's language, without its kind (`Emotion` → `情绪`)."""
    shown = {"ability": ability_display, "dimension": dimension_display, "difficulty": difficulty_display}.get(kind)
    return shown(key) if shown else key


def group_display(kind: str, key: str) -> str:
    """A breakdown row's group (`dimension`, `Emotion`) as the reader sees it: `dimension · Emotion`, `维度 · 情绪`."""
    value = group_value_display(kind, key)
    kind_name = GROUP_KINDS.get(kind)
    return f"{kind_name} · {value}" if kind_name is not None else value
