"""Calling an OpenAI-compatible chat-completions endpoint (the official `openai` client), with retries and a rate limit.

The only module that speaks HTTP to an endpoint. The API key is read from the environment
variable the endpoint names at each request, never stored, and scrubbed from every error
message before it leaves this module. A request that fails for a passing reason (HTTP 429 or
5xx, a timeout, a dropped connection) is retried after a backoff that doubles each time (a 429's
Retry-After is honoured); any other HTTP error fails at once.
"""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import openai

if TYPE_CHECKING:
    from heartbench_core.models import Endpoint

logger = logging.getLogger(__name__)

MAX_BACKOFF = 60.0  # seconds: no single wait is longer
MAX_RETRY_AFTER = 300.0
RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Error kinds (the runner shows them translated).
MISSING_KEY = "missing_key"
HTTP_ERROR = "http_error"
TIMEOUT = "timeout"
CONNECTION = "connection"
BAD_REPLY = "bad_reply"


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
        return cls(
            name=endpoint.name,
            base_url=endpoint.base_url,
            model=endpoint.model,
            api_key_env=endpoint.api_key_env,
            temperature=endpoint.temperature,
            max_tokens=endpoint.max_tokens,
            concurrency=endpoint.concurrency,
            requests_per_minute=endpoint.requests_per_minute,
            max_retries=endpoint.max_retries,
            backoff_seconds=endpoint.backoff_seconds,
            timeout_seconds=endpoint.timeout_seconds,
        )


@dataclass(frozen=True)
class ChatReply:
    """One answer: its text, why it stopped, the tokens it cost, and how many requests it took."""

    text: str
    finish_reason: str
    tokens_in: int
    tokens_out: int
    requests: int


class ChatError(Exception):
    """A request that failed after its retries (or at once): its kind, a message without the key, and the requests it took."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, requests: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.requests = requests


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
    """The key from the environment, at call time; ChatError naming the variable (never a value) when unset."""
    if not env_name:
        return "unused"  # the client requires a key; an endpoint without one gets a placeholder, not a secret
    value = os.environ.get(env_name, "")
    if not value:
        raise ChatError(MISSING_KEY, f"the environment variable {env_name} that should hold the API key is not set")
    return value


def scrub(text: str, secret: str | None) -> str:
    """The text with the secret replaced (a key echoed back by a server must not be stored or shown)."""
    if secret and len(secret) >= 4 and secret != "unused":
        text = text.replace(secret, "[redacted]")
    return text


class ChatClient:
    """Sends chat requests to one endpoint; thread-safe (one HTTP connection pool, one rate limiter)."""

    def __init__(self, config: EndpointConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.limiter = RateLimiter(config.requests_per_minute)
        self._sleep = sleep
        self._client = openai.OpenAI(
            api_key=lambda: read_api_key(config.api_key_env),
            base_url=config.base_url,
            max_retries=0,  # retries are ours: counted, logged, with Retry-After honoured
            timeout=config.timeout_seconds,
        )

    def close(self) -> None:
        self._client.close()

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """One answer to the messages, retrying passing failures; raises ChatError when there is none."""
        cfg = self.config
        key = read_api_key(cfg.api_key_env)  # fail before any request when the variable is unset
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
                    error.requests = requests
                    raise error from None
                logger.info("endpoint %s: %s; retrying in %.1f s", cfg.name, error.message, wait)
                self._sleep(wait)
                continue
            return self._reply(completion, key, requests)

    def _reply(self, completion: Any, key: str, requests: int) -> ChatReply:
        choices = getattr(completion, "choices", None) or []
        if not choices:
            raise ChatError(BAD_REPLY, "the endpoint answered without a choice", requests=requests)
        choice = choices[0]
        text = getattr(choice.message, "content", None) or ""
        usage = getattr(completion, "usage", None)
        return ChatReply(
            text=scrub(text, key),
            finish_reason=str(choice.finish_reason or ""),
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
            requests=requests,
        )

    def _backoff(self, retry: int) -> float:
        base = self.config.backoff_seconds * (2 ** (retry - 1))
        return min(MAX_BACKOFF, base * (1 + random.random() * 0.1))  # jitter, not cryptography

    def _classify(self, exc: Exception, key: str, requests: int) -> tuple[ChatError, float | None]:
        """The error a failed request is, and how long to wait before retrying it (None: do not retry)."""
        if isinstance(exc, ChatError):
            return exc, None
        if isinstance(exc, openai.APITimeoutError):
            return ChatError(TIMEOUT, f"no answer within {self.config.timeout_seconds:g} s"), self._backoff(requests)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return ChatError(CONNECTION, scrub(str(cause), key)[:500]), self._backoff(requests)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            error = ChatError(HTTP_ERROR, scrub(f"HTTP {status}: {_error_text(exc)}", key)[:500], status=status)
            if status not in RETRYABLE_STATUS:
                return error, None
            wait = self._backoff(requests)
            retry_after = _retry_after(exc.response.headers.get("retry-after"))
            if retry_after is not None:
                wait = min(MAX_RETRY_AFTER, max(wait, retry_after))
            return error, wait
        if isinstance(exc, openai.OpenAIError):
            return ChatError(BAD_REPLY, scrub(str(exc), key)[:500]), None
        raise exc


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
