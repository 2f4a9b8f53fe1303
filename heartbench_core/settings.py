"""Settings for the HeartBench validation platform, driven by the environment.

Every value comes from an environment variable parsed strictly: a bad value raises
ImproperlyConfigured naming the variable, so a misconfigured process never starts.
Defaults give a working local install: SQLite under var/, django-q2's ORM broker.
"""

import contextlib
from pathlib import Path
from typing import Any

from heartbench_core.env import (
    env_allowed_hosts,
    env_bool,
    env_database,
    env_email,
    env_int,
    env_key_prefix,
    env_key_variables,
    env_list,
    env_mail,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
PRODUCTION = env_bool("PRODUCTION", False)
# A fixed key is only acceptable for local development and tests; it is public.
DEVELOPMENT_SECRET_KEY = "insecure-local-development-key-do-not-use-in-production-0123456789"
SECRET_KEY = env_str("SECRET_KEY", "")
if PRODUCTION:
    # Whatever DEBUG says: a production process never signs sessions with a known or weak key.
    from django.core.exceptions import ImproperlyConfigured

    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set when PRODUCTION=1.")
    if (
        SECRET_KEY == DEVELOPMENT_SECRET_KEY
        or len(SECRET_KEY) < 50
        or len(set(SECRET_KEY)) < 5
        or SECRET_KEY.startswith("django-insecure-")
    ):
        raise ImproperlyConfigured(
            "SECRET_KEY is too weak for PRODUCTION=1: use at least 50 random characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
elif not SECRET_KEY:
    SECRET_KEY = DEVELOPMENT_SECRET_KEY

# Keys the seeded choices of campaigns (sample, hidden gold checks, orders: annotation.services.sampling). Unset, it
# is derived from SECRET_KEY; set it to keep samples reproducible across a SECRET_KEY rotation. Never shown to anyone.
HEARTBENCH_SAMPLING_KEY = env_str("HEARTBENCH_SAMPLING_KEY", "")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "heartbench_core.admin_apps.PlatformAdminConfig",  # django.contrib.admin on a blind site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "django_q",
    "heartbench_core",
    "rubrics",
    "annotation",
    "validation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "heartbench_core.middleware.RequestSizeLimitMiddleware",
    # A NUL or a lone surrogate in the URL, a header, a cookie or a page's form is a 400 (the API's bodies: its parsers).
    "heartbench_core.input_text.RefuseUnstorableTextMiddleware",
    "heartbench_core.errors.ApiJsonErrorsMiddleware",
    "heartbench_core.middleware.OutOfRangeNumberMiddleware",
    "heartbench_core.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The browser's Accept-Language (or the language cookie) picks the language; pages and API alike.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in user's stored language wins over the browser's (heartbench_core.language).
    "heartbench_core.language.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "heartbench_core.urls"
WSGI_APPLICATION = "heartbench_core.wsgi.application"
ASGI_APPLICATION = "heartbench_core.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "heartbench_core.context_processors.roles",
                "heartbench_core.navigation.navigation",
                "annotation.context_processors.needs_action",
            ],
        },
    }
]

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web server and the django-q2 worker read while the other writes.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
    DATABASES["default"]["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
    DATABASES["default"]["OPTIONS"].setdefault("timeout", 20)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "heartbench_core.User"

# Login throttling (heartbench_core.throttling): failures per username+address and per address.
AUTHENTICATION_BACKENDS = ["heartbench_core.throttling.ThrottledModelBackend"]
LOGIN_FAILURES_PER_USER = env_int("LOGIN_FAILURES_PER_USER", 5)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50)
TOKEN_FAILURES_PER_ADDRESS = env_int("TOKEN_FAILURES_PER_ADDRESS", 20)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 900)

