from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _create_cache_table(using: str = "default", **kwargs: Any) -> None:
    """After every migrate, the database cache's table exists (login lockouts and throttles count there without Redis).

    Created whatever CACHES says at the moment, so a database migrated under one configuration
    (tests, Redis) still serves a process started without Redis.
    """
    from django.conf import settings
    from django.core.management.commands.createcachetable import Command

    command = Command()
    command.verbosity = 0
    command.create_table(using, settings.CACHE_TABLE, dry_run=False)


class HeartbenchCoreConfig(AppConfig):
    name = "heartbench_core"
    verbose_name = "HeartBench core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(_create_cache_table, sender=self, dispatch_uid="heartbench_core.create_cache_table")
        from heartbench_core.archived_tables import CAMPAIGN_ARCHIVE
        from heartbench_core.campaign_archive import register_archived_tables

        register_archived_tables(self.label, CAMPAIGN_ARCHIVE)
        # Posts kept over a sign-in are handed back to their apps when someone signs in.
        import heartbench_core.signed_out  # noqa: F401
