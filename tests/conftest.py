"""Shared test fixtures: the named cast of users and the HeartBench data files."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group

from heartbench_core.roles import Role

PASSWORD = "correct-horse-battery-staple"


def heartbench_file(name: str = "question_all.jsonl") -> Path:
    """Path to a released HeartBench file; skip (never on CI) when it is absent."""
    path = Path(os.environ.get("HEARTBENCH_DIR", settings.HEARTBENCH_DIR)) / name
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing on CI: the HeartBench data must be beside the repository")
        pytest.skip(f"{path} not found: set HEARTBENCH_DIR to the released HeartBench data")
    return path


@pytest.fixture(autouse=True)
def _english_unless_a_test_says_otherwise():
    """Each test starts in the default language: a request by a user who chose Chinese leaves it active in the thread,
    and services called directly afterwards (import errors, command output) would answer in Chinese."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _endpoints_may_reach_the_fake_chat_server(settings):
    """The fake chat server (tests/fake_openai.py) listens on 127.0.0.1, which endpoints may reach only when the operator
    allows it: the tests allow it explicitly, as an operator allows a self-hosted model. Tests of the rule set their own."""
    settings.ENDPOINT_ALLOWED_HOSTS = ["127.0.0.1"]


@pytest.fixture
def heartbench_all() -> Path:
    return heartbench_file("question_all.jsonl")


def make_user(username: str, *roles: Role, **extra):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=username, password=PASSWORD, email=f"{username}@example.org", **extra)
    for role in roles:
        group, _ = Group.objects.get_or_create(name=role.value)
        user.groups.add(group)
    return user


class Cast:
    """The named users every test can rely on."""

    def __init__(self):
        self.admin = make_user("alice_admin", Role.ADMIN)
        self.author = make_user("rita_author", Role.RUBRIC_AUTHOR)
        self.author2 = make_user("raj_author", Role.RUBRIC_AUTHOR)
        self.reviewers = [make_user(f"sam_reviewer{i}", Role.SENIOR_REVIEWER) for i in range(1, 5)]
        self.reviewer = self.reviewers[0]
        self.experts = [make_user(f"erin_expert{i}", Role.EXPERT) for i in range(1, 4)]
        self.expert = self.experts[0]
        self.outsider = make_user("olga_outsider")

    @property
    def everyone(self):
        return [self.admin, self.author, self.author2, *self.reviewers, *self.experts, self.outsider]


ARCHIVE_KEY = "an-archive-key-for-tests-only-0123456789"


@pytest.fixture
def archive_key(settings) -> str:
    """The key both ends of a campaign archive share (HEARTBENCH_ARCHIVE_KEY): export signs with it, import verifies."""
    settings.CAMPAIGN_ARCHIVE_KEY = ARCHIVE_KEY
    return ARCHIVE_KEY


@pytest.fixture
def cast(db) -> Cast:
    return Cast()


@pytest.fixture
def client_for(client):
    """client_for(user) → a test client logged in as that user."""

    def login(user):
        client.force_login(user)
        return client

    return login


def postgres_only():
    """Skip marker for tests that need PostgreSQL."""
    return pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="needs PostgreSQL: run with DATABASE_URL=postgres://...",
    )


def pytest_configure(config):
    # Commands speak the shell's language (heartbench_core.language.command_line_language); the
    # suite reads their English, whatever the locale of the machine running it.
    os.environ["HEARTBENCH_LANGUAGE"] = "en"
    # Password hashing dominates user creation; tests need no strong hash.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Without Redis the project counts lockouts and throttles in the database cache, shared by every
    # process; in one test process a local cache keeps query counts about the code under test.
    # tests/security/test_shared_lockout_cache.py tests the shared cache itself, across processes.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # On SQLite the test database is a file, not Django's shared in-memory database: with an in-memory
    # one the live server's threads use the test's own connection, so a request a browser page still
    # sends as its test ends (an autosave, a poll) ran inside the next test's transaction state and
    # broke it. A file gives every thread a connection of its own; each xdist worker gets its own file.
    default = settings.DATABASES["default"]
    if default["ENGINE"] == "django.db.backends.sqlite3" and not default.get("TEST", {}).get("NAME"):
        directory = tempfile.mkdtemp(prefix="heartbench-tests-")
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        default.setdefault("TEST", {})["NAME"] = str(Path(directory) / "test.sqlite3")
