"""Character-level diffs for display (rubric text is Chinese: words are not space-separated).

Pure: the HTML comes escaped with `html.escape`; the Django side marks it safe where it renders it.
"""

from difflib import SequenceMatcher
from html import escape


def char_opcodes(before: str, after: str) -> list[tuple[str, str]]:
    """Return [(op, text)] with op in {'equal', 'delete', 'insert'}, character by character."""
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("equal", before[i1:i2]))
        else:
            if i2 > i1:
                out.append(("delete", before[i1:i2]))
            if j2 > j1:
                out.append(("insert", after[j1:j2]))
    return out


def char_diff_html(before: str, after: str) -> str:
    """Return escaped HTML marking deletions with <del> and insertions with <ins>."""
    parts = []
    for op, text in char_opcodes(before or "", after or ""):
        if op == "equal":
            parts.append(escape(text))
        elif op == "delete":
            parts.append(f'<del class="diff-del">{escape(text)}</del>')
        else:
            parts.append(f'<ins class="diff-ins">{escape(text)}</ins>')
    return "".join(parts)
