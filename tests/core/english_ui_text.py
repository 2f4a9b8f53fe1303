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
            text = text.replace(value, " ")
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
