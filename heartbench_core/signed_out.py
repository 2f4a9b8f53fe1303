"""What a request to a signed-in page gets once its session has ended, so that nothing posted is lost.

- A script's request (htmx, sent with `HX-Request`; or one asking for JSON, or under `/api/`)
  answers 401 with the reason and the sign-in address: a redirect would be followed by the
  browser's XMLHttpRequest, and the login page taken for the answer (an autosave once showed the
  login form in the save indicator and dropped the browser's copy as if it had been saved).
- A person's plain form post to a view that keeps posted text (`role_required(...,
  keep_post_for=<page>)`) is stashed in the visitor's session, keyed by the page it returns to;
  `django.contrib.auth.login` keeps an anonymous session's data when someone signs in, and the
  app that owns the page restores it then (`register_restorer`), only for the user it belongs to.
  The sign-in page then returns to that page.
- Anything else goes to the sign-in page and back, as before.

A request sent with an `Authorization` header is a script too. Views that serve files a pipeline
fetches (every export) also take an API token there, as the API does (`sign_in_with_token`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.contrib.auth.views import redirect_to_login
from django.dispatch import receiver
from django.http import HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render, resolve_url
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext

if TYPE_CHECKING:
    from django.http import HttpRequest

    from heartbench_core.models import User

# Session key of the posts kept over a sign-in: {page path: {"url_name", "kwargs", "target", "fields", "at"}}.
STASH_KEY = "hb-posted-while-signed-out"
# An anonymous visitor can only fill their own session, but it stays bounded: the latest few pages.
MAX_STASHED_PAGES = 5

# What restores a stashed post into the app that owns its page: (request, user who signed in, the
# page's URL kwargs, the posted fields). Registered by the app (its AppConfig.ready).
Restorer = Callable[["HttpRequest", "User", dict[str, Any], QueryDict], None]
_restorers: dict[str, Restorer] = {}


def register_restorer(url_name: str, restorer: Restorer) -> None:
    """Have `restorer` take back, at sign-in, what was posted while signed out to views returning to `url_name`."""
    _restorers[url_name] = restorer


def wants_a_status(request: HttpRequest) -> bool:
    """Whether the caller is a script that must get a status code, never a redirect to the login page."""
    if request.headers.get("HX-Request") == "true" or request.path.startswith("/api/") or "Authorization" in request.headers:
        return True
    return "application/json" in request.headers.get("Accept", "")


def answer_signed_out(request: HttpRequest, *, keep_post_for: str | None = None, view_kwargs: dict[str, Any] | None = None) -> HttpResponse:
    """The answer to an anonymous request for a signed-in page (see the module's docstring)."""
    if wants_a_status(request):
        return _unauthorized(request)
    if keep_post_for is not None and request.method == "POST":
        page = reverse(keep_post_for, kwargs=view_kwargs or {})
        _stash(request, page=page, url_name=keep_post_for, kwargs=view_kwargs or {})
        return redirect_to_login(page)
    return redirect_to_login(request.get_full_path())


def is_api_client(request: HttpRequest) -> bool:
    """Whether the caller sent credentials or asked for JSON: its refusals are JSON, never a page."""
    return "Authorization" in request.headers or "application/json" in request.headers.get("Accept", "")


def refused_as_json(message: str, *, status: int, headers: dict[str, str] | None = None) -> JsonResponse:
    """A refusal an API client reads: `{"detail": ...}` with its status, as the API answers."""
    response = JsonResponse({"detail": message}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def sign_in_with_token(request: HttpRequest) -> HttpResponse | None:
    """Sign the request in, for itself only, with its `Authorization: Token <token>`; the refusal (401/429 JSON), else None.

    The API's own token authentication checks it: hashed tokens, expiry, revocation, inactive
    users, and the lockout of an address that sent too many wrong tokens.
    """
    from rest_framework import exceptions
    from rest_framework.request import Request

    from heartbench_core.throttling import ThrottledTokenAuthentication

    authentication = ThrottledTokenAuthentication()
    try:
        found = authentication.authenticate(Request(request))
    except exceptions.Throttled as exc:
        return refused_as_json(str(exc.detail), status=429, headers={"Retry-After": str(int(getattr(exc, "wait", 0) or 0))})
    except exceptions.AuthenticationFailed as exc:
        return refused_as_json(str(exc.detail), status=401, headers={"WWW-Authenticate": authentication.keyword})
    if found is None:
        message = gettext("Send an API token as “Authorization: Token <token>”.")
        return refused_as_json(message, status=401, headers={"WWW-Authenticate": authentication.keyword})
    request.user = found[0]
    return None


def sign_in_url(next_path: str) -> str:
    """The sign-in page, returning to `next_path` afterwards."""
    query = QueryDict(mutable=True)
    query["next"] = next_path
    return f"{resolve_url(settings.LOGIN_URL)}?{query.urlencode(safe='/')}"  # as redirect_to_login writes it


def _unauthorized(request: HttpRequest) -> HttpResponse:
    login_url = sign_in_url(_page_of(request))
    message = gettext("You are signed out: sign in to continue. Nothing you wrote is lost.")
    response: HttpResponse
    if request.headers.get("HX-Request") == "true":
        response = render(request, "partials/signed_out.html", {"message": message, "login_url": login_url}, status=401)
    else:
        response = JsonResponse({"detail": message, "login_url": login_url}, status=401)
    # A scheme no browser answers with a password dialog; the page's script acts on the status.
    response["WWW-Authenticate"] = 'Session realm="HeartBench"'
    return response


def _page_of(request: HttpRequest) -> str:
    """The page the caller is on (htmx names it), else the address asked for: where signing in returns to."""
    current = request.headers.get("HX-Current-URL", "")
    if current and url_has_allowed_host_and_scheme(current, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        parts = urlsplit(current)
        return parts.path + (f"?{parts.query}" if parts.query else "")
    return request.get_full_path()


def _stash(request: HttpRequest, *, page: str, url_name: str, kwargs: dict[str, Any]) -> None:
    fields = {key: request.POST.getlist(key) for key in request.POST if key != "csrfmiddlewaretoken"}
    stash = dict(request.session.get(STASH_KEY) or {})
    stash.pop(page, None)  # the latest post of a page holds the latest text
    stash[page] = {"url_name": url_name, "kwargs": kwargs, "target": request.path, "fields": fields, "at": timezone.now().isoformat()}
    request.session[STASH_KEY] = dict(list(stash.items())[-MAX_STASHED_PAGES:])


def _posted(fields: dict[str, list[str]]) -> QueryDict:
    data = QueryDict(mutable=True)
    for key, values in fields.items():
        data.setlist(str(key), [str(v) for v in values])
    return data


@receiver(user_logged_in, dispatch_uid="hb_restore_posted_while_signed_out")
def _restore_at_sign_in(sender: object, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    """Hand each post kept over the sign-in to the app that owns its page; drop what no app claims."""
    if request is None or not hasattr(request, "session"):
        return
    stash = request.session.pop(STASH_KEY, None)
    if not isinstance(stash, dict):
        return
    for entry in stash.values():
        restorer = _restorers.get(entry.get("url_name", "")) if isinstance(entry, dict) else None
        if restorer is not None and isinstance(entry.get("kwargs"), dict) and isinstance(entry.get("fields"), dict):
            restorer(request, user, entry["kwargs"], _posted(entry["fields"]))
