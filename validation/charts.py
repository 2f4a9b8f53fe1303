"""Server-rendered inline SVG charts of an agreement report (no JavaScript, no CDN).

They read the typed report (`heartbench_core.lib.agreement_report`); every label is escaped, and the
functions return safe markup for templates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from html import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from heartbench_core.lib.agreement_report import Confusion, ExpertRow, Figure, GroupRow, Interval, ItemAgreement, TimePoint
from heartbench_core.stat_reasons import reason_text
from heartbench_core.taxonomy_display import group_value_display

WIDTH = 560
BAR_H = 18
GAP = 6
LEFT = 190
RIGHT = 70


def _x(value: float, lo: float, hi: float, width: float) -> float:
    return LEFT + (min(max(value, lo), hi) - lo) / (hi - lo) * width


def _opened(title: str, width: int, height: int, *, shown_width: str = "100%", kind: str = "vc-chart") -> list[str]:
    """A chart's SVG element opened, with its title for screen readers and tooltips."""
    label = escape(title)
    return [
        f'<svg class="{kind}" role="img" viewBox="0 0 {width} {height}" width="{shown_width}" aria-label="{label}">',
        f"<title>{label}</title>",
    ]


@dataclass(frozen=True)
class Bar:
    """One bar of `interval_bars`: a label, a figure (its value and n, or why it is undefined) and an optional interval."""

    label: str
    figure: Figure
    interval: Interval | None = None


def agreement_bars(rows: Sequence[GroupRow], kind: str) -> list[Bar]:
    """Judge–gold agreement of each breakdown row (groups of `kind`, named in the reader's language), with its interval."""
    return [Bar(group_value_display(kind, r.key), r.item_agreement.rate, r.item_agreement.ci95) for r in rows]


def alpha_bars(rows: Sequence[GroupRow], kind: str) -> list[Bar]:
    """Krippendorff's alpha among the experts of each breakdown row (n: units rated by two or more)."""
    return [Bar(group_value_display(kind, r.key), r.krippendorff_alpha) for r in rows]


def expert_bars(rows: Sequence[ExpertRow]) -> list[Bar]:
    """Each expert's agreement with the golden standard (n: compared judgments)."""
    return [Bar(r.expert, r.gold_agreement) for r in rows]


