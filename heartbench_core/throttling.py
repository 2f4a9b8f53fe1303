"""Throttling against guessing: login lockout for passwords, a per-address limit for API tokens, per-user API rates.

Failed logins are counted in the cache (Redis in production, so every gunicorn worker sees
the same counts) under two keys: username + client address, and client address alone. Past
the limit, the authentication backend refuses even a correct password until the window ends,
so the lockout covers the login page, the Django admin login and any other caller of
`django.contrib.auth.authenticate`. A wrong API token counts against the client address the
same way. See docs/operations.md for why this is hand-written rather than django-axes.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.throttling import UserRateThrottle

from heartbench_core.api_token_auth import HashedTokenAuthentication

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse
    from rest_framework.request import Request
    from rest_framework.views import APIView

    from heartbench_core.models import ApiToken, User

# Set by the token authentication on the request, read by the rate throttle: (cache key, request history).
_HISTORY_ATTRIBUTE = "hb_throttle_history"


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def client_address(request: HttpRequest | None) -> str:
    """The client's address as the web server saw it (never a client-supplied header)."""
    if request is None:
        return "-"
    return request.META.get("REMOTE_ADDR") or "-"


def _key(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return f"hb:throttle:{kind}:{digest}"


def _login_keys(request: HttpRequest | None, username: str | None) -> list[tuple[str, int]]:
    address = client_address(request)
    keys = [(_key("ip", address), _limit("LOGIN_FAILURES_PER_ADDRESS", 50))]
    if username:
        keys.append((_key("user", username.strip().lower(), address), _limit("LOGIN_FAILURES_PER_USER", 5)))
    return keys


def login_locked(request: HttpRequest | None, username: str | None) -> bool:
    """True when this username or this client address failed too often within the window."""
    return any((cache.get(key) or 0) >= limit for key, limit in _login_keys(request, username))


def record_login_failure(request: HttpRequest | None, username: str | None) -> None:
    """Count one failed login for the username and the client address."""
    window = _limit("LOGIN_LOCKOUT_SECONDS", 900)
    for key, _allowed in _login_keys(request, username):
        if cache.add(key, 1, timeout=window):
            continue
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)


def clear_login_failures(request: HttpRequest | None, username: str | None) -> None:
    """Forget the username's failures from this address after a successful login."""
    for key, _allowed in _login_keys(request, username)[1:]:
        cache.delete(key)


class ThrottledModelBackend(ModelBackend):
    """ModelBackend that refuses to check passwords for a locked-out username or address."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if login_locked(request, username):
            # PermissionDenied stops django.contrib.auth.authenticate from trying other backends.
            raise PermissionDenied("too many failed logins")
        return super().authenticate(request, username=username, password=password, **kwargs)


@receiver(user_login_failed, dispatch_uid="hb_record_login_failure")
def _on_login_failed(sender: object, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any) -> None:
    username = credentials.get("username") or credentials.get(get_user_model().USERNAME_FIELD)
    record_login_failure(request, username)


@receiver(user_logged_in, dispatch_uid="hb_clear_login_failures")
def _on_logged_in(sender: object, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    clear_login_failures(request, user.get_username())


class ThrottledAuthenticationForm(AuthenticationForm):
    """The login form, with a distinct message while the username or address is locked out."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": _("Too many failed login attempts. Try again in %(minutes)d minutes."),
    }

    throttled = False  # set when the username or address is locked out

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if login_locked(self.request, username):
            self.throttled = True
            raise ValidationError(
                self.error_messages["throttled"],
                code="throttled",
                params={"minutes": max(1, _limit("LOGIN_LOCKOUT_SECONDS", 900) // 60)},
            )
        return super().clean()


class ThrottledLoginView(LoginView):
    """Django's login view with the throttled form; a locked-out attempt answers 429."""

    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "throttled", False):
            response.status_code = 429
        return response


class ThrottledTokenAuthentication(HashedTokenAuthentication):
    """Token authentication; a client address that sent too many wrong (or expired, or revoked) tokens gets 429.

    With a valid token, the address's failure count and the user's request history (for
    `PrefetchedUserRateThrottle`) are read in one cache round trip, so an authenticated API
    request costs two in all (this read and the throttle's write) instead of three.
    """

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return super().authenticate(request)
        key = _key("token", client_address(request))
        limit = _limit("TOKEN_FAILURES_PER_ADDRESS", 20)
        lockout = _limit("LOGIN_LOCKOUT_SECONDS", 900)
        try:
            result = super().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            if (cache.get(key) or 0) >= limit:
                raise exceptions.Throttled(wait=lockout) from exc
            if not cache.add(key, 1, timeout=lockout):
                try:
                    cache.incr(key)
                except ValueError:
                    cache.set(key, 1, timeout=lockout)
            raise
        history_key = PrefetchedUserRateThrottle.key_for(result[0]) if result else None
        found = cache.get_many([key, history_key] if history_key else [key])
        # A locked-out address is refused even with a correct token.
        if (found.get(key) or 0) >= limit:
            raise exceptions.Throttled(wait=lockout)
        if history_key:
            setattr(request, _HISTORY_ATTRIBUTE, (history_key, found.get(history_key, [])))
        return result


class PrefetchedUserRateThrottle(UserRateThrottle):
    """DRF's per-user rate throttle, reusing the history the token authentication already read."""

    # Set by SimpleRateThrottle.__init__ from the rate (the stubs leave them out).
    num_requests: int
    duration: int

    @classmethod
    def key_for(cls, user: User) -> str:
        """The cache key of a user's request history (as UserRateThrottle names it)."""
        return cls.cache_format % {"scope": cls.scope, "ident": user.pk}

    def allow_request(self, request: Request, view: APIView) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        prefetched = getattr(request, _HISTORY_ATTRIBUTE, None)
        if prefetched is not None and prefetched[0] == self.key:
            self.history = list(prefetched[1])
        else:
            self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) >= self.num_requests:
            return self.throttle_failure()
        return self.throttle_success()
