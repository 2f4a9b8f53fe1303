"""The request the pages receive: Django's, plus what the project's middleware adds to it."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request past django-htmx's middleware: `request.htmx` is truthy for an htmx request.

    For type hints only: views annotate their request with it; Django still passes its own class.
    """

    htmx: HtmxDetails
