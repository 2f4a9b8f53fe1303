"""Calling an OpenAI-compatible chat-completions endpoint (the official `openai` client), with retries and a rate limit.

The only module that speaks HTTP to an endpoint. The API key is read from the environment
variable the endpoint names at each request — only a variable `heartbench_core.judging.endpoint_policy`
allows — never stored, and scrubbed from every error message before it leaves this module. Each
connection goes to an address the policy checked, resolved once (no second DNS answer can send it
elsewhere); redirects are not followed and environment proxies are not used. A request that fails
for a passing reason (HTTP 429 or 5xx, a timeout, a dropped connection) is retried after a backoff
that doubles each time (a 429's Retry-After is honoured); any other HTTP error fails at once. Every
failure to connect reads the same ("the endpoint cannot be reached"); the details go to the log.
What the endpoint answers is checked before anyone stores it: its text (size, characters a database
cannot hold), its finish reason, and its token counts (whole numbers from 0 to MAX_USAGE_TOKENS).
"""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import httpcore2
import httpx2
import openai

from heartbench_core.judging import endpoint_policy as policy
from heartbench_core.lib.jsonl import replace_unstorable, unstorable_character

if TYPE_CHECKING:
    from heartbench_core.judging.models import Endpoint

logger = logging.getLogger(__name__)

MAX_BACKOFF = 60.0  # seconds: no single wait is longer
MAX_RETRY_AFTER = 300.0
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# What an answer may be before it is stored: a token count the columns hold (with every retry and repair
# of a question added up), a text no longer than any real answer, a reply body read into memory at most this big.
MAX_USAGE_TOKENS = 10_000_000
MAX_ANSWER_CHARS = 1_000_000
MAX_REPLY_BYTES = 16 * 1024 * 1024
MAX_FINISH_REASON_CHARS = 40

# Error kinds (the runner shows them translated).
MISSING_KEY = "missing_key"
HTTP_ERROR = "http_error"
TIMEOUT = "timeout"
CONNECTION = "connection"
BAD_REPLY = "bad_reply"
KEY_NOT_ALLOWED = policy.KEY_NOT_ALLOWED
ADDRESS_NOT_ALLOWED = policy.ADDRESS_NOT_ALLOWED
URL_CREDENTIALS = policy.URL_CREDENTIALS
BAD_URL = policy.BAD_URL
REFUSED = frozenset({KEY_NOT_ALLOWED, ADDRESS_NOT_ALLOWED, URL_CREDENTIALS, BAD_URL})  # the endpoint's settings break a rule


@dataclass(frozen=True)
class EndpointConfig:
    """What a call needs of an endpoint: a plain snapshot, safe to hand to threads."""

    name: str
    base_url: str
    model: str
    api_key_env: str = ""
    temperature: float = 0.0
    max_tokens: int = 4096
    concurrency: int = 1
    requests_per_minute: int | None = None
    max_retries: int = 3
    backoff_seconds: float = 2.0
    timeout_seconds: float = 120.0

    @classmethod
    def of(cls, endpoint: Endpoint) -> EndpointConfig:
        """The endpoint's settings of these names."""
        return cls(**{f.name: getattr(endpoint, f.name) for f in fields(cls)})


@dataclass(frozen=True)
class ChatReply:
    """One answer: its text, why it stopped, the tokens it cost, and how many requests it took."""

    text: str
    finish_reason: str
    tokens_in: int
    tokens_out: int
    requests: int


class ChatError(Exception):
    """A request that failed after its retries (or at once): its kind, a message without the key, and the requests it took.

    `params` go with the kind into a question's problem (said in the reader's language where shown);
    `detail` is for the server's log only (what a failed connection met, which the admin is not told).
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        requests: int = 0,
        params: dict[str, str] | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message or kind)
        self.kind = kind
        self.message = message
        self.status = status
        self.requests = requests
        self.params = params or {}
        self.detail = detail

    @classmethod
    def refused(cls, refusal: policy.EndpointRefused) -> ChatError:
        """The error of a request the endpoint policy refused (nothing was sent)."""
        return cls(refusal.code, "", params=refusal.params)


class ReplyTooLarge(Exception):
    """The endpoint's reply body is larger than MAX_REPLY_BYTES (reading stopped there)."""


class RateLimiter:
    """At most `per_minute` request starts per minute, evenly spaced, shared by every thread of a run."""

    def __init__(
        self, per_minute: int | None, *, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = threading.Lock()
        self._clock, self._sleep = clock, sleep

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)


