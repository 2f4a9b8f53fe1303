"""Character-level diffs for display (rubric text is Chinese: words are not space-separated)."""

from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


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


def char_diff_html(before: str, after: str) -> SafeString:
    """Return HTML marking deletions with <del> and insertions with <ins>."""
    parts = []
    for op, text in char_opcodes(before or "", after or ""):
        if op == "equal":
            parts.append(escape(text))
        elif op == "delete":
            parts.append(f'<del class="diff-del">{escape(text)}</del>')
        else:
            parts.append(f'<ins class="diff-ins">{escape(text)}</ins>')
    return mark_safe("".join(parts))
