"""A stored change (a before and an after state) written as sentences in the reader's language.

Audit trails keep what changed as data: two JSON states keyed by field names and holding raw
values (`{"status": "submitted"}` → `{"status": "approved"}`, `{"threshold": 0.75}`). A page
showing them as they are reads `status: submitted → approved`, English codes on a Chinese page.
Here each changed field becomes one sentence: the field named by its label, each value shown as a
person reads it (a coded choice by its label, a number in the reader's format, a boolean as
yes/no), e.g. "状态由“已提交待审”改为“已批准”。". The stored states stay as they were.

A `Vocabulary` says how one kind of record names its fields and values; the app that writes the
record owns it (rubrics' audit entries, validation's release policy). A field it does not name
is shown by its stored name, so nothing is hidden. Long text that changed comes with a word diff
(heartbench_core.lib.textdiff) to read beside the sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils import formats
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

from heartbench_core.lib.textdiff import LONG_TEXT, flatten, word_diff_html


@dataclass(frozen=True)
class Vocabulary:
    """How one kind of record names its (dotted) fields and shows their values."""

    labels: Mapping[str, str | Promise]
    choices: Mapping[str, Mapping[Any, str | Promise]] = field(default_factory=dict)
    # A field whose values need more than a table (a weight's sign, a percentage): value → text.
    formatters: Mapping[str, Callable[[Any], str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ChangeSentence:
    """One changed field as a sentence, and a word diff of its old and new text when that is long."""

    field: str  # the stored (dotted) name, for tests and exports
    text: str
    diff: SafeString | None = None


def value_text(name: str, value: Any, vocabulary: Vocabulary) -> str:
    """One stored value as a person reads it, in the reader's language."""
    if value is None or value == "" or value == [] or value == {}:
        return pgettext("an empty value in a change", "(empty)")
    if name in vocabulary.formatters:
        return vocabulary.formatters[name](value)
    labels = vocabulary.choices.get(name)
    if labels is not None and not isinstance(value, list | dict):
        return str(labels.get(value, value))
    if isinstance(value, bool):
        return pgettext("a yes/no value", "yes") if value else pgettext("a yes/no value", "no")
    if isinstance(value, int | float):
        return formats.number_format(value, use_l10n=True)
    if isinstance(value, list):
        return pgettext("between the entries of a list", ", ").join(value_text(name, v, vocabulary) for v in value)
    return str(value)


def field_label(name: str, vocabulary: Vocabulary) -> str:
    """A field's label; the stored name when the vocabulary has none."""
    return str(vocabulary.labels.get(name, name))


def change_sentences(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, vocabulary: Vocabulary) -> list[ChangeSentence]:
    """Every field that differs between two stored states, as a sentence, in the order the fields first appear."""
    old, new = flatten(before), flatten(after)
    sentences: list[ChangeSentence] = []
    for name in dict.fromkeys([*old, *new]):
        if name in old and name in new and old[name] == new[name]:
            continue
        a, b = old.get(name), new.get(name)
        if a is None and b is None:
            continue
        label = field_label(name, vocabulary)
        if name not in old or a is None:
            text = gettext("%(field)s: set to “%(after)s”.") % {"field": label, "after": value_text(name, b, vocabulary)}
            sentences.append(ChangeSentence(name, text))
            continue
        if name not in new or b is None:
            text = gettext("%(field)s: removed (it was “%(before)s”).") % {"field": label, "before": value_text(name, a, vocabulary)}
            sentences.append(ChangeSentence(name, text))
            continue
        if isinstance(a, str) and isinstance(b, str) and (max(len(a), len(b)) >= LONG_TEXT or "\n" in a + b):
            # Long text reads better as a diff than quoted twice.
            text = gettext("%(field)s changed:") % {"field": label}
            sentences.append(ChangeSentence(name, text, mark_safe(word_diff_html(a, b))))  # escaped by word_diff_html
            continue
        text = gettext("%(field)s changed from “%(before)s” to “%(after)s”.") % {
            "field": label,
            "before": value_text(name, a, vocabulary),
            "after": value_text(name, b, vocabulary),
        }
        sentences.append(ChangeSentence(name, text))
    return sentences
