"""Turn DRF's plain-text tokens (`rest_framework.authtoken`, table `authtoken_token`) into hashed API tokens (migration 0013).

Each old token becomes an `ApiToken` holding only its SHA-256, its first 6 characters (what the
token page showed), its creation time and an expiry 90 days after the migration (it had none),
so pipelines keep working while admins issue named tokens to replace them. The old table is then
dropped: no token is left in clear. The app is no longer installed, so the table is read with
SQL; a database created after it was removed has no such table, and nothing happens.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

DRF_TABLE = "authtoken_token"
SHOWN_CHARS = 6  # the old token page and API showed this many
GRACE = timedelta(days=90)
NAME = "API token from before expiry dates"


def _aware(value: datetime | str | None, default: datetime) -> datetime:
    moment = parse_datetime(value) if isinstance(value, str) else value  # SQLite gives text, PostgreSQL a datetime
    if moment is None:
        return default
    return timezone.make_aware(moment, UTC) if timezone.is_naive(moment) else moment


def hash_drf_tokens(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    if DRF_TABLE not in connection.introspection.table_names():
        return
    table = connection.ops.quote_name(DRF_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {connection.ops.quote_name('key')}, user_id, created FROM {table}")
        rows = cursor.fetchall()
    api_token = apps.get_model("heartbench_core", "ApiToken")
    now = timezone.now()
    api_token.objects.bulk_create(
        api_token(
            user_id=user_id,
            name=NAME,
            prefix=key[:SHOWN_CHARS],
            digest=hashlib.sha256(key.encode()).hexdigest(),
            created_at=min(_aware(created, now), now),
            expires_at=now + GRACE,
        )
        for key, user_id, created in rows
    )
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {table}")
