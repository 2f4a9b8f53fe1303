from django.apps import AppConfig


class HeartbenchCoreConfig(AppConfig):
    name = "heartbench_core"
    verbose_name = "HeartBench core"
    default_auto_field = "django.db.models.BigAutoField"
