"""Reading JSON Lines input with errors that name the file, the line and the field.

Every importer of the platform (items, responses, judge verdicts, human judgments) reads its
file through `read_jsonl` and records problems as `LineError`s in an `ErrorCollector`;
`raise_if_any` ends the import with a `LineErrors` listing them. Pure Python: the Django side
(`heartbench_core.jsonl`) raises the same list as a ValidationError, so the command line, the
pages and the API all show the same messages.
"""

import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

MAX_REPORTED_ERRORS = 50
# Deeper than any real record; bounds every recursive walk (hashing, jsonb, templates) that follows.
MAX_NESTING_DEPTH = 64


@dataclass(frozen=True)
class LineError:
    """One problem of an input file: where (file, line, field) and what."""

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}, line {self.line}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"

    def as_dict(self) -> dict:
        """file, line, field and message, JSON-ready."""
        return {"file": self.file, "line": self.line, "field": self.field, "message": self.message}


class LineErrors(Exception):
    """One or more problems in an input file; nothing was written.

    Keeps the first MAX_REPORTED_ERRORS problems (`errors`) and counts the rest (`truncated`);
    `messages` says each in words, the last line the count of those left out.
    """

    def __init__(self, errors: list[LineError]) -> None:
        self.errors = errors[:MAX_REPORTED_ERRORS]
        self.truncated = max(0, len(errors) - MAX_REPORTED_ERRORS)
        self.messages = [str(e) for e in self.errors]
        if self.truncated:
            self.messages.append(f"… and {self.truncated} more errors")
        super().__init__("\n".join(self.messages))

    def __str__(self) -> str:
        return "\n".join(self.messages)


class ErrorCollector:
    """Collects LineErrors for one file; `raise_if_any` ends the import when something was wrong."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[LineError] = []

    def add(self, line: int | None, field: str | None, message: str) -> None:
        """Record a problem at a line (None: the whole file) and field (None: the whole line)."""
        self.errors.append(LineError(self.file, line, field, message))

    def raise_if_any(self) -> None:
        """Raise LineErrors listing every recorded problem, if there is one."""
        if self.errors:
            raise LineErrors(self.errors)

    def __bool__(self) -> bool:
        return bool(self.errors)


def read_jsonl(
    source: str | Path | IO[bytes] | IO[str],
    errors: ErrorCollector,
    *,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; bad lines are recorded, not yielded."""
    for number, raw in _lines(source, errors):
        if progress and number % 1000 == 0:
            progress(number)
        text = raw.strip()
        if not text:
            continue
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            errors.add(number, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
            continue
        except ValueError as exc:
            errors.add(number, None, f"malformed JSON: {exc}")
            continue
        except RecursionError:
            errors.add(number, None, f"malformed JSON: nested more than {MAX_NESTING_DEPTH} levels deep")
            continue
        if not isinstance(value, dict):
            errors.add(number, None, f"expected a JSON object, found {_type_name(value)}")
            continue
        problem = unstorable_part(value) if _may_hold_unstorable(text) else None
        if problem is not None:
            errors.add(number, *problem)
            continue
        yield number, value


# NUL (PostgreSQL refuses it in text and jsonb) and lone UTF-16 surrogates, which JSON's \\ud800
# escapes (or a request's declared charset) can produce but no database can encode as UTF-8.
UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


# What a line holding an unstorable part must contain: the character itself (a text source may hold a
# lone surrogate), its \u escape, or more brackets than the deepest allowed nesting.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def _may_hold_unstorable(text: str) -> bool:
    """Whether a decoded line may hold what `unstorable_part` looks for; False lets the walk over the value be skipped.

    Conservative: an escaped backslash followed by "u0000" also says True, and the walk decides.
    """
    if "\\u" in text and _UNSTORABLE_ESCAPE.search(text):
        return True
    if UNSTORABLE_CHARACTER.search(text):
        return True
    return text.count("[") + text.count("{") > MAX_NESTING_DEPTH


def unstorable_character(text: str) -> str | None:
    """The first character of the text no database stores (NUL, a lone surrogate), or None."""
    found = UNSTORABLE_CHARACTER.search(text)
    return found.group() if found else None


def replace_unstorable(text: str) -> str:
    """The text with every character no database stores replaced by U+FFFD (for messages quoted from outside)."""
    return UNSTORABLE_CHARACTER.sub("\ufffd", text)


def _describe(character: str) -> str:
    if character == "\x00":
        return "a NUL character (\\u0000)"
    return f"a lone surrogate ({escaped(character)}), not a Unicode character"


def escaped(text: str) -> str:
    """The text with every unstorable character written as its \\u escape, so it can be shown and stored."""
    return UNSTORABLE_CHARACTER.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True)
