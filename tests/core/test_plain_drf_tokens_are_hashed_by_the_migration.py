"""Migrating an installation that used DRF's plain-text tokens: each becomes a hashed token expiring in 90 days, and the plain table goes."""

import hashlib
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.utils import timezone

from heartbench_core.migrations import _drf_tokens
from heartbench_core.models import ApiToken

pytestmark = pytest.mark.django_db

KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"  # DRF's format: 40 hex characters


def _drf_table_with(user_id: int) -> None:
    """The table rest_framework.authtoken created, with one token, as a database migrated before this change holds it."""
    when = "timestamp with time zone" if connection.vendor == "postgresql" else "datetime"
    created = connection.ops.adapt_datetimefield_value(datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))
    with connection.cursor() as cursor:
        cursor.execute(
            f'CREATE TABLE "authtoken_token" ("key" varchar(40) NOT NULL PRIMARY KEY, "created" {when} NOT NULL, '
            '"user_id" bigint NOT NULL UNIQUE REFERENCES "hb_user" ("id") DEFERRABLE INITIALLY DEFERRED)'
        )
        cursor.execute('INSERT INTO "authtoken_token" ("key", "created", "user_id") VALUES (%s, %s, %s)', [KEY, created, user_id])
        if connection.vendor == "postgresql":
            # Written long before the migration in a real database: no foreign-key check is still pending.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_plain_token_keeps_working_hashed_until_ninety_days_from_the_migration(cast):
    _drf_table_with(cast.author.pk)
    _drf_tokens.hash_drf_tokens(apps, SimpleNamespace(connection=connection))
    token = ApiToken.objects.get()
    assert token.user == cast.author and token.prefix == KEY[:6] and token.digest == hashlib.sha256(KEY.encode()).hexdigest()
    assert token.created_at == datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert abs(token.expires_at - (timezone.now() + timedelta(days=90))) < timedelta(minutes=5)
    assert "authtoken_token" not in connection.introspection.table_names()
    assert Client().get("/api/v1/datasets/", HTTP_AUTHORIZATION=f"Token {KEY}").status_code == 200


def test_a_database_without_the_old_table_is_left_alone(cast):
    _drf_tokens.hash_drf_tokens(apps, SimpleNamespace(connection=connection))
    assert not ApiToken.objects.exists()