# API tokens (heartbench_core.services.api_tokens): the lifetime a new token gets unless its creator
# chooses another, and the longest a creator may choose, in days.
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", 90)
API_TOKEN_MAX_DAYS = env_int("API_TOKEN_MAX_DAYS", 365)
if not 1 <= API_TOKEN_DAYS <= API_TOKEN_MAX_DAYS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"API_TOKEN_DAYS={API_TOKEN_DAYS} must be at least 1 and at most API_TOKEN_MAX_DAYS={API_TOKEN_MAX_DAYS}.")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# English is the fallback; each language names itself, so a reader can find theirs in any language.
LANGUAGE_CODE = "en"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates and numbers per language (2026年11月23日 14:05 in Chinese); templates name a format, never spell one.
FORMAT_MODULE_PATH = ["heartbench_core.formats"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
# WhiteNoise serves static files in every process (runserver, gunicorn) without a separate server:
# from the apps' and static/'s own folders (the finders), and from STATIC_ROOT once `collectstatic`
# has filled it. Until then STATIC_ROOT is an empty folder, made here so WhiteNoise does not warn
# "No directory at" on every start and in every test (a read-only deploy collects it beforehand).
WHITENOISE_USE_FINDERS = True
with contextlib.suppress(OSError):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# E-mail (invitations, the admins' digest; docs/operations.md "E-mail"): one URL, EMAIL_URL. Unset or "none" sends
# nothing (the People pages then hand each invitation link to the inviting admin); console:// prints messages.
_mail = env_mail("EMAIL_URL")
EMAIL_BACKEND = _mail.backend
EMAIL_HOST = _mail.host
EMAIL_PORT = _mail.port
EMAIL_HOST_USER = _mail.user
EMAIL_HOST_PASSWORD = _mail.password
EMAIL_USE_TLS = _mail.use_tls
EMAIL_USE_SSL = _mail.use_ssl
EMAIL_TIMEOUT = _mail.timeout
del _mail
DEFAULT_FROM_EMAIL = env_email("DEFAULT_FROM_EMAIL", "HeartBench <noreply@localhost>")
# How long an invitation link works (heartbench_core.people.tokens), and the site address links use outside a request.
INVITE_LINK_TIMEOUT = env_int("INVITE_LINK_DAYS", 7) * 24 * 3600
SITE_URL = env_url("SITE_URL", "http://localhost:8000", schemes=("http", "https"))

# Uploads (import endpoints): bounded so a hostile client cannot exhaust memory.
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 20 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_UPLOAD_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_UPLOAD_BYTES

# Campaign archives (export_campaign / import_campaign, docs/operations.md "Archive trust"): the key
# that signs and verifies them (at least 32 characters; the same on both installations), and how
# far an archive may unpack before it is refused, in bytes: one line, one member, all members.
CAMPAIGN_ARCHIVE_KEY = env_str("HEARTBENCH_ARCHIVE_KEY", "")
CAMPAIGN_ARCHIVE_MAX_LINE_BYTES = env_int("CAMPAIGN_ARCHIVE_MAX_LINE_BYTES", 1024 * 1024)
CAMPAIGN_ARCHIVE_MAX_MEMBER_BYTES = env_int("CAMPAIGN_ARCHIVE_MAX_MEMBER_BYTES", 2 * 1024**3)
CAMPAIGN_ARCHIVE_MAX_TOTAL_BYTES = env_int("CAMPAIGN_ARCHIVE_MAX_TOTAL_BYTES", 8 * 1024**3)

# Where the released HeartBench files live (read-only input, never copied in).
HEARTBENCH_DIR = Path(env_str("HEARTBENCH_DIR", str(BASE_DIR.parent / "shared" / "heartbench")))

REST_FRAMEWORK = {
    "DEFAULT_PARSER_CLASSES": [
        "heartbench_core.api_parsers.BoundedJSONParser",
        "heartbench_core.api_parsers.CheckedFormParser",
        "heartbench_core.api_parsers.CheckedMultiPartParser",
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "heartbench_core.api_session.SessionAuthenticationBeforeParsing",
        "heartbench_core.throttling.ThrottledTokenAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "heartbench_core.throttling.PrefetchedUserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "60/min"),
        "user": env_str("API_THROTTLE_USER", "3000/min"),
    },
    # Views name their roles; anything that does not still refuses outsiders and anonymous users.
    "DEFAULT_PERMISSION_CLASSES": ["heartbench_core.api_permissions.HasAnyRole"],
    # OPTIONS answers 405: the OpenAPI schema (for staff) describes every endpoint, and metadata
    # would describe serializers to any caller the view admits. No cross-origin client is served.
    "DEFAULT_METADATA_CLASS": None,
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["rest_framework.filters.OrderingFilter"],
    "EXCEPTION_HANDLER": "heartbench_core.api_errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "HeartBench validation platform API",
    "DESCRIPTION": "Datasets, rubrics, blind expert annotation and human–LLM agreement.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The schema and its interactive page are for staff and pipelines, not experts or outsiders.
    "SERVE_PERMISSIONS": ["heartbench_core.api_permissions.IsStaffMember"],
    # Several models have a `status` or a `kind`: each choice set gets a name of its own in the schema.
    "ENUM_NAME_OVERRIDES": {
        "AssignmentStatusEnum": "annotation.models.Assignment.Status",
        "CampaignStatusEnum": "annotation.models.Campaign.Status",
        "CampaignKindEnum": "annotation.models.Campaign.Kind",
        "CorrectionStatusEnum": "annotation.models.CorrectionRequest.Status",
        "AvailabilityEnum": "annotation.models.ExpertProfile.Availability",
        "ExpertAvailabilityEnum": "annotation.manage.api.EXPERT_AVAILABILITY",
        "PersonStatusEnum": "heartbench_core.people.selectors.PERSON_STATUSES",
        "EndpointRunStatusEnum": "heartbench_core.judging.models.EndpointRun.Status",
        "EndpointRunKindEnum": "heartbench_core.judging.models.EndpointRun.Kind",
        "RunQuestionStatusEnum": "heartbench_core.judging.models.RunQuestion.Status",
        "RunDifficultyEnum": "heartbench_core.judging.services.runs.DIFFICULTIES",
        "ApiTokenStateEnum": "heartbench_core.models.ApiToken.State",
        "SkipReasonEnum": "annotation.models.Skip.Reason",
        "BuiltSetKindEnum": "validation.api.SET_KINDS",
    },
}

