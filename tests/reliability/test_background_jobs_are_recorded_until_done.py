"""Requested reports and golden-label refreshes are database rows, run exactly once, and swept until done:
no broker message lost with a dead worker, and no broker outage, loses the work."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.validation.builders import blind_test
from validation.models import AgreementReport, BackgroundJob, ReleaseGate
from validation.services import jobs
from validation.services.agreement_reports import request_agreement_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(monkeypatch):
    """The broker as a list of the job ids handed to it (no worker runs them)."""
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: sent.append((func, *args)))
    return sent


def request(cast, campaign, capture, **options):
    with capture(execute=True):
        return request_agreement_report(campaign=campaign, requested_by=cast.admin, trigger="api", **options).job


def as_if_its_worker_died(job, *, attempts=1):
    """What a SIGKILLed worker leaves: the job claimed, running, under a lease that has now expired."""
    BackgroundJob.objects.filter(pk=job.pk).update(
        status="running", attempts=attempts, locked_until=timezone.now() - timedelta(seconds=1), started_at=timezone.now()
    )


def test_a_requested_report_is_recorded_as_a_pending_job_and_its_id_sent_after_commit(cast, broker, django_capture_on_commit_callbacks):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks, resamples=30)
    job.refresh_from_db()
    assert (job.kind, job.status, job.attempts, job.requested_by, job.trigger) == ("agreement_report", "pending", 0, cast.admin, "api")
    assert job.parameters["resamples"] == 30 and job.parameters["judge"] is None
    assert job.enqueued_at is not None
    assert broker == [("validation.tasks.run_background_job", job.pk)]
    assert not AgreementReport.objects.exists()


def test_running_a_job_stores_one_report_linked_to_it_and_a_second_delivery_does_nothing(cast, broker, django_capture_on_commit_callbacks):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks, resamples=30)
    jobs.run_background_job(job_id=job.pk)
    assert jobs.run_background_job(job_id=job.pk) is None  # the broker delivered it twice
    job.refresh_from_db()
    report = AgreementReport.objects.get()
    assert (job.status, job.attempts, job.report, job.locked_until, job.last_error) == ("done", 1, report, None, "")
    assert report.trigger == "api" and report.requested_by == cast.admin and report.typed_parameters.resamples == 30


def test_the_sweep_hands_a_job_whose_worker_died_to_the_broker_again_and_it_completes_once(
    cast, broker, django_capture_on_commit_callbacks
):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks)
    broker.clear()
    as_if_its_worker_died(job)
    assert jobs.sweep_background_jobs() == 1
    assert broker == [("validation.tasks.run_background_job", job.pk)]
    jobs.run_background_job(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    assert AgreementReport.objects.count() == 1 and ReleaseGate.objects.count() == 1


def test_a_job_under_a_live_lease_is_neither_swept_nor_taken_by_a_second_worker(cast, broker, django_capture_on_commit_callbacks):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks)
    broker.clear()
    BackgroundJob.objects.filter(pk=job.pk).update(
        status="running", attempts=1, locked_until=timezone.now() + jobs.lease(), enqueued_at=timezone.now()
    )
    assert jobs.sweep_background_jobs() == 0 and broker == []
    assert jobs.run_background_job(job_id=job.pk) is None
    assert not AgreementReport.objects.exists()


def test_a_pending_job_whose_message_was_lost_is_swept_once_a_lease_has_passed(cast, broker, django_capture_on_commit_callbacks):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks)
    broker.clear()
    assert jobs.sweep_background_jobs() == 0  # just handed to the broker: give it a lease to start
    BackgroundJob.objects.filter(pk=job.pk).update(enqueued_at=timezone.now() - jobs.lease() - timedelta(seconds=1))
    assert jobs.sweep_background_jobs() == 1
    assert broker == [("validation.tasks.run_background_job", job.pk)]


def test_a_broker_that_is_down_when_the_request_commits_is_no_error_and_the_sweep_queues_the_job(
    cast, monkeypatch, django_capture_on_commit_callbacks
):
    def down(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    campaign = blind_test(cast)
    monkeypatch.setattr("django_q.tasks.async_task", down)
    job = request(cast, campaign, django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert job.status == "pending"
    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: sent.append(args))
    BackgroundJob.objects.filter(pk=job.pk).update(enqueued_at=timezone.now() - jobs.lease() - timedelta(seconds=1))
    assert jobs.sweep_background_jobs() == 1 and sent == [(job.pk,)]


def test_a_job_whose_worker_died_every_time_is_failed_with_a_reason_instead_of_retried_for_ever(
    cast, broker, django_capture_on_commit_callbacks
):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks)
    as_if_its_worker_died(job, attempts=jobs.MAX_ATTEMPTS)
    assert jobs.run_background_job(job_id=job.pk) is None
    job.refresh_from_db()
    assert job.status == "failed" and f"{jobs.MAX_ATTEMPTS} times" in job.last_error and job.locked_until is None
    assert not AgreementReport.objects.exists()
    assert jobs.sweep_background_jobs() == 0


def test_a_job_that_cannot_succeed_fails_at_once_with_the_error(cast, broker, django_capture_on_commit_callbacks):
    campaign = blind_test(cast)
    job = jobs.record_job(kind="agreement_report", campaign=campaign, parameters={"resamples": -1}, requested_by=cast.admin)
    jobs.run_background_job(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 1)
    assert "resamples" in job.last_error
    assert not AgreementReport.objects.exists()


def test_an_unexpected_error_puts_the_job_back_to_wait_with_the_error_and_the_sweep_retries_it(
    cast, broker, monkeypatch, django_capture_on_commit_callbacks
):
    campaign = blind_test(cast)
    job = request(cast, campaign, django_capture_on_commit_callbacks)

    def dropped(job):
        raise ConnectionResetError("server closed the connection unexpectedly")

    monkeypatch.setitem(jobs.RUNNERS, "agreement_report", dropped)
    jobs.run_background_job(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.locked_until) == ("pending", 1, None)
    assert "server closed the connection" in job.last_error
    monkeypatch.undo()
    monkeypatch.setattr("django_q.tasks.async_task", lambda *a, **k: None)
    assert jobs.sweep_background_jobs() == 1  # at the next sweep, not a lease later
    jobs.run_background_job(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2) and AgreementReport.objects.count() == 1


def test_only_one_golden_refresh_per_campaign_waits_and_one_arriving_while_it_runs_is_recorded(
    cast, broker, django_capture_on_commit_callbacks
):
    campaign = blind_test(cast)
    with django_capture_on_commit_callbacks(execute=True):
        first = jobs.request_golden_refresh(campaign=campaign)
        assert jobs.request_golden_refresh(campaign=campaign) is None
    assert jobs.claim_job(job_id=first.pk) is not None  # now running: a new submission needs a new refresh
    second = jobs.request_golden_refresh(campaign=campaign)
    assert second is not None and second.pk != first.pk
    assert BackgroundJob.objects.filter(campaign=campaign, kind="golden_refresh", status="pending").count() == 1


def test_a_golden_refresh_job_writes_the_golden_labels(cast, broker):
    from validation.models import GoldenLabel

    campaign = blind_test(cast)
    job = jobs.request_golden_refresh(campaign=campaign)
    assert not GoldenLabel.objects.exists()
    jobs.run_background_job(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "done" and GoldenLabel.objects.filter(campaign=campaign).exists()


def test_a_migration_schedules_the_sweep_every_minute_once():
    import importlib

    from django.apps import apps
    from django_q.models import Schedule

    # Called directly: a transactional test elsewhere may have flushed the rows the migration wrote.
    migration = importlib.import_module("validation.migrations.0003_background_jobs")
    Schedule.objects.filter(func=migration.SWEEP).delete()
    migration.schedule_sweep(apps, None)
    migration.schedule_sweep(apps, None)
    sweep = Schedule.objects.get(func="validation.tasks.sweep_background_jobs")
    assert (sweep.schedule_type, sweep.minutes, sweep.repeats) == ("I", 1, -1)
