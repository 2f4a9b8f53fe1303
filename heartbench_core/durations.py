"""Durations as people read them, in the reader's language.

`str(timedelta)` reads "1 day, 0:00:00" and Django's `timesince` puts a space between a number and
its Chinese unit ("27 分钟"); neither is how a Chinese (or an English) reader writes a duration.
`duration_text` gives "1 day" / "2 hours 30 minutes" in English and "1天" / "2小时30分钟" in
Chinese: the two largest non-zero units, each unit a catalogue entry whose Chinese has no space,
the parts joined by a catalogue entry too. `ago_text` is the same duration, counted up to now,
followed by "ago" (前).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import ngettext, pgettext

_UNITS: tuple[tuple[int, str], ...] = (
    (86400, "day"),
    (3600, "hour"),
    (60, "minute"),
    (1, "second"),
)


def _unit(name: str, n: int) -> str:
    if name == "day":
        return ngettext("%(num)d day", "%(num)d days", n) % {"num": n}
    if name == "hour":
        return ngettext("%(num)d hour", "%(num)d hours", n) % {"num": n}
    if name == "minute":
        return ngettext("%(num)d minute", "%(num)d minutes", n) % {"num": n}
    return ngettext("%(num)d second", "%(num)d seconds", n) % {"num": n}


def duration_text(value: timedelta | float | int | None, depth: int = 2) -> str:
    """A duration (a timedelta or seconds) in its `depth` largest units: "1 day", "2 hours 30 minutes", "1天", "2小时30分钟"; "—" when None."""
    if value is None or value == "":
        return "—"
    seconds = abs(int(value.total_seconds() if isinstance(value, timedelta) else float(value)))
    counts = []
    for size, name in _UNITS:
        n, seconds = divmod(seconds, size)
        counts.append((name, n))
    first = next((i for i, (_, n) in enumerate(counts) if n), len(counts) - 1)
    parts = [_unit(*counts[first])]
    for name, n in counts[first + 1 : first + depth]:  # adjacent units only, as a person rounds: "1 day", not "1 day 5 seconds"
        if not n:
            break
        parts.append(_unit(name, n))
    text = parts[0]
    for part in parts[1:]:
        text = pgettext("two parts of a duration, largest first", "%(first)s %(second)s") % {"first": text, "second": part}
    return text


def ago_text(moment: datetime | None, now: datetime | None = None) -> str:
    """How long ago a moment was, to the minute: "27 minutes ago" / "27分钟前"; "just now" within a minute."""
    if moment is None:
        return "—"
    elapsed = (now or timezone.now()) - moment
    if elapsed < timedelta(minutes=1):
        return pgettext("a moment in the past", "just now")
    minutes = timedelta(minutes=int(elapsed.total_seconds() // 60))
    return pgettext("a moment in the past", "%(duration)s ago") % {"duration": duration_text(minutes)}
