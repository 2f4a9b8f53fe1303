"""API tokens: issue one (shown once), revoke it, and recognise it on a request; only a digest is ever stored.

A token is `hb_` and 43 random URL-safe characters (256 bits). Being random and long, it needs
no slow hash: its SHA-256 is stored, looked up by equality, and a stolen database yields no
usable token. The first `PREFIX_CHARS` characters are kept in clear so people can tell their
tokens apart in lists; they give away 42 of the 256 bits.

A token lives `API_TOKEN_DAYS` (90) unless its creator chooses between 1 and `API_TOKEN_MAX_DAYS`
(365) days; it authenticates nobody once expired or revoked. When it was last used is written at
most once per `LAST_USED_EVERY` (an hour), so authenticating costs no write on most requests.
The page, the API and the `issue_token` command call these functions (docs/api.md).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from heartbench_core.models import ApiToken
from heartbench_core.roles import Role, has_role

if TYPE_CHECKING:
    from heartbench_core.models import User

TOKEN_PREFIX = "hb_"
PREFIX_CHARS = len(TOKEN_PREFIX) + 7
NAME_MAX_CHARS = 100
LAST_USED_EVERY = timedelta(hours=1)


@dataclass(frozen=True)
class IssuedToken:
    """A token just issued: its row, and the token itself, which is shown now and never again."""

    token: ApiToken
    text: str


def digest_of(text: str) -> str:
    """The stored form of a token: its SHA-256, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def lifetime_days(days: int | None) -> int:
    """The lifetime a new token gets: `days`, or API_TOKEN_DAYS; outside 1…API_TOKEN_MAX_DAYS a ValidationError naming `days`."""
    if days is None:
        return int(settings.API_TOKEN_DAYS)
    most = int(settings.API_TOKEN_MAX_DAYS)
    if not 1 <= days <= most:
        raise ValidationError({"days": _("A token lives between 1 and %(most)d days.") % {"most": most}})
    return days


def issue_token(*, user: User, name: str, days: int | None = None, by: User | None = None) -> IssuedToken:
    """Create a token for the user, living `days` (default API_TOKEN_DAYS); the text is returned once and only its digest kept."""
    name = (name or "").strip()
    errors: dict[str, str] = {}
    if not user.is_active:
        errors["username"] = _("user %(username)r is inactive") % {"username": user.get_username()}
    if not name:
        errors["name"] = _("Give the token a name saying what it is for (e.g. the pipeline using it).")
    elif len(name) > NAME_MAX_CHARS:
        errors["name"] = _("A token's name has at most %(most)d characters.") % {"most": NAME_MAX_CHARS}
    try:
        lifetime = lifetime_days(days)
    except ValidationError as exc:
        errors.update({field: messages[0] for field, messages in exc.message_dict.items()})
    if errors:
        raise ValidationError(errors)
    text = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=user,
            name=name,
            prefix=text[:PREFIX_CHARS],
            digest=digest_of(text),
            created_at=now,
            created_by=by,
            expires_at=now + timedelta(days=lifetime),
        )
    return IssuedToken(token=token, text=text)


def revoke_token(*, token: ApiToken, by: User) -> bool:
    """Revoke the token (its owner or an admin may); False when it was already revoked. The row stays, saying when and by whom."""
    if token.user_id != by.pk and not has_role(by, Role.ADMIN):
        raise PermissionDenied(_("Only its owner or an admin may revoke a token."))
    with transaction.atomic():
        changed = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now(), revoked_by=by)
    token.refresh_from_db(fields=["revoked_at", "revoked_by"])
    return bool(changed)


def revoke_tokens_of(*, user: User, by: User | None) -> int:
    """Revoke every token of the user that still works (their account is deactivated); how many were."""
    now = timezone.now()
    with transaction.atomic():
        return ApiToken.objects.filter(user=user).usable(now).update(revoked_at=now, revoked_by=by)


class TokenRefused(Exception):
    """The token authenticates nobody; the message says why, for the caller."""


def authenticate(text: str, *, now: datetime | None = None) -> ApiToken:
    """The token with this text, its user loaded, noting its use; TokenRefused when unknown, revoked, expired or its user inactive."""
    now = now or timezone.now()
    token = ApiToken.objects.select_related("user").filter(digest=digest_of(text)).first()
    if token is None:
        raise TokenRefused(_("Invalid token."))
    if token.revoked_at is not None:
        raise TokenRefused(_("This token was revoked on %(when)s.") % {"when": utc_text(token.revoked_at)})
    if token.expires_at <= now:
        raise TokenRefused(_("This token expired on %(when)s; ask an admin for a new one.") % {"when": utc_text(token.expires_at)})
    if not token.user.is_active:
        raise TokenRefused(_("User inactive or deleted."))
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def utc_text(moment: datetime) -> str:
    """A moment as people read it in any language: 2026-03-01 12:00 UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
