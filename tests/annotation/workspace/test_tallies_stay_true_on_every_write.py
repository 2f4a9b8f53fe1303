"""The summary rows (per campaign, per response, per expert in a campaign) equal a count of the rows after every kind of write.

The triggers of annotation/migrations/_tallies.py keep them; each test writes one way the
platform writes (services, COPY, bulk inserts, raw updates, cascades, restores) and compares the
stored tallies with a count made from scratch.
"""

import threading
from datetime import UTC, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from annotation.models import Assignment, CampaignResponse, CampaignTally, ExpertCampaignTally, ResponseTally
from annotation.services import tallies
from annotation.services.assignment import assign_next_response, bulk_assign, expire_reservations, release_assignment
from annotation.services.workspace import record_active_time
from tests.conftest import postgres_only

from .conftest import judge_fully


def assert_true_tallies():
    assert tallies.tallies_as_counted() == tallies.tallies_from_rows()


def test_a_new_campaign_counts_its_responses_and_gold_checks(workspace):
    counted = CampaignTally.objects.get(campaign=workspace.campaign)
    assert counted.responses == CampaignResponse.objects.filter(campaign=workspace.campaign).count() > 0
    assert ResponseTally.objects.filter(campaign=workspace.campaign).count() == counted.responses
    assert_true_tallies()


