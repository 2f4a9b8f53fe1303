from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotation.blindness import BLIND_SCOPE_SOURCE
        from heartbench_core.blindness import register_blind_scope_source

        register_blind_scope_source(BLIND_SCOPE_SOURCE)