def interval_bars(bars: Sequence[Bar], *, title: str, lo: float = 0.0, hi: float = 1.0, reference: float | None = None) -> SafeString:
    """Horizontal bars with optional interval whiskers and a reference line; one bar per group that compared anything."""
    bars = [b for b in bars if b.figure.n]
    width = WIDTH - LEFT - RIGHT
    height = 24 + len(bars) * (BAR_H + GAP) + 20
    parts = _opened(title, WIDTH, height)
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        t = lo + (hi - lo) * tick
        x = _x(t, lo, hi, width)
        parts.append(f'<line x1="{x:.1f}" y1="16" x2="{x:.1f}" y2="{height - 18}" class="vc-grid"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 4}" class="vc-tick" text-anchor="middle">{t:.2f}</text>')
    for i, bar in enumerate(bars):
        y = 20 + i * (BAR_H + GAP)
        v, n = bar.figure.value, bar.figure.n
        label = escape(bar.label[:40])
        parts.append(f'<text x="{LEFT - 6}" y="{y + BAR_H - 5}" text-anchor="end" class="vc-label">{label}</text>')
        if v is None:
            undefined = escape(_("undefined (n=%(n)s)") % {"n": n})
            parts.append(
                f'<text x="{LEFT + 4}" y="{y + BAR_H - 5}" class="vc-na">{undefined}<title>{escape(reason_text(bar.figure.reason))}</title></text>'
            )
            continue
        x0, x1 = _x(max(lo, min(0.0, hi)) if lo < 0 else lo, lo, hi, width), _x(v, lo, hi, width)
        parts.append(
            f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{abs(x1 - x0):.1f}" height="{BAR_H}" class="vc-bar">'
            f"<title>{label}: {v:.3f} (n={n})</title></rect>"
        )
        interval = bar.interval
        if interval is not None and interval.low is not None and interval.high is not None:
            a, b = _x(interval.low, lo, hi, width), _x(interval.high, lo, hi, width)
            mid = y + BAR_H / 2
            parts.append(f'<line x1="{a:.1f}" y1="{mid}" x2="{b:.1f}" y2="{mid}" class="vc-whisker"/>')
            parts.append(f'<line x1="{a:.1f}" y1="{mid - 5}" x2="{a:.1f}" y2="{mid + 5}" class="vc-whisker"/>')
            parts.append(f'<line x1="{b:.1f}" y1="{mid - 5}" x2="{b:.1f}" y2="{mid + 5}" class="vc-whisker"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 4}" y="{y + BAR_H - 5}" class="vc-value">{v:.2f} n={n}</text>')
    if reference is not None:
        x = _x(reference, lo, hi, width)
        parts.append(
            f'<line x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{height - 18}" class="vc-reference"><title>{reference:.2f}</title></line>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def confusion_matrix(confusion: Confusion) -> SafeString:
    """The 2×2 table of judge verdicts against golden labels, shaded by share."""
    counts = asdict(confusion)
    total = sum(counts.values()) or 1
    judge_hit, judge_miss = escape(_("judge hit")), escape(_("judge miss"))
    gold_hit, gold_miss = escape(_("gold hit")), escape(_("gold miss"))
    cells = [
        ("tp", judge_hit, gold_hit),
        ("fp", judge_hit, gold_miss),
        ("fn", judge_miss, gold_hit),
        ("tn", judge_miss, gold_miss),
    ]
    parts = _opened(_("Confusion matrix"), 320, 230, shown_width="320")
    # gettext calls stay out of f-strings: the catalogue's extractor does not look inside them.
    gold, judge = escape(_("golden standard")), escape(pgettext("the LLM judge", "judge"))
    hit, miss = escape(pgettext("verdict", "hit")), escape(pgettext("verdict", "miss"))
    # Columns: the golden standard's hit / miss; rows: the judge's, its name turned along the rows (short in any language).
    parts.append(f'<text x="198" y="14" text-anchor="middle" class="vc-label">{gold}</text>')
    parts.append(
        f'<text x="148" y="34" text-anchor="middle" class="vc-label">{hit}</text>'
        f'<text x="248" y="34" text-anchor="middle" class="vc-label">{miss}</text>'
    )
    parts.append(f'<text x="0" y="0" transform="translate(22 128) rotate(-90)" text-anchor="middle" class="vc-label">{judge}</text>')
    parts.append(
        f'<text x="92" y="88" text-anchor="end" class="vc-label">{hit}</text>'
        f'<text x="92" y="178" text-anchor="end" class="vc-label">{miss}</text>'
    )
    for i, (key, j, g) in enumerate(cells):
        x, y = 100 + (i % 2) * 100, 40 + (i // 2) * 90
        share = counts[key] / total
        kind = "agree" if key in ("tp", "tn") else "disagree"
        parts.append(
            f'<rect x="{x}" y="{y}" width="96" height="86" class="vc-cell vc-{kind}" opacity="{0.25 + 0.75 * share:.2f}">'
            f"<title>{j}, {g}: {counts[key]}</title></rect>"
        )
        parts.append(f'<text x="{x + 48}" y="{y + 42}" text-anchor="middle" class="vc-big">{counts[key]}</text>')
        parts.append(f'<text x="{x + 48}" y="{y + 62}" text-anchor="middle" class="vc-tick">{share:.0%}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def line_over_time(points: Sequence[TimePoint], *, title: str) -> SafeString:
    """Agreement as judgments arrived, one point per day."""
    width, height, left, bottom = WIDTH, 200, 50, 30
    pts = [(p, p.item_agreement_rate.value) for p in points if p.item_agreement_rate.value is not None]
    parts = _opened(title, width, height)
    if not pts:
        none_yet = escape(_("no point with a defined value yet"))
        parts.append(f'<text x="{left}" y="40" class="vc-na">{none_yet}</text></svg>')
        return mark_safe("".join(parts))
    inner_w, inner_h = width - left - 20, height - bottom - 20
    for tick in (0, 0.5, 1.0):
        y = 20 + inner_h * (1 - tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 20}" y2="{y:.1f}" class="vc-grid"/><text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="vc-tick">{tick:.1f}</text>'
        )
    n = len(pts)
    coords = []
    for i, (p, value) in enumerate(pts):
        x = left + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)
        y = 20 + inner_h * (1 - value)
        coords.append((x, y, p, value))
    if n > 1:
        parts.append('<polyline class="vc-line" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y, _p, _v in coords) + '"/>')
    for x, y, p, value in coords:
        tip = _("%(date)s: %(value).3f (%(pairs)s pairs, %(judgments)s judgments)") % {
            "date": p.date,
            "value": value,
            "pairs": p.item_agreement_rate.n,
            "judgments": p.judgments,
        }
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="vc-dot"><title>{escape(tip)}</title></circle>')
    parts.append(f'<text x="{left}" y="{height - 6}" class="vc-tick">{escape(pts[0][0].date)}</text>')
    parts.append(f'<text x="{width - 20}" y="{height - 6}" text-anchor="end" class="vc-tick">{escape(pts[-1][0].date)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def trend(points: Sequence[tuple[str, ItemAgreement]], *, title: str, reference: float | None = None) -> SafeString:
    """Agreement of successive judge versions, in the order they were made: a line through the points, each with its 95% CI.

    The x axis numbers the versions (#1, #2, … as the table beside it does); each point's tooltip names its version.
    """
    width, left, bottom, top = WIDTH, 50, 30, 16
    height = 200
    inner_w, inner_h = width - left - 30, height - bottom - top
    parts = _opened(title, width, height, kind="vc-chart vc-trend")
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + inner_h * (1 - tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 30}" y2="{y:.1f}" class="vc-grid"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="vc-tick">{tick:.2f}</text>'
        )
    n = len(points)
    coords = []
    for i, (label, agreement) in enumerate(points):
        x = left + (inner_w * (i + 0.5) / n if n else 0)
        parts.append(
            f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle" class="vc-tick">#{i + 1}<title>{escape(label)}</title></text>'
        )
        value = agreement.rate.value
        if value is None:
            undefined = escape(_("undefined"))
            why = escape(reason_text(agreement.rate.reason))
            parts.append(
                f'<text x="{x:.1f}" y="{top + inner_h / 2:.1f}" text-anchor="middle" class="vc-na">{undefined}<title>{why}</title></text>'
            )
            continue
        y = top + inner_h * (1 - value)
        ci = agreement.ci95
        if ci.low is not None and ci.high is not None:
            y0, y1 = top + inner_h * (1 - ci.low), top + inner_h * (1 - ci.high)
            parts.append(f'<line x1="{x:.1f}" y1="{y0:.1f}" x2="{x:.1f}" y2="{y1:.1f}" class="vc-whisker"/>')
            parts.append(f'<line x1="{x - 5:.1f}" y1="{y0:.1f}" x2="{x + 5:.1f}" y2="{y0:.1f}" class="vc-whisker"/>')
            parts.append(f'<line x1="{x - 5:.1f}" y1="{y1:.1f}" x2="{x + 5:.1f}" y2="{y1:.1f}" class="vc-whisker"/>')
        tip = _("%(label)s: %(value).3f (%(pairs)s pairs)") % {"label": label, "value": value, "pairs": agreement.rate.n}
        coords.append((x, y))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" class="vc-dot"><title>{escape(tip)}</title></circle>')
    if len(coords) > 1:
        parts.insert(2, '<polyline class="vc-line" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in coords) + '"/>')
    if reference is not None:
        y = top + inner_h * (1 - reference)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 30}" y2="{y:.1f}" class="vc-reference"><title>{reference:.2f}</title></line>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))
