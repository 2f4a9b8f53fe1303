"""Reading a judge's answer: exactly one 0/1 verdict per criterion, in order, or a `Problem` saying what is wrong.

Two answer shapes are accepted:

- the platform's: `{"criteria": [{"index": 1, "reason": "...", "hit": 0|1}, ...]}`, one entry per
  criterion, indexes 1..n in order, each with a non-blank reason;
- the released benchmark's: `{"reason": "...", "detail": [0, 1, ...]}` (one reason for the question).

Each as strict JSON, inside a Markdown code fence (```json), after or around prose, or as a Python
literal (single quotes, True/None). The released shape is also read as the released judge prompt
itself spells it out, which is neither JSON nor Python: each key followed by its type, the reason
as bare text (`{'reason'（String）: 回复……「……」 'detail'（array of Integer）: [1, 0, 1]}`), so a team
can judge with the upstream prompt unchanged. Nothing is padded, truncated, reordered or guessed: a
wrong length, a value other than 0/1, a missing reason or an unreadable answer is a `Problem`, which
the runner turns into a repair prompt and, after its retries, into a failed question.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from heartbench_core.lib.jsonl import unstorable_character

# Problem codes, with their parameters.
EMPTY = "empty"  # the answer is empty
TRUNCATED = "truncated"  # the endpoint stopped at its token limit (finish_reason "length")
NO_OBJECT = "no_object"  # no {...} anywhere in the answer
UNREADABLE = "unreadable"  # an object is there but parses neither as JSON nor as a Python literal (cut off?)
UNKNOWN_SHAPE = "unknown_shape"  # an object without a "criteria" or "detail" list
WRONG_LENGTH = "wrong_length"  # found, expected
NOT_AN_ENTRY = "not_an_entry"  # position: an element of "criteria" is not an object
BAD_INDEX = "bad_index"  # position, expected, found
BAD_VALUE = "bad_value"  # position, found
MISSING_REASON = "missing_reason"  # position (0 for the question's reason)
UNSTORABLE_REASON = "unstorable_reason"  # position (0 for the question's reason): a NUL or lone surrogate no database stores

PROBLEM_CODES = (
    EMPTY,
    TRUNCATED,
    NO_OBJECT,
    UNREADABLE,
    UNKNOWN_SHAPE,
    WRONG_LENGTH,
    NOT_AN_ENTRY,
    BAD_INDEX,
    BAD_VALUE,
    MISSING_REASON,
    UNSTORABLE_REASON,
)

PLATFORM_SHAPE = "platform"
RELEASED_SHAPE = "released"

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|python|py)?[ \t]*\n?(.*?)```", re.DOTALL)

# The answer as the released judge prompt spells out its format: `{'reason'（String）: <bare text> 'detail'（array of
# Integer）: [1,0,…]}` — quoted keys, each optionally followed by its type in parentheses (full- or half-width), a
# colon (full- or half-width), the reason as text up to the detail key, the verdicts as one flat list, then the
# closing brace (the prompt's own explanation in parentheses may follow the list).
_ANNOTATION = r"(?:[ \t]*[（(][^（()）\n]*[）)])?"
_RELEASED_PROMPT_ANSWER = re.compile(
    r"\{\s*(?P<rq>['\"])reason(?P=rq)" + _ANNOTATION + r"\s*[:：]\s*(?P<reason>.*?)\s*"
    r"(?P<dq>['\"])detail(?P=dq)" + _ANNOTATION + r"\s*[:：]\s*(?P<detail>\[[^\[\]{}]*\])" + _ANNOTATION + r"\s*,?\s*\}",
    re.DOTALL,
)


@dataclass(frozen=True)
class Problem:
    """Why an answer cannot be used: a code (see PROBLEM_CODES) and its parameters."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.params}


@dataclass(frozen=True)
class Verdicts:
    """A usable answer: one 0/1 hit and one reason per criterion, in criterion order."""

    hits: tuple[int, ...]
    reasons: tuple[str, ...]
    shape: str  # PLATFORM_SHAPE or RELEASED_SHAPE


def parse_answer(text: str | None, count: int, *, truncated: bool = False) -> Verdicts | Problem:
    """Read an answer for `count` criteria; `truncated` when the endpoint reported hitting its token limit."""
    if truncated:
        return Problem(TRUNCATED)
    if text is None or not text.strip():
        return Problem(EMPTY)
    candidates = list(_candidate_objects(text))
    parsed = [obj for obj in (_load(c) for c in candidates) if isinstance(obj, dict)]
    shaped = [obj for obj in parsed if _shape(obj) is not None]
    if shaped:
        return _read(shaped[0], count)
    spelled = list(_released_prompt_answers(text))
    if spelled:
        return _read_released(spelled[0], count)
    if not candidates:
        return Problem(UNREADABLE) if "{" in text else Problem(NO_OBJECT)
    if not parsed:
        return Problem(UNREADABLE)
    return Problem(UNKNOWN_SHAPE)


def _candidate_objects(text: str) -> Iterator[str]:
    """Substrings that may be the answer object: the bodies of code fences first, then each balanced {...} of the text."""
    for match in _FENCE.finditer(text):
        yield from _balanced_objects(match.group(1))
    yield from _balanced_objects(text)


