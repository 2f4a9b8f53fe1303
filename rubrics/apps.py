from django.apps import AppConfig


class RubricsConfig(AppConfig):
    name = "rubrics"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Rubrics"

    def ready(self) -> None:
        from rubrics import dbguard

        dbguard.connect()