def test_reserving_submitting_releasing_and_expiring_keep_every_tally(workspace, cast):
    first = workspace.reserve(cast.expert, "dm0001")
    second = workspace.reserve(cast.expert, "dm0002")
    third = workspace.reserve(cast.experts[1], "dm0001")
    assert_true_tallies()
    judge_fully(first)
    record_active_time(assignment=second, expert=cast.expert, seconds=42)
    assert_true_tallies()
    release_assignment(assignment=second, by=cast.expert)
    Assignment.objects.filter(pk=third.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    expire_reservations()
    assert_true_tallies()
    mine = ExpertCampaignTally.objects.get(expert=cast.expert, campaign=workspace.campaign)
    assert (mine.reserved, mine.submitted, mine.released, mine.active_seconds) == (0, 1, 1, 42)
    assert ExpertCampaignTally.objects.get(expert=cast.experts[1], campaign=workspace.campaign).expired == 1


def test_pulling_work_through_serving_counts_it(workspace, cast):
    from tests.annotation.manage.helpers import qualify

    qualify(cast.expert)
    pulled = assign_next_response(expert=cast.expert, campaign=workspace.campaign)
    assert pulled is not None
    assert ResponseTally.objects.get(campaign_response_id=pulled.campaign_response_id).reserved == 1
    assert_true_tallies()


def test_bulk_pre_assignment_counts_every_row_it_copies(workspace, cast):
    made = bulk_assign(campaign=workspace.campaign).made
    assert made > 0
    counted = ExpertCampaignTally.objects.filter(campaign=workspace.campaign)
    assert sum(t.preassigned for t in counted) == sum(t.reserved for t in counted) == made
    assert_true_tallies()


def test_moving_work_to_another_expert_or_response_moves_its_counts(workspace, cast):
    a = judge_fully(workspace.reserve(cast.expert, "dm0001"))
    Assignment.objects.filter(pk=a.pk).update(expert=cast.experts[2])
    assert_true_tallies()
    Assignment.objects.filter(pk=a.pk).update(campaign_response=workspace.response_of("dm0003"))
    assert_true_tallies()
    Assignment.objects.filter(pk=a.pk).update(submitted_while_paused=True)
    assert ExpertCampaignTally.objects.get(expert=cast.experts[2], campaign=workspace.campaign).submitted_while_paused == 1
    assert_true_tallies()


def test_deleting_assignments_and_responses_takes_their_counts_away(workspace, cast):
    a = workspace.reserve(cast.expert, "dm0001")
    workspace.reserve(cast.expert, "dm0002")
    a.delete()
    assert_true_tallies()
    Assignment.objects.all().delete()
    CampaignResponse.objects.filter(campaign=workspace.campaign, item__question_id="dm0004").delete()
    assert_true_tallies()
    workspace.campaign.delete()
    assert not CampaignTally.objects.exists() and not ResponseTally.objects.exists()


def test_submissions_are_counted_per_hour_without_gold_checks_as_their_times_and_flags_change(workspace, cast):
    from annotation.models import SubmissionHour

    first = judge_fully(workspace.reserve(cast.expert, "dm0001"))
    second = judge_fully(workspace.reserve(cast.experts[1], "dm0001"))
    gold = judge_fully(workspace.reserve(cast.expert, "dm0002"))
    CampaignResponse.objects.filter(pk=gold.campaign_response_id).update(is_gold=True)  # its submission leaves the count
    assert_true_tallies()
    assert sum(SubmissionHour.objects.values_list("submitted", flat=True)) == 2
    earlier = timezone.now() - timedelta(days=3, hours=5)
    Assignment.objects.filter(pk=first.pk).update(submitted_at=earlier)  # moves to another hour
    assert_true_tallies()
    hour = earlier.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    assert SubmissionHour.objects.get(campaign=workspace.campaign, hour=hour).submitted == 1
    CampaignResponse.objects.filter(pk=gold.campaign_response_id).update(is_gold=False)  # and back in
    Assignment.objects.filter(pk=second.pk).update(status=Assignment.Status.RELEASED)  # out
    assert_true_tallies()
    assert sum(SubmissionHour.objects.values_list("submitted", flat=True)) == 2


@postgres_only()
def test_hours_are_utc_hours_whatever_the_sessions_time_zone(workspace, cast):
    from annotation.models import SubmissionHour

    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL TIME ZONE 'Asia/Kolkata'")  # half an hour off UTC: a local hour would cut elsewhere
    a = judge_fully(workspace.reserve(cast.expert, "dm0001"))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL TIME ZONE 'UTC'")
    a.refresh_from_db()
    assert list(SubmissionHour.objects.values_list("hour", flat=True)) == [a.submitted_at.replace(minute=0, second=0, microsecond=0)]
    assert_true_tallies()


def test_a_responses_order_key_and_extra_raters_are_copied_to_its_tally_when_they_change(workspace):
    """The pull's index reads them from the tally (`_pull_window`): an extension or a raw update reaches it."""
    cr = workspace.response_of("dm0001")
    assert ResponseTally.objects.get(campaign_response=cr).order_key == cr.order_key
    CampaignResponse.objects.filter(pk=cr.pk).update(extra_raters=2)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE annotation_campaignresponse SET order_key = order_key + 1 WHERE id = %s", [cr.pk])
    tally = ResponseTally.objects.get(campaign_response=cr)
    assert (tally.order_key, tally.extra_raters) == (cr.order_key + 1, 2)
    assert_true_tallies()


def test_raw_sql_writes_are_counted_too(workspace, cast):
    cr = workspace.response_of("dm0001")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO annotation_assignment (public_id, campaign_response_id, campaign_id, expert_id, status, reserved_at,"
            " active_seconds, submitted_while_paused, guidelines_source) VALUES (%s, %s, %s, %s, 'submitted', %s, 7, %s, '')",
            ["rawsqlrow", cr.pk, cr.campaign_id, cast.expert.pk, timezone.now(), False],
        )
    assert ResponseTally.objects.get(campaign_response=cr).submitted == 1
    assert_true_tallies()


def test_recount_rebuilds_tallies_that_went_wrong(workspace, cast):
    judge_fully(workspace.reserve(cast.expert, "dm0001"))
    ExpertCampaignTally.objects.update(submitted=99)
    ResponseTally.objects.update(reserved=5, order_key=1, extra_raters=7)
    tallies.recount(campaign_ids=[workspace.campaign.pk])
    assert_true_tallies()


@pytest.mark.django_db(transaction=True)
def test_a_campaign_restored_from_its_archive_has_its_tallies(workspace, cast, tmp_path, archive_key):
    judge_fully(workspace.reserve(cast.expert, "dm0001"))
    judge_fully(workspace.reserve(cast.experts[1], "dm0001"))
    workspace.reserve(cast.experts[2], "dm0002")
    before = tallies.tallies_as_counted()
    archive = tmp_path / "campaign.zip"
    call_command("export_campaign", workspace.campaign.name, "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    assert not ExpertCampaignTally.objects.exists()
    call_command("import_campaign", str(archive), verbosity=0)
    assert_true_tallies()
    # Same primary keys, so the very same tallies (experts are restored with their ids looked up by name).
    after = tallies.tallies_as_counted()
    assert after["campaigns"] == before["campaigns"] and after["responses"] == before["responses"]
    assert after["hours"] == before["hours"] and before["hours"]
    assert sorted(row[2:] for row in after["experts"]) == sorted(row[2:] for row in before["experts"])


def _submit_in_thread(assignment_id, barrier, errors):
    from annotation.models import Assignment as A

    try:
        barrier.wait(timeout=30)
        A.objects.filter(pk=assignment_id).update(status=A.Status.SUBMITTED, submitted_at=timezone.now())
    except Exception as exc:
        errors.append(repr(exc))
    finally:
        connection.close()


@postgres_only()
@pytest.mark.postgres
def test_concurrent_submissions_on_one_response_lose_no_count(transactional_db, workspace, cast):
    from heartbench_core.roles import Role
    from tests.conftest import make_user

    experts = [*cast.experts, *(make_user(f"extra_expert{i}", Role.EXPERT) for i in range(5))]
    cr = workspace.response_of("dm0001")
    ids = [Assignment.objects.create(campaign_response=cr, expert=e, expires_at=timezone.now() + timedelta(hours=1)).pk for e in experts]
    barrier, errors = threading.Barrier(len(ids)), []
    threads = [threading.Thread(target=_submit_in_thread, args=(pk, barrier, errors)) for pk in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert ResponseTally.objects.get(campaign_response=cr).submitted == len(ids)
    assert_true_tallies()


def test_folding_the_progress_moves_keeps_their_sums_in_one_row_per_state(workspace, cast):
    from annotation.models import Campaign, ProgressMove

    judge_fully(workspace.reserve(cast.expert, "dm0001"))
    workspace.reserve(cast.experts[1], "dm0002")
    before = tallies.progress([workspace.campaign.pk])
    assert ProgressMove.objects.filter(campaign_id=workspace.campaign.pk).count() > len(before)
    assert tallies.fold_progress() > 0
    assert tallies.progress([workspace.campaign.pk]) == before
    assert ProgressMove.objects.filter(campaign_id=workspace.campaign.pk).count() == len(before)
    assert_true_tallies()
    Assignment.objects.filter(campaign=workspace.campaign).delete()
    Campaign.objects.filter(pk=workspace.campaign.pk).delete()  # its responses and tallies go with it, recording no move
    tallies.fold_progress()
    assert not ProgressMove.objects.filter(campaign_id=workspace.campaign.pk).exists()
