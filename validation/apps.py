from django.apps import AppConfig


class ValidationConfig(AppConfig):
    name = "validation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from heartbench_core.campaign_archive import register_archived_tables
        from validation.archived_tables import CAMPAIGN_ARCHIVE

        register_archived_tables(self.label, CAMPAIGN_ARCHIVE)

        from heartbench_core.verdict_sources import register_verdict_source
        from validation.scoring_source import list_consensus, load_consensus

        register_verdict_source("consensus", load_consensus, list_consensus)

        from validation import needs_action, risks

        risks.register()
        needs_action.register()

        from annotation.signals import assignment_submitted
        from validation.tasks import queue_golden_refresh

        assignment_submitted.connect(queue_golden_refresh, dispatch_uid="validation.queue_golden_refresh")

        # Consensus scores name their campaign by id (the core cannot point at annotation): forget them with it.
        from django.db.models.signals import post_delete

        from annotation.models import Campaign
        from validation.tasks import forget_campaign_scores

        post_delete.connect(forget_campaign_scores, sender=Campaign, dispatch_uid="validation.forget_campaign_scores")

        # The dashboard's stored queue figures: recomputed after whatever changes the queue, whoever writes it.
        from django.db.models.signals import post_save

        from annotation.models import DiscussionVote, UnclearCriterionReport
        from heartbench_core.models import JudgeRun
        from rubrics.models import CriterionFlag
        from validation.models import AgreementReport
        from validation.services import queue_summary as queue

        for model, receiver in (
            (DiscussionVote, queue.on_discussion_vote),
            (UnclearCriterionReport, queue.on_unclear_report),
            (CriterionFlag, queue.on_criterion_flag),
        ):
            post_save.connect(receiver, sender=model, dispatch_uid=f"validation.queue.{model.__name__}.save")
            post_delete.connect(receiver, sender=model, dispatch_uid=f"validation.queue.{model.__name__}.delete")
        post_save.connect(queue.on_judge_run, sender=JudgeRun, dispatch_uid="validation.queue.JudgeRun.save")
        post_save.connect(queue.on_report, sender=AgreementReport, dispatch_uid="validation.queue.AgreementReport.save")

        # The leaderboard shows each judge's human-calibrated scores beside its own (the core cannot point at reports).
        from heartbench_core.leaderboard.calibrated import register_calibrated_source
        from validation.leaderboard_source import calibrated_boards

        register_calibrated_source(calibrated_boards)

        # The rubric authors see the causes decided against each criterion (and many "ambiguous criterion" raise it).
        from rubrics.feedback import register_adjudication_causes
        from validation.selectors import adjudication_causes

        register_adjudication_causes(adjudication_causes)
