"""Search in Chinese and English over short texts: query terms, the match rule, the score and highlighted snippets.

Chinese has no spaces, so word tokenisation finds nothing in it; and trigram similarity ranks a
two-character word poorly against a sentence (a short Chinese word shares none of its padded
trigrams with a long run of characters). The rule here is the one CJK search engines use
without a segmenter (Lucene's CJK bigrams):

- a query is split into **terms** at spaces and punctuation, and each run of Han (or kana)
  characters is a term of its own, so "AI共情" is the terms "ai" and "共情";
- a term **matches** a text that contains it; a Han term of three or more characters also
  matches a text that contains at least two thirds of its overlapping character pairs
  (`Term.need` of `Term.grams`), so 过早建议 finds "过早提供具体行为建议" (过早 and 建议, 2 of 3);
- an entry matches when **every** term does;
- its **score** adds, per term: 6 when the title holds it, 3 when the text does, the number of
  times the text holds it (at most 5), and, for a term of pairs, 2 × the share of its pairs
  found. Searches from a criterion add a constant for entries linked to it.

The database does the same (`annotation.knowledge.search` builds these sums as SQL on
PostgreSQL and SQLite alike, over `normalise`d columns); `score` here is the reference the
tests compare it with, and the scorer of guidelines sections, which are not rows. Pure Python.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

MAX_TERMS = 8
MAX_TERM_CHARS = 40
MAX_QUERY_CHARS = 200
# Weights of the score (see the module docstring); the SQL twin reads the same constants.
TITLE_WEIGHT = 6.0
TEXT_WEIGHT = 3.0
OCCURRENCE_CAP = 5
GRAMS_WEIGHT = 2.0
FOCUS_BONUS = 4.0


@lru_cache(maxsize=8192)
def _fold(char: str) -> str:
    """One character as search compares it: compatibility form (full-width Ａ → A) in lower case."""
    return unicodedata.normalize("NFKC", char).lower()


def normalise(text: str) -> str:
    """Text as search stores and compares it (character by character, so positions can be mapped back)."""
    return "".join(_fold(c) for c in text)


def _normalise_with_map(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index of the original character it came from."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        lowered = text.lower()
        if len(lowered) == len(text):  # nothing changes length: position i is character i (most text, Chinese included)
            return lowered, list(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        folded = _fold(c)
        out.append(folded)
        where.extend([i] * len(folded))
    return "".join(out), where


def is_cjk(char: str) -> bool:
    """Han ideographs (and Japanese kana): scripts written without spaces."""
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FFFF
        or 0x3040 <= code <= 0x30FF
    )


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in ("L", "N")


@dataclass(frozen=True)
class Term:
    """One term of a query, normalised; a Han term of 3+ characters also carries its character pairs."""

    text: str
    grams: tuple[str, ...] = ()
    need: int = 0  # pairs that must be found when the whole term is not

    @property
    def cjk(self) -> bool:
        return bool(self.text) and is_cjk(self.text[0])

    def needles(self) -> tuple[str, ...]:
        """What a snippet marks for this term: the term, then its pairs."""
        return (self.text, *self.grams)


def _runs(token: str) -> list[str]:
    """A token split where it passes between Han and other characters."""
    runs: list[str] = []
    for char in token:
        if runs and is_cjk(runs[-1][-1]) == is_cjk(char):
            runs[-1] += char
        else:
            runs.append(char)
    return runs


def _bigrams(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for i in range(len(text) - 1):
        seen.setdefault(text[i : i + 2], None)
    return tuple(seen)


def parse_query(query: str) -> list[Term]:
    """The query's terms: normalised, split at spaces, punctuation and script changes; at most MAX_TERMS, each distinct."""
    text = normalise((query or "")[:MAX_QUERY_CHARS])
    tokens = "".join(c if _is_word_char(c) else " " for c in text).split()
    terms: dict[str, Term] = {}
    for token in tokens:
        for run in _runs(token):
            run = run[:MAX_TERM_CHARS]
            if run in terms or (not is_cjk(run[0]) and len(run) < 2):
                continue  # a lone Latin letter or digit finds everything
            if is_cjk(run[0]) and len(run) >= 3:
                grams = _bigrams(run)
                terms[run] = Term(run, grams, math.ceil(2 * len(grams) / 3))
            else:
                terms[run] = Term(run)
            if len(terms) == MAX_TERMS:
                return list(terms.values())
    return list(terms.values())


def cjk_pairs(text: str) -> list[str]:
    """The distinct pairs of consecutive Han (or kana) characters of a normalised text, sorted (never across other characters)."""
    pairs = {text[i : i + 2] for i in range(len(text) - 1) if is_cjk(text[i]) and is_cjk(text[i + 1])}
    return sorted(pairs)


