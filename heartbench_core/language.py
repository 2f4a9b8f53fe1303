"""Each reader's language: the browser's Accept-Language until they choose, then their choice.

LocaleMiddleware reads the language cookie or Accept-Language. For a signed-in user with a
stored choice (`User.language`), `UserLanguageMiddleware` activates that choice instead, on
every device. The header's switcher posts to `set_language`, which stores the choice on the
user and then lets Django's view set the cookie and redirect back.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from heartbench_core.middleware import Middleware
from heartbench_core.models import User


def supported(code: str) -> bool:
    """Whether `code` is one of settings.LANGUAGES (blank is not: it means "follow the browser")."""
    return code in {language for language, _name in settings.LANGUAGES}


def store_language(*, user: User, language: str) -> None:
    """Remember the user's language; blank returns them to the browser's choice."""
    if language and not supported(language):
        return
    if user.language != language:
        user.language = language
        user.save(update_fields=["language"])


def command_line_language(environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks: `HEARTBENCH_LANGUAGE` when set, else the shell's locale as gettext reads it.

    gettext's order is LANGUAGE, LC_ALL, LC_MESSAGES, LANG; the first one set decides. Any
    Chinese locale (zh_CN.UTF-8, zh_SG, zh-Hans…) speaks zh-hans, the interface's only Chinese;
    anything else, and an unset or C/POSIX locale, speaks the project's default (English).
    """
    env = os.environ if environ is None else environ
    chosen = (env.get("HEARTBENCH_LANGUAGE") or "").strip().lower()
    if chosen:
        return chosen if supported(chosen) else settings.LANGUAGE_CODE
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = (env.get(name) or "").strip()
        if value:
            first = value.split(":")[0].lower()  # LANGUAGE may list several: the first is preferred
            return "zh-hans" if first.startswith("zh") and supported("zh-hans") else settings.LANGUAGE_CODE
    return settings.LANGUAGE_CODE


class UserLanguageMiddleware(Middleware):
    """After LocaleMiddleware and AuthenticationMiddleware: a signed-in user's stored language wins."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language = getattr(user, "language", "")
            if language and supported(language):
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language (cookie and redirect), storing the choice on a signed-in user first."""
    user = request.user
    if isinstance(user, User) and user.is_authenticated:
        store_language(user=user, language=request.POST.get("language", ""))
    return django_set_language(request)
