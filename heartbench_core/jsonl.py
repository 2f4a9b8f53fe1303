"""The JSON Lines reader's problems as a Django ValidationError.

Reading is pure (`heartbench_core.lib.jsonl`) and ends with a `LineErrors`; importers collect
their problems in the `ErrorCollector` here, whose `raise_if_any` raises them as an
`InputFileError`, a ValidationError, with the same messages naming file, line and field. So
pages, commands and the API report a bad file as they report any other refused input.
"""

import re
from collections.abc import Container, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from heartbench_core.lib import jsonl

# A JSON value's type in words, for messages (heartbench_core.lib.jsonl says them in English).
_TYPE_NAMES: dict[type, Promise] = {
    dict: gettext_lazy("an object"),
    list: gettext_lazy("a list"),
    str: gettext_lazy("a string"),
    bool: gettext_lazy("a boolean"),
    int: gettext_lazy("an integer"),
    float: gettext_lazy("a number"),
    type(None): gettext_lazy("null"),
}

# The reader's messages (heartbench_core.lib.jsonl, pure, English) in the reader's language:
# each pattern is one message of the reader, its groups the values the message carries.
_READER_MESSAGES: tuple[tuple[re.Pattern[str], Promise], ...] = (
    (
        re.compile(r"malformed JSON: nested more than (?P<depth>\d+) levels deep"),
        gettext_lazy("malformed JSON: nested more than %(depth)s levels deep"),
    ),
    (
        re.compile(r"malformed JSON: (?P<detail>.*) \(column (?P<column>\d+)\)"),
        gettext_lazy("malformed JSON: %(detail)s (column %(column)s)"),
    ),
    (re.compile(r"malformed JSON: (?P<detail>.*)"), gettext_lazy("malformed JSON: %(detail)s")),
    (re.compile(r"expected a JSON object, found (?P<found>.*)"), gettext_lazy("expected a JSON object, found %(found)s")),
    (re.compile(r"cannot open file: (?P<reason>.*)"), gettext_lazy("cannot open file: %(reason)s")),
    (re.compile(r"not valid UTF-8 \(byte (?P<byte>\d+)\)"), gettext_lazy("not valid UTF-8 (byte %(byte)s)")),
    (re.compile(r"nested more than (?P<depth>\d+) levels deep"), gettext_lazy("nested more than %(depth)s levels deep")),
    (
        re.compile(r"the key contains (?P<what>.*), which cannot be stored"),
        gettext_lazy("the key contains %(what)s, which cannot be stored"),
    ),
    (re.compile(r"contains (?P<what>.*), which cannot be stored"), gettext_lazy("contains %(what)s, which cannot be stored")),
)
_SAMPLES: tuple[Any, ...] = ({}, [], "", True, 0, 0.5, None)
# The reader says a type in English ("found a list"); the same type in the reader's language.
_ENGLISH_TYPE_NAMES = {jsonl.type_name(sample): _TYPE_NAMES[type(sample)] for sample in _SAMPLES}


def type_name(value: Any) -> str:
    """A JSON value's type in words, in the reader's language."""
    name = _TYPE_NAMES.get(type(value))
    return str(name) if name is not None else type(value).__name__


def localized(message: str) -> str:
    """One of the reader's English messages in the reader's language (any other message as it is)."""
    for pattern, template in _READER_MESSAGES:
        match = pattern.fullmatch(message)
        if match:
            values = match.groupdict()
            if "found" in values:
                english = _ENGLISH_TYPE_NAMES.get(values["found"])
                values["found"] = str(english) if english is not None else values["found"]
            return str(template) % values
    return message


def say(error: jsonl.LineError) -> str:
    """One problem of an input file in words: where (file, line, field) and what, in the reader's language."""
    values = {"file": error.file, "line": error.line, "field": error.field, "message": localized(error.message)}
    if error.line is None:
        return (_("%(file)s, field '%(field)s': %(message)s") if error.field else _("%(file)s: %(message)s")) % values
    if error.field:
        return _("%(file)s, line %(line)d, field '%(field)s': %(message)s") % values
    return _("%(file)s, line %(line)d: %(message)s") % values


class InputFileError(ValidationError):
    """One or more problems in an input file; nothing was written."""

    def __init__(self, errors: list[jsonl.LineError]) -> None:
        problems = jsonl.LineErrors(errors)
        self.errors = problems.errors
        self.truncated = problems.truncated
        messages = [say(e) for e in problems.errors]
        if problems.truncated:
            messages.append(_("… and %(count)d more errors") % {"count": problems.truncated})
        super().__init__(messages)

    def __str__(self) -> str:
        return "\n".join(self.messages)


class ErrorCollector(jsonl.ErrorCollector):
    """Collects LineErrors for one file; `raise_if_any` raises them as an InputFileError."""

    def raise_if_any(self) -> None:
        """Raise InputFileError listing every recorded problem, if there is one."""
        try:
            super().raise_if_any()
        except jsonl.LineErrors as exc:
            raise InputFileError(self.errors) from exc


def question_id_of(
    line: int, record: dict, errors: ErrorCollector, known: Container[str], first_line: Mapping[str, int], *, version: Any = None
) -> str | None:
    """The line's question_id when it is a known question (of `version`, when named) not on an earlier line; None after recording why not."""
    qid = record.get("question_id")
    if "question_id" not in record:
        problem = _("missing key")
    elif not isinstance(qid, str):
        problem = _("must be a string, found %(found)s") % {"found": type_name(qid)}
    elif qid not in known:
        unknown = (
            _("unknown question_id %(question_id)r in %(version)s") if version is not None else _("unknown question_id %(question_id)r")
        )
        problem = unknown % {"question_id": qid, "version": version}
    elif qid in first_line:
        problem = _("duplicate question_id %(question_id)r (first on line %(first)d)") % {"question_id": qid, "first": first_line[qid]}
    else:
        return qid
    errors.add(line, "question_id", problem)
    return None
