from django.apps import AppConfig


class RubricsConfig(AppConfig):
    name = "rubrics"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Rubrics"

    def ready(self) -> None:
        from rubrics import dbguard

        dbguard.connect()

        from heartbench_core.campaign_archive import register_archived_tables
        from rubrics.archived_tables import CAMPAIGN_ARCHIVE

        register_archived_tables(self.label, CAMPAIGN_ARCHIVE)