def _released_prompt_answers(text: str) -> Iterator[dict[str, Any]]:
    """Answers written in the released prompt's own format (see _RELEASED_PROMPT_ANSWER), fenced ones first, as
    `{"reason", "detail"}`; one whose verdicts are not a list (the prompt's `[1,0,1,....]` repeated) is skipped."""
    bodies = [m.group(1) for m in _FENCE.finditer(text)]
    for body in [*bodies, text]:
        for match in _RELEASED_PROMPT_ANSWER.finditer(body):
            detail = _load(match["detail"])
            if isinstance(detail, list):
                yield {"reason": _bare_reason(match["reason"]), "detail": detail}


def _bare_reason(text: str) -> str:
    """The reason as the judge wrote it, without the comma that may end it or the quotes that may surround it."""
    reason = text.strip().removesuffix(",").removesuffix("，").strip()
    if len(reason) >= 2 and reason[0] == reason[-1] and reason[0] in "'\"":
        reason = reason[1:-1].strip()
    return reason


def _balanced_objects(text: str) -> Iterator[str]:
    """Every outermost {...} of the text, matching braces outside quoted strings ("..." and '...')."""
    depth, start, quote, escaped = 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth > 0:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                yield text[start : i + 1]


def _load(candidate: str) -> Any:
    """The object a candidate holds: JSON first, then a Python literal; None when it is neither."""
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(candidate)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _shape(obj: dict) -> str | None:
    if isinstance(obj.get("criteria"), list):
        return PLATFORM_SHAPE
    if isinstance(obj.get("detail"), list | str):
        return RELEASED_SHAPE
    return None


def _is_bit(value: Any) -> TypeGuard[int]:
    return type(value) is int and value in (0, 1)


def _read(obj: dict, count: int) -> Verdicts | Problem:
    if _shape(obj) == PLATFORM_SHAPE:
        return _read_platform(obj["criteria"], count)
    return _read_released(obj, count)


def _read_platform(entries: list, count: int) -> Verdicts | Problem:
    if len(entries) != count:
        return Problem(WRONG_LENGTH, {"found": len(entries), "expected": count})
    hits: list[int] = []
    reasons: list[str] = []
    for position, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            return Problem(NOT_AN_ENTRY, {"position": position})
        index = entry.get("index")
        if type(index) is not int or index != position:
            return Problem(BAD_INDEX, {"position": position, "expected": position, "found": _shown(index)})
        hit = entry.get("hit")
        if not _is_bit(hit):
            return Problem(BAD_VALUE, {"position": position, "found": _shown(hit)})
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            return Problem(MISSING_REASON, {"position": position})
        if unstorable_character(reason):  # a JSON escape (\u0000, \ud800) the raw text did not show
            return Problem(UNSTORABLE_REASON, {"position": position})
        hits.append(hit)
        reasons.append(reason.strip())
    return Verdicts(tuple(hits), tuple(reasons), PLATFORM_SHAPE)


def _read_released(obj: dict, count: int) -> Verdicts | Problem:
    detail = obj["detail"]
    if isinstance(detail, str):  # the released scorer's string form, "[1, 0, 1]"
        loaded = _load(detail.strip())
        if not isinstance(loaded, list):
            return Problem(UNKNOWN_SHAPE)
        detail = loaded
    if len(detail) != count:
        return Problem(WRONG_LENGTH, {"found": len(detail), "expected": count})
    for position, hit in enumerate(detail, start=1):
        if not _is_bit(hit):
            return Problem(BAD_VALUE, {"position": position, "found": _shown(hit)})
    reason = obj.get("reason", "")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        return Problem(MISSING_REASON, {"position": 0})
    if unstorable_character(reason):
        return Problem(UNSTORABLE_REASON, {"position": 0})
    return Verdicts(tuple(detail), (reason.strip(),) * count, RELEASED_SHAPE)


def _shown(value: Any) -> str:
    """A value as the problem reports it: its repr, shortened."""
    text = "(missing)" if value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def problem_in_chinese(problem: Problem) -> str:
    """What was wrong, in the prompt's language (the repair prompt quotes it to the judge)."""
    p = problem.params
    texts = {
        EMPTY: "回答为空",
        TRUNCATED: "回答达到长度上限而被截断，没有完整的 JSON 对象",
        NO_OBJECT: "回答中找不到 JSON 对象",
        UNREADABLE: "回答中的 JSON 对象无法解析（可能不完整或被截断）",
        UNKNOWN_SHAPE: "JSON 对象中没有 criteria 列表",
        WRONG_LENGTH: "给出了 {found} 个判断，但评分项共有 {expected} 个",
        NOT_AN_ENTRY: "criteria 的第 {position} 个元素不是对象",
        BAD_INDEX: "criteria 的第 {position} 个元素的 index 应为 {expected}，实际为 {found}",
        BAD_VALUE: "第 {position} 个判断是 {found}，判断只能是 0 或 1",
        MISSING_REASON: "第 {position} 项缺少理由（reason 应为非空字符串）",
        UNSTORABLE_REASON: "理由中含有无法保存的字符（\\u0000 或单独的代理字符），请只用普通文字",
    }
    return texts.get(problem.code, problem.code).format(**p)