def pair_document(text: str) -> str:
    """The pairs of a normalised text as space-separated words, " 共情 第一 … ": an indexable stand-in for two-character lookups.

    A trigram index cannot serve LIKE '%共情%' (two characters give no trigram), but it serves
    LIKE '% 共情 %' on this column (the spaces pad the word to trigrams), and the column holds
    the pair exactly when the text does.
    """
    pairs = cjk_pairs(text)
    return f" {' '.join(pairs)} " if pairs else ""


def term_matches(text: str, term: Term) -> bool:
    """Whether a normalised text holds the term (or, for a Han term of pairs, enough of its pairs)."""
    if term.text in text:
        return True
    return bool(term.grams) and sum(1 for g in term.grams if g in text) >= term.need


def score(title: str, text: str, terms: list[Term], *, focus: bool = False) -> float | None:
    """The score of a normalised title and text (the text includes the title), or None when a term does not match."""
    total = FOCUS_BONUS if focus else 0.0
    for term in terms:
        if not term_matches(text, term):
            return None
        total += TITLE_WEIGHT * (term.text in title) + TEXT_WEIGHT * (term.text in text)
        total += min(text.count(term.text), OCCURRENCE_CAP)
        if term.grams:
            total += GRAMS_WEIGHT * sum(1 for g in term.grams if g in text) / len(term.grams)
    return total


@dataclass(frozen=True)
class Segment:
    """A piece of a snippet: text, marked or not (templates put marked pieces in <mark>)."""

    text: str
    marked: bool = field(default=False, metadata={"help_text": "True where the query matched."})


def _marks(folded: str, terms: list[Term]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of the normalised text to mark: whole terms first, longest first, then pairs."""
    taken = [False] * len(folded)
    spans: list[tuple[int, int]] = []
    needles = sorted({n for t in terms for n in ((t.text,) if t.text in folded else t.needles())}, key=len, reverse=True)
    for needle in needles:
        for found in re.finditer(re.escape(needle), folded):
            start, end = found.span()
            if not any(taken[start:end]):
                spans.append((start, end))
                for i in range(start, end):
                    taken[i] = True
    return sorted(spans)


def highlight(text: str, terms: list[Term], *, width: int | None = None) -> list[Segment]:
    """The text (or, with `width`, a window of about that many characters around the first match) in marked segments."""
    folded, where = _normalise_with_map(text)
    spans = [(where[s], where[e - 1] + 1) for s, e in _marks(folded, terms)]
    lo, hi = 0, len(text)
    if width is not None and len(text) > width:
        first = spans[0][0] if spans else 0
        lo = max(0, min(first - width // 3, len(text) - width))
        hi = min(len(text), lo + width)
    segments: list[Segment] = [Segment("…")] if lo > 0 else []
    at = lo
    for start, end in spans:
        if end <= lo or start >= hi:
            continue
        start, end = max(start, lo), min(end, hi)
        if start > at:
            segments.append(Segment(text[at:start]))
        segments.append(Segment(text[start:end], marked=True))
        at = end
    if at < hi:
        segments.append(Segment(text[at:hi]))
    if hi < len(text):
        segments.append(Segment("…"))
    return segments


_MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKDOWN_MARKUP = re.compile(r"(^|\n)\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)|[*_`~|]+")


def plain_text(markdown: str) -> str:
    """Markdown without its markup (for snippets): links keep their text; headings, quotes, list marks, emphasis go."""
    text = _MARKDOWN_LINK.sub(r"\1", markdown or "")
    text = _MARKDOWN_MARKUP.sub(lambda m: m.group(1) or "", text)
    lines = (re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


@dataclass(frozen=True)
class Section:
    """A part of a Markdown document under one heading (the heading "" for text before the first)."""

    heading: str
    body: str


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def sections(markdown: str) -> list[Section]:
    """The document cut at its headings; a document without headings is cut at blank lines (paragraphs)."""
    lines = (markdown or "").splitlines()
    if any(_HEADING.match(line) for line in lines):
        out: list[Section] = []
        heading, body = "", list[str]()
        for line in lines:
            found = _HEADING.match(line)
            if found:
                if heading or "".join(body).strip():
                    out.append(Section(heading, "\n".join(body).strip()))
                heading, body = found.group(1), list[str]()
            else:
                body.append(line)
        if heading or "".join(body).strip():
            out.append(Section(heading, "\n".join(body).strip()))
        return out
    return [Section("", part.strip()) for part in re.split(r"\n\s*\n", markdown or "") if part.strip()]
