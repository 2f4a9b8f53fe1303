"""Find English interface text on a page meant to be in Chinese.

What a reader sees is the page's text nodes and its title, aria-label, placeholder and alt
attributes (and the caption of an input button). Of that, what is not interface text is left out
on principle, not by a list of pages:

- an element marked `translate="no"` (the HTML attribute that tells browsers' translators the
  same thing) or `data-i18n-skip`, and everything inside it: templates put it on elements that
  show dataset or user content (dialogue, criteria, answers, names);
- an element whose `lang` says it is in another language on purpose (the language switcher's
  "English");
- `<script>`, `<style>`, `<code>`, `<pre>`, `<kbd>`, `<samp>`, `<textarea>` (code, keys, drafts);
- the world's own data, wherever it shows (names of users, models, datasets, campaigns, runs…):
  the test passes those strings in;
- tokens that are codes rather than words: anything with a digit, `_`, `/`, `@`, `=` or `.` in
  it, URLs, file names, JSON, and single letters;
- the proper nouns and abbreviations of the field (`ALLOWED_WORDS`).

What remains is a run of English words: a string some template or Python code shows without
`{% translate %}`/`gettext`, or one whose catalogue entry is still missing.

Some untranslated text has no English word in it, or only words the rules above leave out, so
`raw_values_on_page` looks for those shapes on their own (`RAW_VALUE_SHAPES`): a Python timedelta
("1 day, 0:00:00", "2:00:00"), a stored change shown as "field: before → after" (the field name
inside `<code>` or not), a code with an underscore shown as text (a role, a field, a choice's value),
and a space between a Chinese duration and 前 ("27 分钟 前").
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Names and abbreviations that stay as they are in a Chinese page.
ALLOWED_WORDS = frozenset(
    w.lower()
    for w in [
        "HeartBench",
        "ln",  # the natural logarithm in the scoring formula
        "API",
        "APIs",
        "CSV",
        "JSON",
        "JSONL",
        "LLM",
        "LLMs",
        "AI",
        "Markdown",
        "English",  # a language's own name (the language choices)
        "κ",
        "AC1",
        "Cohen",
        "Cohen's",
        "Gwet",
        "Gwet's",
        "Krippendorff",
        "Krippendorff's",
        "McNemar",
        "Kendall",
        "Kendall's",
        "Fleiss",
        "Wilson",  # the Wilson score interval
        "Benjamini",  # the Benjamini–Yekutieli procedure
        "Yekutieli",
        "OpenAPI",
        "OpenAI",  # "OpenAI-compatible" endpoints: the protocol's name
        "Swagger",
        "ReDoc",
        "ID",
        "IDs",
        "URL",
        "URLs",
        "UTC",
        "HTTP",
        "HTTPS",
        "PostgreSQL",
        "SQLite",
        "Redis",
        "Django",
        "htmx",
        "Bearer",
        "Token",
        "CI",
        "Ctrl",
        "Cmd",
        "Enter",
        "Esc",
        "Escape",
        "Tab",
        "Shift",
        "Alt",
        "ASCII",
        "UTF",
        "NaN",
        "n/a",
        "vs",
    ]
)

_SKIP_TAGS = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea", "math"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"})
_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")

_URL = re.compile(r"(?:https?://|www\.)\S+|(?<!\w)/[\w\-./?=&%#:]+")
_JSON = re.compile(r"[{\[][^{}\[\]]*[:,][^{}\[\]]*[}\]]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]")
_CODE_CHARS = re.compile(r"[0-9_/@=.\\<>#$%^&*|~`]")


class _VisibleText(HTMLParser):
    """Collects the visible text of a page, leaving out what is marked as data or code."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.texts: list[str] = []

    @property
    def skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        lang = (values.get("lang") or "").lower()
        skip = (
            self.skipping
            or tag in _SKIP_TAGS
            or (values.get("translate") or "").lower() == "no"
            or "data-i18n-skip" in values
            or (bool(lang) and not lang.startswith("zh"))
        )
        if not skip:
            for name in _ATTRIBUTES:
                if values.get(name):
                    self.texts.append(values[name] or "")
            if tag == "input" and (values.get("type") or "").lower() in ("submit", "button", "reset") and values.get("value"):
                self.texts.append(values["value"] or "")
        if tag not in _VOID:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        # Unclosed <p>, <li>, <td>… close with their parent: pop up to the matching tag, if any.
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not self.skipping and data.strip():
            self.texts.append(data)


