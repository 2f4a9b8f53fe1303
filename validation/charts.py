"""Server-rendered inline SVG charts of an agreement report (no JavaScript, no CDN).

Every label is escaped; the functions return safe markup for templates.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

WIDTH = 560
BAR_H = 18
GAP = 6
LEFT = 190
RIGHT = 70


def _x(value: float, lo: float, hi: float, width: float) -> float:
    return LEFT + (min(max(value, lo), hi) - lo) / (hi - lo) * width


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.0%}"


def interval_bars(rows: list[dict], *, value: str, ci: str | None = None, title: str, lo: float = 0.0, hi: float = 1.0, reference: float | None = None, count: str = "pairs") -> SafeString:
    """Horizontal bars with optional interval whiskers and a reference line; one row per group."""
    rows = [r for r in rows if r.get(count)]
    width = WIDTH - LEFT - RIGHT
    height = 24 + len(rows) * (BAR_H + GAP) + 20
    parts = [
        f'<svg class="vc-chart" role="img" viewBox="0 0 {WIDTH} {height}" width="100%" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        t = lo + (hi - lo) * tick
        x = _x(t, lo, hi, width)
        parts.append(f'<line x1="{x:.1f}" y1="16" x2="{x:.1f}" y2="{height - 18}" class="vc-grid"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 4}" class="vc-tick" text-anchor="middle">{t:.2f}</text>')
    for i, r in enumerate(rows):
        y = 20 + i * (BAR_H + GAP)
        v = r.get(value)
        label = escape(str(r.get("label") or r.get("expert") or r.get("key", ""))[:40])
        parts.append(f'<text x="{LEFT - 6}" y="{y + BAR_H - 5}" text-anchor="end" class="vc-label">{label}</text>')
        if v is None:
            parts.append(f'<text x="{LEFT + 4}" y="{y + BAR_H - 5}" class="vc-na">undefined (n={r.get(count)})</text>')
            continue
        x0, x1 = _x(max(lo, min(0.0, hi)) if lo < 0 else lo, lo, hi, width), _x(v, lo, hi, width)
        parts.append(
            f'<rect x="{min(x0, x1):.1f}" y="{y}" width="{abs(x1 - x0):.1f}" height="{BAR_H}" class="vc-bar">'
            f"<title>{label}: {v:.3f} (n={r.get(count)})</title></rect>"
        )
        interval = r.get(ci) if ci else None
        if interval:
            a, b = _x(interval[0], lo, hi, width), _x(interval[1], lo, hi, width)
            mid = y + BAR_H / 2
            parts.append(f'<line x1="{a:.1f}" y1="{mid}" x2="{b:.1f}" y2="{mid}" class="vc-whisker"/>')
            parts.append(f'<line x1="{a:.1f}" y1="{mid - 5}" x2="{a:.1f}" y2="{mid + 5}" class="vc-whisker"/>')
            parts.append(f'<line x1="{b:.1f}" y1="{mid - 5}" x2="{b:.1f}" y2="{mid + 5}" class="vc-whisker"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 4}" y="{y + BAR_H - 5}" class="vc-value">{v:.2f} n={r.get(count)}</text>')
    if reference is not None:
        x = _x(reference, lo, hi, width)
        parts.append(f'<line x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{height - 18}" class="vc-reference"><title>{reference:.2f}</title></line>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def confusion_matrix(confusion: dict) -> SafeString:
    """The 2×2 table of judge verdicts against golden labels, shaded by share."""
    total = sum(confusion.values()) or 1
    cells = [("tp", "judge hit", "gold hit"), ("fp", "judge hit", "gold miss"), ("fn", "judge miss", "gold hit"), ("tn", "judge miss", "gold miss")]
    parts = ['<svg class="vc-chart" role="img" viewBox="0 0 320 230" width="320" aria-label="Confusion matrix">', "<title>Confusion matrix</title>"]
    parts.append('<text x="190" y="14" text-anchor="middle" class="vc-label">golden standard</text>')
    parts.append('<text x="150" y="34" text-anchor="middle" class="vc-label">hit</text><text x="250" y="34" text-anchor="middle" class="vc-label">miss</text>')
    parts.append('<text x="60" y="95" text-anchor="end" class="vc-label">judge hit</text><text x="60" y="185" text-anchor="end" class="vc-label">judge miss</text>')
    for i, (key, j, g) in enumerate(cells):
        x, y = 100 + (i % 2) * 100, 40 + (i // 2) * 90
        share = confusion.get(key, 0) / total
        kind = "agree" if key in ("tp", "tn") else "disagree"
        parts.append(
            f'<rect x="{x}" y="{y}" width="96" height="86" class="vc-cell vc-{kind}" opacity="{0.25 + 0.75 * share:.2f}">'
            f"<title>{j}, {g}: {confusion.get(key, 0)}</title></rect>"
        )
        parts.append(f'<text x="{x + 48}" y="{y + 42}" text-anchor="middle" class="vc-big">{confusion.get(key, 0)}</text>')
        parts.append(f'<text x="{x + 48}" y="{y + 62}" text-anchor="middle" class="vc-tick">{key} · {share:.0%}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))


def line_over_time(points: list[dict], *, value: str = "item_agreement_rate", title: str) -> SafeString:
    """Agreement as judgments arrived, one point per day."""
    width, height, left, bottom = WIDTH, 200, 50, 30
    pts = [p for p in points if p.get(value) is not None]
    parts = [f'<svg class="vc-chart" role="img" viewBox="0 0 {width} {height}" width="100%" aria-label="{escape(title)}">', f"<title>{escape(title)}</title>"]
    if not pts:
        parts.append(f'<text x="{left}" y="40" class="vc-na">no point with a defined value yet</text></svg>')
        return mark_safe("".join(parts))
    inner_w, inner_h = width - left - 20, height - bottom - 20
    for tick in (0, 0.5, 1.0):
        y = 20 + inner_h * (1 - tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 20}" y2="{y:.1f}" class="vc-grid"/><text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" class="vc-tick">{tick:.1f}</text>')
    n = len(pts)
    coords = []
    for i, p in enumerate(pts):
        x = left + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)
        y = 20 + inner_h * (1 - p[value])
        coords.append((x, y, p))
    if n > 1:
        parts.append('<polyline class="vc-line" points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in coords) + '"/>')
    for x, y, p in coords:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="vc-dot"><title>{escape(p["date"])}: {p[value]:.3f} ({p["pairs"]} pairs, {p["judgments"]} judgments)</title></circle>')
    parts.append(f'<text x="{left}" y="{height - 6}" class="vc-tick">{escape(pts[0]["date"])}</text>')
    parts.append(f'<text x="{width - 20}" y="{height - 6}" text-anchor="end" class="vc-tick">{escape(pts[-1]["date"])}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
