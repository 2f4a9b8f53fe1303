"""One-time invitation links: valid until used, until the password or the account changes, or until they expire."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.utils.crypto import constant_time_compare
from django.utils.http import base36_to_int

if TYPE_CHECKING:
    from heartbench_core.models import User


class InviteTokenGenerator(PasswordResetTokenGenerator):
    """Django's password-reset tokens under their own salt and lifetime (INVITE_LINK_TIMEOUT), bound to the account being active.

    The hash covers the password hash, so setting the password (accepting) kills the link, and so
    does re-sending the invitation (a new unusable password); it covers `is_active`, so
    deactivating the invitee kills it too.
    """

    key_salt = "heartbench_core.people.tokens.InviteTokenGenerator"

    def check_token(self, user: User | None, token: str | None) -> bool:
        # Django's check reads PASSWORD_RESET_TIMEOUT; an invitation has a lifetime of its own.
        if not (user and token):
            return False
        try:
            ts_b36, _ = token.split("-")
            ts = base36_to_int(ts_b36)
        except ValueError:
            return False
        if self._num_seconds(self._now()) - ts > settings.INVITE_LINK_TIMEOUT:
            return False
        return any(
            constant_time_compare(self._make_token_with_timestamp(user, ts, secret), token)
            for secret in [self.secret, *self.secret_fallbacks]
        )

    def _make_hash_value(self, user: User, timestamp: int) -> str:
        return f"{super()._make_hash_value(user, timestamp)}{getattr(user, 'is_active', True)}"


invite_token_generator = InviteTokenGenerator()
