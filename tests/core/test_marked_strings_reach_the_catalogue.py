"""Every string the platform's Python code marks for translation is in the zh-Hans catalogue.

The catalogue is built by `makemessages`, whose extractor does not look inside f-string
expressions: `f"{_('hit')}"` is marked in the code and never reaches the catalogue, so it shows
in English on a Chinese page. This reads the code's syntax tree instead, so a mark the extractor
misses, or a `makemessages` not run after a change, fails here naming the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

from tests.core.test_translation_catalogue_is_complete import LOCALE, read_po

APPS = ("annotation", "heartbench_core", "rubrics", "validation")
# name → (index of the context argument or None, index of the message argument)
MARKERS = {
    "_": (None, 0),
    "gettext": (None, 0),
    "gettext_lazy": (None, 0),
    "gettext_noop": (None, 0),
    "ngettext": (None, 0),
    "ngettext_lazy": (None, 0),
    "pgettext": (0, 1),
    "pgettext_lazy": (0, 1),
    "npgettext": (0, 1),
    "npgettext_lazy": (0, 1),
}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def marked_strings() -> tuple[list[tuple[str, int, str | None, str]], list[tuple[str, int]]]:
    """(file, line, context, message) of each literal marked in the apps, and (file, line) of each mark inside an f-string."""
    marked: list[tuple[str, int, str | None, str]] = []
    in_fstrings: list[tuple[str, int]] = []
    base = Path(settings.BASE_DIR)
    for app in APPS:
        for path in sorted((base / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            where = str(path.relative_to(base))
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    for inner in ast.walk(node):
                        literal = isinstance(inner, ast.Call) and any(
                            isinstance(a, ast.Constant) and isinstance(a.value, str) for a in inner.args
                        )
                        if literal and _name(inner.func) in MARKERS:  # type: ignore[union-attr]
                            in_fstrings.append((where, inner.lineno))
                if not (isinstance(node, ast.Call) and _name(node.func) in MARKERS):
                    continue
                context_at, message_at = MARKERS[_name(node.func)]
                args = node.args
                if len(args) <= message_at or not (isinstance(args[message_at], ast.Constant) and isinstance(args[message_at].value, str)):
                    continue  # a variable: its literal is marked where it is written (gettext_noop)
                context = None
                if context_at is not None:
                    if not (isinstance(args[context_at], ast.Constant) and isinstance(args[context_at].value, str)):
                        continue
                    context = args[context_at].value
                marked.append((where, node.lineno, context, args[message_at].value))
    return marked, in_fstrings


def test_no_string_is_marked_inside_an_f_string():
    _marked, in_fstrings = marked_strings()
    assert not in_fstrings, "gettext inside an f-string never reaches the catalogue; assign it to a name first:\n" + "\n".join(
        f"  {f}:{line}" for f, line in in_fstrings
    )


def test_every_marked_string_is_in_the_catalogue():
    marked, _in_fstrings = marked_strings()
    assert len(marked) > 500, "the scan found too few marked strings to be reading the code"
    known = {(e.context, e.msgid) for e in read_po(LOCALE / "django.po") if not e.obsolete}
    missing = sorted({(f, line, ctx, msg) for f, line, ctx, msg in marked if (ctx, msg) not in known})
    assert not missing, (
        f"{len(missing)} marked strings are not in locale/zh_Hans/LC_MESSAGES/django.po (run makemessages, then translate):\n"
        + "\n".join(f"  {f}:{line} {ctx + ' | ' if ctx else ''}{msg[:80]!r}" for f, line, ctx, msg in missing[:60])
    )
