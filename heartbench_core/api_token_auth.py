"""Token authentication for the API against the stored digests (heartbench_core.services.api_tokens).

DRF reads `Authorization: Token <token>`; an unknown, revoked or expired token, or one whose
user is inactive, answers 401 saying which (see `SessionAuthenticationBeforeParsing.authenticate_header`).
DRF imports this while loading its settings, before the apps are ready: the models are imported
when a token is checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

if TYPE_CHECKING:
    from heartbench_core.models import ApiToken, User


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's token authentication (same header, same schema), looking the token up by its SHA-256."""

    def authenticate_credentials(self, key: str) -> tuple[User, ApiToken]:
        from heartbench_core.services.api_tokens import TokenRefused, authenticate

        try:
            token = authenticate(key)
        except TokenRefused as refused:
            raise exceptions.AuthenticationFailed(str(refused)) from None
        return token.user, token
