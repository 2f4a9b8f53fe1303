from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import pgettext_lazy

from heartbench_core import taxonomy_display
from heartbench_core.durations import ago_text, duration_text
from heartbench_core.lib.textdiff import char_diff_html
from heartbench_core.people.labels import ROLE_LABELS
from heartbench_core.roles import Role
from heartbench_core.stat_reasons import reason_text

_FIGURE = "a figure of an agreement report"
# The report-wide figures by their stored names (heartbench_core.lib.agreement_report.ReportResult.figures).
FIGURE_NAMES = {
    "item_agreement_rate": pgettext_lazy(_FIGURE, "Item agreement rate"),
    "item_agreement_ci95": pgettext_lazy(_FIGURE, "95% CI of the item agreement rate"),
    "cohen_kappa": pgettext_lazy(_FIGURE, "Cohen's κ"),
    "gwet_ac1": pgettext_lazy(_FIGURE, "Gwet's AC1"),
    "judge_hit_rate": pgettext_lazy(_FIGURE, "Judge hit rate"),
    "human_hit_rate": pgettext_lazy(_FIGURE, "Expert hit rate"),
    "mcnemar_p": pgettext_lazy(_FIGURE, "McNemar exact p"),
    "krippendorff_alpha": pgettext_lazy(_FIGURE, "Krippendorff's α"),
    "fleiss_kappa": pgettext_lazy(_FIGURE, "Fleiss' κ"),
    "pairwise_percent_agreement": pgettext_lazy(_FIGURE, "Pairwise percent agreement"),
    "judge": pgettext_lazy(_FIGURE, "Judge"),
}

register = template.Library()


@register.simple_tag
def chardiff(before: object, after: object) -> SafeString:
    """{% chardiff old new %}: character-level diff as HTML (escaped by char_diff_html, so safe to mark)."""
    return mark_safe(char_diff_html(str(before or ""), str(after or "")))


@register.filter
def ability(label: str) -> str:
    """{{ c.ability|ability }}: `温暖` in Chinese, `温暖 · Warmth` in English (heartbench_core.taxonomy_display)."""
    return taxonomy_display.ability_display(label or "")


# Templates written before the display helper call it by this name; it reads the same everywhere.
register.filter("ability_name", ability)


@register.filter
def ability_english(label: str) -> str:
    """The English name to show beside a Chinese ability label: empty when the page is in Chinese."""
    return taxonomy_display.ability_english(label or "")


@register.filter
def dimension(name: str) -> str:
    """A dimension's name in the reader's language; empty stays empty (so `|default:` still works)."""
    return taxonomy_display.dimension_display(name) if name else ""


@register.filter
def difficulty(code: str) -> str:
    """An item's difficulty in the reader's language; empty is a dash."""
    return taxonomy_display.difficulty_display(code or "")


@register.filter
def breakdown_group(key: str, kind: str) -> str:
    """{{ row.key|breakdown_group:"dimension" }}: the group a breakdown row stands for, kind first."""
    return taxonomy_display.group_display(kind, str(key))


@register.filter
def signed(value: int | None) -> str:
    """+3 / -3 / — for a weight."""
    if value is None:
        return "—"
    return f"+{value}" if value > 0 else str(value)


@register.filter
def signed_float(value: float | None, digits: int | str = 3) -> str:
    """+0.052 / -0.031 / 0.000 for a change (— when undefined)."""
    if value is None:
        return "—"
    text = f"{value:+.{int(digits)}f}"
    return text[1:] if float(text) == 0 else text


@register.filter
def pct(value: float | None, digits: int | str = 1) -> str:
    """0.873 → 87.3% (— when undefined)."""
    if value is None:
        return "—"
    return f"{value * 100:.{int(digits)}f}%"


@register.filter
def reason(text: str | None) -> str:
    """{{ figure.reason|reason }}: why a statistic is undefined (or a gate fails), in the reader's language."""
    return reason_text(text)


@register.filter
def marked(segments: object) -> SafeString:
    """{{ hit.snippet|marked }}: a search snippet's segments as escaped text, the matched ones in <mark>."""
    from django.utils.html import conditional_escape

    parts = []
    for segment in segments or ():  # type: ignore[attr-defined]
        text = conditional_escape(segment.text)
        parts.append(f"<mark>{text}</mark>" if segment.marked else str(text))
    return mark_safe("".join(parts))  # every piece escaped above


@register.filter
def duration(value: object) -> str:
    """{{ campaign.reservation_timeout|duration }}: "2 hours" / "2小时", never "2:00:00" (heartbench_core.durations)."""
    return duration_text(value)  # type: ignore[arg-type]


@register.filter
def ago(moment: object) -> str:
    """{{ a.last_seen_at|ago }}: "27 minutes ago" / "27分钟前"."""
    return ago_text(moment)  # type: ignore[arg-type]


@register.filter
def role_label(code: str) -> str:
    """A role's name in the reader's language ("rubric_author" → 评分标准作者); an unknown code stays as it is."""
    try:
        return str(ROLE_LABELS[Role(code)])
    except ValueError:
        return code


@register.filter
def figure_name(key: str) -> str:
    """A report figure's name in the reader's language ("cohen_kappa" → Cohen's κ); an unknown key stays as it is."""
    return str(FIGURE_NAMES.get(key, key))