def read_api_key(env_name: str) -> str:
    """The key from the environment, at call time; ChatError naming the variable (never a value) when unset or not allowed."""
    if not env_name:
        return "unused"  # the client requires a key; an endpoint without one gets a placeholder, not a secret
    try:
        policy.check_key_variable(env_name)  # again at each request: an endpoint stored before the rule, or restored, is refused too
    except policy.EndpointRefused as refused:
        raise ChatError.refused(refused) from None
    value = os.environ.get(env_name, "")
    if not value:
        raise ChatError(MISSING_KEY, f"the environment variable {env_name} that should hold the API key is not set")
    return value


def scrub(text: str, secret: str | None) -> str:
    """The text with the secret replaced (a key echoed back by a server must not be stored or shown)."""
    if secret and len(secret) >= 4 and secret != "unused":
        text = text.replace(secret, "[redacted]")
    return text


class _CheckedAddresses(httpcore2.NetworkBackend):
    """Opens each connection to an address the endpoint policy checked: the host is resolved once, every address it
    resolves to is checked, and the socket goes to one of those (TLS still verifies the certificate for the host's name)."""

    def __init__(self) -> None:
        self._sockets = httpcore2.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.NetworkStream:
        try:
            addresses = policy.allowed_addresses(host, port)
        except OSError as exc:  # the name does not resolve: a connection failure like any other
            raise httpcore2.ConnectError(f"{host} does not resolve: {exc}") from None
        failure: Exception = httpcore2.ConnectError(f"{host} resolves to no address")
        for address in addresses:
            try:
                return self._sockets.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[httpcore2.SOCKET_OPTION] | None = None
    ) -> httpcore2.NetworkStream:
        raise httpcore2.ConnectError("endpoints are reached over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class _BoundedBody(httpx2.SyncByteStream):
    """A reply body read no further than MAX_REPLY_BYTES."""

    def __init__(self, stream: httpx2.SyncByteStream, limit: int) -> None:
        self._stream, self._limit = stream, limit

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self._stream:
            read += len(chunk)
            if read > self._limit:
                raise ReplyTooLarge(f"the reply is larger than {self._limit} bytes")
            yield chunk

    def close(self) -> None:
        self._stream.close()


class _EndpointTransport(httpx2.HTTPTransport):
    """httpx's transport, connecting only to checked addresses (`_CheckedAddresses`) and reading bounded bodies."""

    def __init__(self, *, connections: int) -> None:
        limits = httpx2.Limits(max_connections=max(connections, 1) * 2, max_keepalive_connections=max(connections, 1))
        super().__init__(trust_env=False, limits=limits)
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(),  # SSL_CERT_FILE / SSL_CERT_DIR still name extra authorities
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_CheckedAddresses(),
        )

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        assert isinstance(response.stream, httpx2.SyncByteStream)
        response.stream = _BoundedBody(response.stream, MAX_REPLY_BYTES)
        return response