REDIS_URL = env_url("REDIS_URL", "", schemes=("redis", "rediss", "unix"))
# Requested reports and golden-label refreshes are rows of validation.BackgroundJob, swept every minute
# by a schedule, so no broker (ORM or Redis) can lose one when a worker dies (docs/operations.md).
# Q_NAME names the queue, salts its signed messages and prefixes its Redis keys: installations sharing a
# Redis each take their own. (Not django-q2's Q_CLUSTER_NAME, which picks one of several queues of a site.)
Q_CLUSTER = {
    "name": env_str("Q_NAME", "heartbench"),
    "workers": env_int("Q_WORKERS", 2),
    "timeout": env_int("Q_TIMEOUT", 600),
    "retry": env_int("Q_RETRY", 720),
    "max_attempts": 3,
    "catch_up": False,
    "save_limit": 250,
    "label": "Background jobs",
}
if REDIS_URL:
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# How long a process holds an endpoint run without renewing its lease (it renews it every few seconds
# while it works): after it, the run is taken again by a worker (docs/judge-runner.md).
RUN_LEASE_SECONDS = env_int("RUN_LEASE_SECONDS", 60)

# What an endpoint may make the server do (docs/operations.md, "Endpoint secrets and addresses"): the
# environment variables it may name for its API key (sent to it as a bearer token) — those starting with
# ENDPOINT_KEY_PREFIX, or listed in ENDPOINT_KEY_VARIABLES — and the hosts beyond public addresses it
# may reach: names, addresses or networks in ENDPOINT_ALLOWED_HOSTS (a self-hosted model, e.g. 10.0.0.0/8).
ENDPOINT_KEY_PREFIX = env_key_prefix("ENDPOINT_KEY_PREFIX", "HEARTBENCH_KEY_")
ENDPOINT_KEY_VARIABLES = env_key_variables("ENDPOINT_KEY_VARIABLES")
ENDPOINT_ALLOWED_HOSTS = env_allowed_hosts("ENDPOINT_ALLOWED_HOSTS")

# Run background jobs inline (no worker) — used by tests and single-process demos.
Q_SYNC = env_bool("Q_SYNC", False)
if Q_SYNC:
    Q_CLUSTER["sync"] = True

# Login lockouts and API throttles count in the cache, so every process must share it: Redis when
# configured, else a table of the database (`manage.py createcachetable`; created after every migrate by a post_migrate hook in heartbench_core/apps.py).
# A per-process cache would let each gunicorn worker count its own wrong passwords.
CACHE_TABLE = "hb_cache"
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", ""),  # lets tools sharing a Redis delete only their own keys
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": CACHE_TABLE,
            # Django's default (300 entries, then a third culled) would let a burst of throttle keys
            # evict a lockout counter; expired rows are culled first.
            "OPTIONS": {"MAX_ENTRIES": env_int("CACHE_MAX_ENTRIES", 20000)},
        }
    }

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SAMESITE = "Lax"
    CSRF_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 12 * 3600)
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Content-Security-Policy on every response (django-csp): scripts and styles only from our own
# static files, no inline script, style attribute or eval. htmx is configured for it in
# base.html (no injected indicator styles, no eval); tests/browser/test_content_security_policy.py
# opens each role's pages and fails on any violation.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}

# Error reports and log lines never carry a password, token or session id.
DEFAULT_EXCEPTION_REPORTER_FILTER = "heartbench_core.redaction.RedactingExceptionReporterFilter"
DEFAULT_EXCEPTION_REPORTER = "heartbench_core.redaction.RedactingExceptionReporter"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "redact_secrets": {"()": "heartbench_core.redaction.RedactSecretsFilter"},
        "no_client_error_tracebacks": {"()": "heartbench_core.errors.ClientErrorTracebackFilter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["no_client_error_tracebacks", "redact_secrets"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    # Django's default handlers would bypass the redacting filter: drop them, let records reach root.
    "loggers": {
        "django": {"handlers": [], "level": env_str("LOG_LEVEL", "WARNING"), "propagate": True},
        # The worker says when it starts, stops and fails a task.
        "django-q": {"handlers": [], "level": env_str("Q_LOG_LEVEL", "INFO"), "propagate": True},
    },
}
