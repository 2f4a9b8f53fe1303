"""Strict parsers for settings read from the environment.

Each raises ImproperlyConfigured naming the variable and the offending value, so that a
typo in a deployment fails at start-up instead of silently falling back to a default.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured, ValidationError

if TYPE_CHECKING:
    from dj_database_url import DBConfig

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    """Return the variable as text, or the default when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a boolean (1/0, true/false, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no or on/off.")


def env_int(name: str, default: int) -> int:
    """Return the variable as a non-negative integer."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if value < 0:
        raise ImproperlyConfigured(f"{name}={raw!r} must not be negative.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """Return a comma-separated variable as a list of non-empty items."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [part.strip() for part in raw.split(",") if part.strip()]


def env_url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    """Return the variable as a URL with one of the given schemes ('' when unset)."""
    raw = os.environ.get(name, default).strip()
    if not raw:
        return ""
    parsed = urlparse(raw)
    if parsed.scheme not in schemes:
        raise ImproperlyConfigured(f"{name}={raw!r} has scheme {parsed.scheme!r}; expected one of {', '.join(schemes)}.")
    return raw


def env_database(name: str, default: str) -> DBConfig:
    """Return a Django DATABASES entry parsed from a database URL."""
    import dj_database_url

    raw = os.environ.get(name, "").strip() or default
    scheme = urlparse(raw).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"{name}={raw!r}: unsupported database scheme {scheme!r}; use sqlite:///PATH or postgres://...")
    try:
        config = dj_database_url.parse(raw, conn_max_age=0 if scheme == "sqlite" else 60)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a valid database URL: {exc}") from None
    if config["ENGINE"] == "django.db.backends.sqlite3":
        path = config.get("NAME") or ""
        if path and path != ":memory:":
            from pathlib import Path

            Path(path).parent.mkdir(parents=True, exist_ok=True)
    elif not config.get("NAME"):
        raise ImproperlyConfigured(f"{name}={raw!r} names no database.")
    return config


def env_email(name: str, default: str) -> str:
    """Return the variable as an e-mail address, bare or with a display name ("HeartBench <noreply@example.org>")."""
    from email.utils import parseaddr

    from django.core.validators import validate_email

    raw = os.environ.get(name, default).strip()
    try:
        validate_email(parseaddr(raw)[1])
    except ValidationError:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not an e-mail address (e.g. noreply@example.org or 'HeartBench <noreply@example.org>')."
        ) from None
    return raw


SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
CONSOLE_BACKEND = "django.core.mail.backends.console.EmailBackend"
NO_MAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"
# Read before EMAIL_URL existed: a deployment still setting one would otherwise lose its mail without a word.
REPLACED_MAIL_VARIABLES = (
    "EMAIL_BACKEND",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
)
_MAIL_EXAMPLE = "smtp://USER:PASSWORD@HOST:587?tls=1, smtp+ssl://USER:PASSWORD@HOST, console:// or none"


@dataclass(frozen=True)
class MailSettings:
    """Django's EMAIL_* connection settings, read from one URL."""

    backend: str
    host: str = ""
    port: int = 25
    user: str = ""
    password: str = field(default="", repr=False)
    use_tls: bool = False
    use_ssl: bool = False
    timeout: int = 30


