"""Session authentication for the API that checks CSRF without parsing the body with the view's parsers."""

from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request


class SessionAuthenticationBeforeParsing(SessionAuthentication):
    """DRF's session authentication, with the CSRF check made on Django's request.

    DRF's own check reads `request.POST` of DRF's request, which parses the body with the
    view's parsers: a signed-in user without the role posting the wrong content type to an
    import endpoint got 415 instead of 403, learning about the endpoint before being refused.
    Django's request reads only a form body for the token (else the X-CSRFToken header) and
    leaves the body to DRF once the permission check has passed.
    """

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request._request)  # type: ignore[arg-type]  # DRF checks CSRF on any request with COOKIES and POST; the stubs ask for its own
        except MultiPartParserError as exc:
            raise exceptions.ParseError(_("Multipart form parse error - %(error)s") % {"error": exc}) from None


class SessionAuthenticationBeforeParsingScheme(SessionScheme):
    """The schema describes it as DRF's session authentication (a cookie)."""

    target_class = "heartbench_core.api_session.SessionAuthenticationBeforeParsing"
