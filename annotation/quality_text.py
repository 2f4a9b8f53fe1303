"""The quality checks' automatic notes, written in the reader's language.

When gold accuracy pauses an expert, `annotation.services.quality` stores the reason on the
profile (`availability_reason`, a free-text field an admin may also fill in) and raises an alert
whose `message` says the same. Both are stored in English, in one fixed form, so a page reading
them shows English to a Chinese admin. `pause_reason_text` recognises that form and writes it
again from its figures through the catalogue; anything else (a person's own words) is shown as it
was written. `AUTO_PAUSE_REASON` is the single place the stored form is defined.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext

AUTO_PAUSE_PREFIX = "Paused automatically: "
AUTO_PAUSE_REASON = (
    AUTO_PAUSE_PREFIX + "accuracy on the last {checks} quality checks was {value} ({agreed} of {compared} criteria), below {threshold}."
)
_AUTO_PAUSE = re.compile(
    r"^(?:(?P<expert>.+?) was paused: |" + re.escape(AUTO_PAUSE_PREFIX) + r")accuracy on the last (?P<checks>\d+) quality checks "
    r"was (?P<value>\S+) \((?P<agreed>\d+) of (?P<compared>\d+) criteria\), below (?P<threshold>\S+)\.$"
)


def _percent(stored: str) -> str:
    return gettext("undefined") if stored == "undefined" else stored


def gold_pause_text(*, expert: str | None, checks: object, value: str, agreed: object, compared: object, threshold: str) -> str:
    """The automatic pause, with (an alert) or without (the profile's reason) the expert's name."""
    figures = {"checks": checks, "value": _percent(value), "agreed": agreed, "compared": compared, "threshold": _percent(threshold)}
    if expert is None:
        return (
            gettext(
                "Paused automatically: accuracy on the last %(checks)s quality checks was %(value)s "
                "(%(agreed)s of %(compared)s criteria), below %(threshold)s."
            )
            % figures
        )
    return gettext(
        "%(expert)s was paused: accuracy on the last %(checks)s quality checks was %(value)s "
        "(%(agreed)s of %(compared)s criteria), below %(threshold)s."
    ) % {"expert": expert, **figures}


def pause_reason_text(reason: str | None) -> str:
    """A stored availability reason (or gold-accuracy alert message) in the reader's language when the platform wrote it."""
    text = (reason or "").strip()
    match = _AUTO_PAUSE.match(text)
    if match is None:
        return text
    return gold_pause_text(**match.groupdict())
