"""Whether the platform's e-mail reaches anyone: it does unless EMAIL_URL is unset, "none" or console://."""

from __future__ import annotations

from django.conf import settings

from heartbench_core.env import CONSOLE_BACKEND, NO_MAIL_BACKEND


def mail_is_delivered() -> bool:
    """True when sent messages leave the server; False when they are dropped (none) or only printed (console://)."""
    return settings.EMAIL_BACKEND not in {NO_MAIL_BACKEND, CONSOLE_BACKEND}
