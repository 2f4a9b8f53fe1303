from django import template
from django.utils.safestring import SafeString, mark_safe

from heartbench_core.lib.taxonomy import english_name
from heartbench_core.lib.textdiff import char_diff_html

register = template.Library()


@register.simple_tag
def chardiff(before: object, after: object) -> SafeString:
    """{% chardiff old new %}: character-level diff as HTML (escaped by char_diff_html, so safe to mark)."""
    return mark_safe(char_diff_html(str(before or ""), str(after or "")))


@register.filter
def ability_name(label: str) -> str:
    """English name of an ability label."""
    return english_name(label)


@register.filter
def signed(value: int | None) -> str:
    """+3 / -3 / — for a weight."""
    if value is None:
        return "—"
    return f"+{value}" if value > 0 else str(value)


@register.filter
def pct(value: float | None, digits: int | str = 1) -> str:
    """0.873 → 87.3% (— when undefined)."""
    if value is None:
        return "—"
    return f"{value * 100:.{int(digits)}f}%"
