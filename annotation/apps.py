from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotation.blindness import BLIND_SCOPE_SOURCE
        from heartbench_core.blindness import register_blind_scope_source

        register_blind_scope_source(BLIND_SCOPE_SOURCE)

        from annotation.archived_tables import CAMPAIGN_ARCHIVE, SOURCE
        from heartbench_core.campaign_archive import register_archived_tables, register_campaign_source

        register_archived_tables(self.label, CAMPAIGN_ARCHIVE)
        register_campaign_source(SOURCE)

        from annotation.people_hooks import give_new_experts_a_profile, release_open_work
        from heartbench_core.people.signals import roles_changed, user_deactivated

        roles_changed.connect(give_new_experts_a_profile, dispatch_uid="annotation.give_new_experts_a_profile")
        user_deactivated.connect(release_open_work, dispatch_uid="annotation.release_open_work")

        # A draft or submission posted while signed out goes into the draft when its expert signs in.
        from annotation.workspace.sign_in import restore_posted_draft
        from heartbench_core.signed_out import register_restorer

        register_restorer("annotation:judge", restore_posted_draft)
