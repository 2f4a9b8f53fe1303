"""What an endpoint may make the server do: which environment variable it may have sent as its key, and where it may connect.

An endpoint is configured by an admin, but what it names acts with the server's own authority:

- **Key variables.** The worker sends the value of the variable an endpoint names (`api_key_env`) to
  the endpoint as `Authorization: Bearer …`. Only the variables the operator designated may be
  named: those starting with `ENDPOINT_KEY_PREFIX` (default `HEARTBENCH_KEY_`) or listed in
  `ENDPOINT_KEY_VARIABLES`; the platform's own secrets (`SECRET_KEY`, `DATABASE_URL`…) never.
- **Addresses.** A base URL is http or https, without a user name or password, and its host resolves
  only to public addresses (`heartbench_core/lib/addresses.py`), unless the operator allows the host
  name, address or network in `ENDPOINT_ALLOWED_HOSTS` (a self-hosted model, the tests' fake server).

Both rules are checked when an endpoint is saved (`services/endpoints.py`) and again at each request
(`services/llm.py`, which connects to the very addresses `allowed_addresses` checked), so an endpoint
stored before the rules, or restored from a backup, cannot break them either. A refusal is an
`EndpointRefused`: a code and its parameters, said in the reader's language by `text()`.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from heartbench_core.env import PLATFORM_SECRETS
from heartbench_core.lib.addresses import AllowedHosts, parse_address

if TYPE_CHECKING:
    from heartbench_core.judging.models import Endpoint

KEY_NOT_ALLOWED = "key_variable_not_allowed"  # variable, prefix
BAD_URL = "bad_url"  # url: not http(s), or no host
URL_CREDENTIALS = "url_credentials"  # a user name or password in the URL
ADDRESS_NOT_ALLOWED = "address_not_allowed"  # host
DEFAULT_PORTS = {"http": 80, "https": 443}


class EndpointRefused(Exception):
    """Why an endpoint may not be used as configured: a code (see the constants above) and its parameters."""

    def __init__(self, code: str, params: dict[str, str] | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.params = params or {}

    def __str__(self) -> str:
        return f"{self.code}: {self.params}"

    def text(self) -> str:
        """The refusal in the reader's language, naming the rule and the setting that states it."""
        texts = {
            KEY_NOT_ALLOWED: _(
                "%(variable)s may not hold an endpoint's key: the variable's name must start with %(prefix)s "
                "(ENDPOINT_KEY_PREFIX) or be listed in ENDPOINT_KEY_VARIABLES, so that no endpoint is sent another of the server's secrets"
            ),
            BAD_URL: _("must be an http:// or https:// address"),
            URL_CREDENTIALS: _(
                "must not contain a user name or password: put the key in an environment variable and name it as the API key variable"
            ),
            ADDRESS_NOT_ALLOWED: _(
                "%(host)s is not a public address (or cannot be resolved): endpoints may reach only public addresses, "
                "unless the operator allows the host in ENDPOINT_ALLOWED_HOSTS"
            ),
        }
        return texts[self.code] % self.params


@dataclass(frozen=True)
class Target:
    """Where a base URL leads: its scheme, host (lower case, no brackets) and port."""

    scheme: str
    host: str
    port: int


def allowed_hosts() -> AllowedHosts:
    """The operator's allowance (`ENDPOINT_ALLOWED_HOSTS`)."""
    return AllowedHosts.parse(list(settings.ENDPOINT_ALLOWED_HOSTS))


def key_variable_allowed(name: str) -> bool:
    """True when an endpoint may name this environment variable for its key."""
    if name in PLATFORM_SECRETS:
        return False
    prefix = str(settings.ENDPOINT_KEY_PREFIX)
    return (bool(prefix) and name.startswith(prefix) and len(name) > len(prefix)) or name in settings.ENDPOINT_KEY_VARIABLES


def check_key_variable(name: str) -> None:
    """EndpointRefused naming the rule when an endpoint may not name this variable for its key."""
    if name and not key_variable_allowed(name):
        raise EndpointRefused(KEY_NOT_ALLOWED, {"variable": name, "prefix": str(settings.ENDPOINT_KEY_PREFIX)})


def parse_target(url: str) -> Target:
    """Where the URL leads, without resolving it; EndpointRefused when it is not http(s), names no host or carries credentials."""
    try:
        parts = urlsplit(url)
        scheme, host, port = parts.scheme.lower(), parts.hostname or "", parts.port
    except ValueError:
        raise EndpointRefused(BAD_URL, {"url": url}) from None
    if scheme not in DEFAULT_PORTS or not host:
        raise EndpointRefused(BAD_URL, {"url": url})
    if "@" in parts.netloc:
        raise EndpointRefused(URL_CREDENTIALS)
    return Target(scheme, host.rstrip(".") if parse_address(host) is None else host, port or DEFAULT_PORTS[scheme])


def resolve(host: str, port: int) -> list[str]:
    """Every address the host resolves to (the system's resolver); OSError when it resolves to none."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def allowed_addresses(host: str, port: int) -> list[str]:
    """The addresses to connect to for this host, resolved once and each checked.

    EndpointRefused when any of them is not allowed (one bad answer among good ones is enough: the
    connection may go to any); OSError when the host does not resolve.
    """
    allowance = allowed_hosts()
    addresses = resolve(host, port)
    if not addresses:
        raise OSError(f"{host} resolves to no address")
    if allowance.allows_name(host):
        return addresses
    for text in addresses:
        address = parse_address(text)
        if address is None or not allowance.allows_address(address):
            raise EndpointRefused(ADDRESS_NOT_ALLOWED, {"host": host})
    return addresses


def check_base_url(url: str) -> Target:
    """Where the URL leads, when an endpoint may use it (its host resolved and every address checked); EndpointRefused otherwise."""
    target = parse_target(url)
    try:
        allowed_addresses(target.host, target.port)
    except OSError:  # a name that does not resolve reads like a refused one: no probing of names through this form
        raise EndpointRefused(ADDRESS_NOT_ALLOWED, {"host": target.host}) from None
    return target


def refusals(endpoint: Endpoint) -> list[EndpointRefused]:
    """Why the stored endpoint may not be used, as far as can be told without resolving its host (for lists and run requests)."""
    found: list[EndpointRefused] = []
    try:
        check_key_variable(endpoint.api_key_env)
    except EndpointRefused as refused:
        found.append(refused)
    try:
        target = parse_target(endpoint.base_url)
    except EndpointRefused as refused:
        found.append(refused)
    else:
        address = parse_address(target.host)  # a name is checked when it is resolved: at saving, and at each connection
        if address is not None and not allowed_hosts().allows_address(address):
            found.append(EndpointRefused(ADDRESS_NOT_ALLOWED, {"host": target.host}))
    return found
