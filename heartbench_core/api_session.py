"""Session authentication for the API that checks CSRF without parsing the body with the view's parsers.

It comes first among the API's authentication classes, so it also decides how a refused
authentication is answered: 401 with `WWW-Authenticate: Token` when the request presented
credentials (a wrong, expired or revoked token: the body says which), 403 otherwise (a visitor
who is not signed in is refused like one without the role).
"""

from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request

from heartbench_core.api_token_auth import HashedTokenAuthentication


class SessionAuthenticationBeforeParsing(SessionAuthentication):
    """DRF's session authentication, with the CSRF check made on Django's request.

    DRF's own check reads `request.POST` of DRF's request, which parses the body with the
    view's parsers: a signed-in user without the role posting the wrong content type to an
    import endpoint got 415 instead of 403, learning about the endpoint before being refused.
    Django's request reads only a form body for the token (else the X-CSRFToken header) and
    leaves the body to DRF once the permission check has passed.
    """

    def authenticate_header(self, request: Request) -> str | None:
        if request.META.get("HTTP_AUTHORIZATION"):
            return HashedTokenAuthentication.keyword
        return None

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request._request)  # type: ignore[arg-type]  # DRF checks CSRF on any request with COOKIES and POST; the stubs ask for its own
        except MultiPartParserError as exc:
            raise exceptions.ParseError(_("Multipart form parse error - %(error)s") % {"error": exc}) from None


class SessionAuthenticationBeforeParsingScheme(SessionScheme):
    """The schema describes it as DRF's session authentication (a cookie)."""

    target_class = "heartbench_core.api_session.SessionAuthenticationBeforeParsing"