def visible_texts(html: str) -> list[str]:
    """The strings a reader sees on a page (text nodes and the attributes read out), data and code left out."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return [" ".join(t.split()) for t in parser.texts]


def english_runs(text: str, data: tuple[str, ...] = ()) -> list[str]:
    """The runs of English words in one string, after the world's data, URLs, JSON and codes are taken out."""
    for value in data:
        if value and value in text:
            # Whole words only: a stored code such as "tie" is not taken out of "Yekutieli".
            text = re.sub(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", " ", text)
    text = _JSON.sub(" ", _URL.sub(" ", text))
    runs: list[str] = []
    current: list[str] = []
    for token in re.split(r"(\s+)", text):
        if not token or token.isspace():
            continue
        words = _WORD.findall(token)
        english = [w for w in words if len(w) > 1 and w.lower().strip("'’") not in ALLOWED_WORDS]
        if english and not _CODE_CHARS.search(token.strip(".,;:!?()[]\"'“”…")):
            current.extend(english)
            continue
        if words and not english:
            continue  # an allowed name between words does not break the run
        if current:
            runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    return runs


def english_on_page(html: str, data: tuple[str, ...] = ()) -> list[str]:
    """Every run of English interface text on a page, each once, in page order."""
    found: dict[str, None] = {}
    for text in visible_texts(html):
        for run in english_runs(text, data):
            found.setdefault(run, None)
    return list(found)


# Shapes of a stored value shown as it is stored; each a name and a pattern over the page's visible text.
_IDENTIFIER = r"[a-z]+(?:[_.][a-z]+)*"
RAW_VALUE_SHAPES: dict[str, re.Pattern[str]] = {
    # in one text node
    "a timedelta": re.compile(r"\b\d+ days?, \d{1,2}:\d\d:\d\d\b|^\d{1,2}:\d\d:\d\d(?:\.\d+)?$"),
    "a code shown as text": re.compile(r"(?<![\w./@-])[a-z]+(?:_[a-z]+)+(?![\w./@-])"),
    # in one block (a cell, a line, a paragraph), `<code>` included
    "a raw change": re.compile(rf"^{_IDENTIFIER} ?: \S|(?:^|[\s(]){_IDENTIFIER} ?: [^:→]{{0,80}}? → "),
    "a space before 前": re.compile(r"[\u4e00-\u9fff] 前"),
}
_IN_A_NODE = ("a timedelta", "a code shown as text")
_BLOCKS = frozenset({"div", "p", "li", "td", "th", "tr", "h1", "h2", "h3", "h4", "section", "ul", "ol", "table", "dd", "dt", "br", "label"})


class _Blocks(_VisibleText):
    """The visible text block by block, `<code>` kept: a field name in `<code>` still makes a raw change."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self.texts.append("\n")
        super().handle_starttag("span" if tag == "code" else tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self.texts.append("\n")
        super().handle_endtag("span" if tag == "code" else tag)


def _without(text: str, data: tuple[str, ...]) -> str:
    for value in data:
        if value and value in text:
            # Whole words only: a stored code such as "tie" is not taken out of "Yekutieli".
            text = re.sub(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", " ", text)
    return text


def raw_values_on_page(html: str, data: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Every (shape, text) of a stored value shown as it is stored, each once, in page order; the world's data left out."""
    parser = _Blocks()
    parser.feed(html)
    parser.close()
    blocks = [" ".join(b.split()) for b in "".join(t if t == "\n" else f" {t} " for t in parser.texts).split("\n")]
    nodes = visible_texts(html)
    found: dict[tuple[str, str], None] = {}
    for name, pattern in RAW_VALUE_SHAPES.items():
        for text in nodes if name in _IN_A_NODE else blocks:
            for match in pattern.finditer(_without(text, data).strip()):
                found.setdefault((name, match.group(0).strip()), None)
    return list(found)