class ChatClient:
    """Sends chat requests to one endpoint; thread-safe (one HTTP connection pool, one rate limiter)."""

    def __init__(self, config: EndpointConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.limiter = RateLimiter(config.requests_per_minute)
        self._sleep = sleep
        self._http = httpx2.Client(
            transport=_EndpointTransport(connections=config.concurrency),
            follow_redirects=False,  # a redirect would lead past the address check: it fails the request instead
            trust_env=False,  # no proxy from the environment: the connection goes to the checked address itself
            timeout=config.timeout_seconds,
        )
        self._client = openai.OpenAI(
            api_key=lambda: read_api_key(config.api_key_env),
            base_url=config.base_url,
            max_retries=0,  # retries are ours: counted, logged, with Retry-After honoured
            timeout=config.timeout_seconds,
            http_client=self._http,
        )

    def close(self) -> None:
        self._client.close()
        self._http.close()

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """One answer to the messages, retrying passing failures; raises ChatError when there is none."""
        cfg = self.config
        key = read_api_key(cfg.api_key_env)  # fail before any request when the variable is unset or not allowed
        try:
            policy.parse_target(cfg.base_url)  # a URL with credentials, or not http(s), is refused before anything is sent
        except policy.EndpointRefused as refused:
            raise ChatError.refused(refused) from None
        requests = 0
        while True:
            self.limiter.wait()
            requests += 1
            try:
                completion = self._client.chat.completions.create(
                    model=cfg.model,
                    messages=messages,  # type: ignore[arg-type]  # plain role/content dicts are what the API takes
                    temperature=cfg.temperature,
                    max_tokens=cfg.max_tokens,
                )
            except ChatError as exc:  # the key vanished from the environment between requests
                exc.requests = requests
                raise
            except Exception as exc:
                error, wait = self._classify(exc, key, requests)
                if error.kind == MISSING_KEY or wait is None or requests > cfg.max_retries:
                    error.requests = requests - 1 if error.kind in REFUSED else requests  # a refused one was never sent
                    if error.detail:  # what the admin is not told (the same words for every failure to connect) is in the log
                        logger.warning("endpoint %s: could not connect: %s", cfg.name, error.detail)
                    raise error from None
                logger.info("endpoint %s: %s; retrying in %.1f s", cfg.name, error.detail or error.message, wait)
                self._sleep(wait)
                continue
            return self._reply(completion, key, requests)

    def _reply(self, completion: Any, key: str, requests: int) -> ChatReply:
        """The answer, once checked: its shape, its text and finish reason (storable, bounded) and its token counts."""

        def unusable(message: str) -> ChatError:
            return ChatError(BAD_REPLY, message, requests=requests)

        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise unusable("the endpoint answered without a choice")
        message = getattr(choices[0], "message", None)
        if message is None:
            raise unusable("the endpoint's choice holds no message")
        text = getattr(message, "content", None)
        finish_reason = getattr(choices[0], "finish_reason", None)
        text, finish_reason = "" if text is None else text, "" if finish_reason is None else finish_reason
        if not isinstance(text, str) or not isinstance(finish_reason, str):
            raise unusable("the endpoint's answer or finish reason is not text")
        if len(text) > MAX_ANSWER_CHARS:
            raise unusable(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
        if len(finish_reason) > MAX_FINISH_REASON_CHARS:
            raise unusable(f"the finish reason is longer than {MAX_FINISH_REASON_CHARS} characters")
        if unstorable_character(text) or unstorable_character(finish_reason):
            raise unusable("the answer holds a NUL character or a lone surrogate, which cannot be stored")
        usage = getattr(completion, "usage", None)
        return ChatReply(
            text=scrub(text, key),
            finish_reason=finish_reason,
            tokens_in=_token_count(usage, "prompt_tokens", requests),
            tokens_out=_token_count(usage, "completion_tokens", requests),
            requests=requests,
        )

    def _backoff(self, retry: int) -> float:
        base = self.config.backoff_seconds * (2 ** (retry - 1))
        return min(MAX_BACKOFF, base * (1 + random.random() * 0.1))  # jitter, not cryptography

    def _classify(self, exc: Exception, key: str, requests: int) -> tuple[ChatError, float | None]:
        """The error a failed request is, and how long to wait before retrying it (None: do not retry)."""
        if isinstance(exc, ChatError):
            return exc, None
        cause = exc.__cause__ or exc
        if isinstance(cause, policy.EndpointRefused):  # the host resolved to an address endpoints may not reach
            return ChatError.refused(cause), None
        if isinstance(cause, ReplyTooLarge):
            return ChatError(BAD_REPLY, str(cause)), None
        if isinstance(exc, openai.APITimeoutError) and not isinstance(cause, httpx2.ConnectTimeout):
            return ChatError(TIMEOUT, f"no answer within {self.config.timeout_seconds:g} s"), self._backoff(requests)
        if isinstance(exc, openai.APIConnectionError):  # a timeout to connect too: every failure to connect reads the same
            detail = scrub(f"{type(cause).__name__}: {cause}", key)[:500]
            return ChatError(CONNECTION, "", detail=detail), self._backoff(requests)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            if 300 <= status < 400:
                return ChatError(
                    HTTP_ERROR, f"HTTP {status}: a redirect, not followed (give the final address as the base URL)", status=status
                ), None
            text = replace_unstorable(_error_text(exc))
            error = ChatError(HTTP_ERROR, scrub(f"HTTP {status}: {text}", key)[:500], status=status)
            if status not in RETRYABLE_STATUS:
                return error, None
            wait = self._backoff(requests)
            retry_after = _retry_after(exc.response.headers.get("retry-after"))
            if retry_after is not None:
                wait = min(MAX_RETRY_AFTER, max(wait, retry_after))
            return error, wait
        if isinstance(exc, openai.OpenAIError):
            return ChatError(BAD_REPLY, scrub(replace_unstorable(str(exc)), key)[:500]), None
        raise exc


def _token_count(usage: Any, name: str, requests: int) -> int:
    """A token count the endpoint reported (0 when it reported none); ChatError unless a whole number from 0 to MAX_USAGE_TOKENS."""
    value = getattr(usage, name, None) if usage is not None else None
    if value is None:
        return 0
    if type(value) is not int or not 0 <= value <= MAX_USAGE_TOKENS:
        shown = repr(value)[:40]
        raise ChatError(BAD_REPLY, f"usage.{name} is {shown}, not a whole number from 0 to {MAX_USAGE_TOKENS}", requests=requests)
    return value


def _error_text(exc: openai.APIStatusError) -> str:
    """The server's own message for an HTTP error, when it gave one."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else body.get("message")
        if message:
            return str(message)
    return str(exc.message)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header given in seconds (an HTTP date is left to the backoff)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def valid_env_name(name: str) -> bool:
    """True for a name an environment variable can have."""
    return bool(ENV_NAME.match(name))