def env_mail(name: str) -> MailSettings:
    """Return the mail settings of a URL: smtp://[USER:PASSWORD@]HOST[:PORT][?tls=1&timeout=S], smtp+tls://, smtp+ssl://, console:// or none.

    Unset, empty or "none" sends nothing. Errors show the URL with its password starred out.
    """
    replaced = [variable for variable in REPLACED_MAIL_VARIABLES if variable in os.environ]
    if replaced:
        raise ImproperlyConfigured(f"{replaced[0]} is no longer read: set {name} instead ({_MAIL_EXAMPLE}).")
    raw = os.environ.get(name, "").strip()
    if raw.lower() in {"", "none"}:
        return MailSettings(backend=NO_MAIL_BACKEND)
    shown, parsed = _password_starred(raw), urlparse(raw)
    scheme = parsed.scheme.lower()
    if scheme == "console" and not (parsed.netloc or parsed.path.strip("/") or parsed.query):
        return MailSettings(backend=CONSOLE_BACKEND)
    if scheme not in {"smtp", "smtp+tls", "smtp+ssl"}:
        raise ImproperlyConfigured(f"{name}={shown!r} is not a mail URL; use {_MAIL_EXAMPLE}.")
    try:
        port = parsed.port
    except ValueError:
        raise ImproperlyConfigured(f"{name}={shown!r}: the port is not a number from 1 to 65535.") from None
    if not parsed.hostname:
        raise ImproperlyConfigured(f"{name}={shown!r} names no mail server.")
    options = {key: values[-1] for key, values in parse_qs(parsed.query, keep_blank_values=True).items()}
    unknown = sorted(set(options) - {"tls", "timeout"})
    if unknown:
        raise ImproperlyConfigured(f"{name}={shown!r}: unknown option {unknown[0]!r}; the options are tls and timeout.")
    tls = scheme == "smtp+tls" or _mail_flag(name, shown, options.get("tls", "0"))
    ssl = scheme == "smtp+ssl"
    if tls and ssl:
        raise ImproperlyConfigured(f"{name}={shown!r}: smtp+ssl:// and tls=1 exclude each other; choose one.")
    timeout = options.get("timeout", "30")
    if not timeout.isdigit() or int(timeout) == 0:
        raise ImproperlyConfigured(f"{name}={shown!r}: timeout={timeout!r} is not a number of seconds.")
    return MailSettings(
        backend=SMTP_BACKEND,
        host=parsed.hostname,
        port=port or (465 if ssl else 587 if tls else 25),
        user=unquote(parsed.username or ""),
        password=unquote(parsed.password or ""),
        use_tls=tls,
        use_ssl=ssl,
        timeout=int(timeout),
    )


def _mail_flag(name: str, shown: str, value: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={shown!r}: tls={value!r} is not a boolean; use 1 or 0.")


def _password_starred(url: str) -> str:
    """The URL with the password of its user part starred out (everything before the last @ is the user part)."""
    head, at, host_part = url.rpartition("@")
    scheme, separator, user_part = head.partition("://") if "://" in head else ("", "", head)
    if not (at and ":" in user_part):
        return url
    return f"{scheme}{separator}{user_part.split(':', 1)[0]}:***@{host_part}"


# The platform's own secrets: no endpoint may name one as its key variable, whatever the operator's rule says.
PLATFORM_SECRETS = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "EMAIL_URL", "EMAIL_HOST_PASSWORD")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_key_prefix(name: str, default: str) -> str:
    """Return the prefix every endpoint key variable must start with (never one that covers a platform secret)."""
    raw = os.environ.get(name, default).strip()
    if not _ENV_NAME.match(raw):
        raise ImproperlyConfigured(f"{name}={raw!r} must start a variable's name: letters, digits and underscores, e.g. HEARTBENCH_KEY_.")
    covered = [secret for secret in PLATFORM_SECRETS if secret.startswith(raw)]
    if covered:
        raise ImproperlyConfigured(f"{name}={raw!r} would let an endpoint send the platform's {covered[0]}; choose a narrower prefix.")
    return raw


def env_key_variables(name: str) -> list[str]:
    """Return the comma-separated extra variable names an endpoint may name for its key (never a platform secret)."""
    names = env_list(name, [])
    for variable in names:
        if not _ENV_NAME.match(variable):
            raise ImproperlyConfigured(f"{name}: {variable!r} is not an environment variable's name.")
        if variable in PLATFORM_SECRETS:
            raise ImproperlyConfigured(f"{name}: {variable} is the platform's own secret; an endpoint may never send it.")
    return names


def env_allowed_hosts(name: str) -> list[str]:
    """Return the comma-separated host names, IP addresses and networks (CIDR) endpoints may reach beyond public addresses."""
    from heartbench_core.lib.addresses import AllowedHosts

    entries = env_list(name, [])
    try:
        AllowedHosts.parse(entries)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: {exc}.") from None
    return entries