class Unstorable:
    """Where a decoded JSON value holds what no database stores: the field's path, and the character (None: nested too deeply)."""

    path: str | None
    character: str | None
    in_key: bool = False


def find_unstorable(value: Any) -> Unstorable | None:
    """The first part of a decoded JSON value no database may store (a NUL, a lone surrogate, nesting too deep), or None.

    The walk is iterative, so it cannot overflow itself; paths read `dialogue[0].content`, with
    unstorable characters of keys written as their escapes.
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_NESTING_DEPTH:
            return Unstorable(path or None, None)
        if isinstance(node, str):
            if found := UNSTORABLE_CHARACTER.search(node):
                return Unstorable(path or None, found.group())
        elif isinstance(node, dict):
            for key, child in reversed(node.items()):
                found = UNSTORABLE_CHARACTER.search(key)
                child_path = f"{path}.{escaped(key)}" if path else escaped(key)
                if found:
                    return Unstorable(child_path, found.group(), in_key=True)
                stack.append((child, child_path, depth + 1))
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                stack.append((node[index], f"{path}[{index}]", depth + 1))
    return None


def unstorable_part(value: Any) -> tuple[str | None, str] | None:
    """The (field, message) of the first part of a decoded JSON value no database may store, or None.

    PostgreSQL refuses the NUL character in text and jsonb (SQLite would keep it, so both refuse
    it here), no database stores a lone surrogate, and nesting past MAX_NESTING_DEPTH would
    overflow the recursive code that reads it.
    """
    found = find_unstorable(value)
    if found is None:
        return None
    if found.character is None:
        return found.path, f"nested more than {MAX_NESTING_DEPTH} levels deep"
    if found.in_key:
        return found.path, f"the key contains {_describe(found.character)}, which cannot be stored"
    return found.path, f"contains {_describe(found.character)}, which cannot be stored"


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; JSON (and PostgreSQL's jsonb) does not.
    raise ValueError(f"{name} is not a JSON value")


def _lines(source: str | Path | IO[bytes] | IO[str], errors: ErrorCollector) -> Iterable[tuple[int, str]]:
    if isinstance(source, (str, Path)):
        with ExitStack() as stack:
            try:
                handle = stack.enter_context(open(source, "rb"))
            except OSError as exc:
                errors.add(None, None, f"cannot open file: {exc.strerror}")
                return
            yield from _decode(handle, errors)
    else:
        yield from _decode(source, errors)


def _decode(handle: IO[bytes] | IO[str], errors: ErrorCollector) -> Iterable[tuple[int, str]]:
    for number, raw in enumerate(cast(Iterable[bytes | str], handle), start=1):
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                errors.add(number, None, f"not valid UTF-8 (byte {exc.start})")
                continue
        else:
            text = raw
        if number == 1:
            text = text.lstrip("\ufeff")
        yield number, text


def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def type_name(value: Any) -> str:
    """Describe a JSON value's type in words, for error messages."""
    return _type_name(value)


def source_name(source: Any, default: str = "<upload>") -> str:
    """Return a display name for an input source (a path or an uploaded file)."""
    if isinstance(source, (str, Path)):
        return str(source)
    return getattr(source, "name", None) or default
