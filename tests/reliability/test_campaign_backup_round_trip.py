"""A real campaign — judged through the workspace, corrected, adjudicated, reported — survives export and import into an empty database."""

import pytest
from django.apps import apps
from django.core.management import call_command

from tests.reliability.backup_world import CAMPAIGN, build_real_campaign, report_without_times, snapshot

# `flush` empties every table; on PostgreSQL that cannot happen inside the test's transaction.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("archive_key")]


def test_a_real_campaign_restores_into_an_empty_database_with_identical_rows_and_agreement(tmp_path):
    from validation.services.agreement_reports import create_agreement_report

    world = build_real_campaign()
    campaign = world["campaign"]
    blind_before = report_without_times(create_agreement_report(campaign=campaign, resamples=50))
    revised_before = report_without_times(create_agreement_report(campaign=campaign, resamples=50, post_discussion=True))
    before = snapshot(CAMPAIGN)
    # The pieces the issue names are really there to travel.
    for label in (
        "annotation.Judgment",
        "annotation.CorrectionRequest",
        "annotation.DiscussionComment",
        "annotation.DiscussionVote",
        "annotation.GoldLabel",
        "annotation.CalibrationResult",
        "annotation.Qualification",
        "validation.Adjudication",
        "validation.GoldenLabel",
        "validation.AgreementReport",
        "validation.ReleaseGate",
        "validation.ReleasePolicyChange",
        "heartbench_core.StaffExposure",
        "heartbench_core.JudgeVerdict",
        "rubrics.CriterionRevision",
        "rubrics.ReviewDecision",
        "rubrics.RevisionComment",
        "rubrics.AuditEntry",
    ):
        assert before[label], label
    kinds = {r["fields"]["kind"] for r in before["annotation.Campaign"]}
    gold_checks = {r["pk"] for r in before["annotation.CampaignResponse"] if r["fields"]["is_gold"]}
    assert gold_checks and {r["fields"]["campaign_response"] for r in before["annotation.GoldLabel"]} >= gold_checks
    assert kinds == {"blind_test", "gold_set", "calibration"}
    assert {r["fields"]["after_discussion"] for r in before["annotation.CorrectionRequest"]} == {True, False}
    assert any(r["fields"]["discussion_seen_at"] for r in before["annotation.Assignment"])
    assert {r["fields"]["status"] for r in before["annotation.Assignment"]} >= {"submitted", "reserved"}
    assert {r["fields"]["exploratory"] for r in before["validation.AgreementReport"]} == {True, False}

    archive = tmp_path / "campaign.zip"
    call_command("export_campaign", CAMPAIGN, "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    assert not apps.get_model("annotation", "Judgment").objects.exists()
    call_command("import_campaign", str(archive), verbosity=0)

    after = snapshot(CAMPAIGN)
    assert after.keys() == before.keys()
    for label in before:
        assert after[label] == before[label], label
    restored = apps.get_model("annotation", "Campaign").objects.get(name=CAMPAIGN)
    assert report_without_times(create_agreement_report(campaign=restored, resamples=50)) == blind_before
    assert report_without_times(create_agreement_report(campaign=restored, resamples=50, post_discussion=True)) == revised_before


def test_the_judgment_guard_still_holds_after_a_restore(tmp_path):
    from django.db import IntegrityError, transaction

    from annotation.models import Assignment, Judgment

    build_real_campaign()
    archive = tmp_path / "campaign.zip"
    call_command("export_campaign", CAMPAIGN, "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_campaign", str(archive), verbosity=0)
    judgment = Judgment.objects.filter(assignment__status=Assignment.Status.SUBMITTED).first()
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        Judgment.objects.filter(pk=judgment.pk).update(hit=not judgment.hit)
