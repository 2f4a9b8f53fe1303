"""Whoever requested a report can follow it: the API answers with the job, whose state it serves, and the
dashboard lists requests not yet stored, with the error of a failed one."""

import pytest

from tests.validation.builders import blind_test
from validation.models import AgreementReport, BackgroundJob
from validation.services import jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(cast):
    return blind_test(cast)


@pytest.fixture
def no_worker(monkeypatch):
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: None)


def test_queueing_a_report_through_the_api_answers_with_its_job_and_the_job_says_pending_then_done(
    cast, campaign, client_for, no_worker, django_capture_on_commit_callbacks
):
    client = client_for(cast.admin)
    with django_capture_on_commit_callbacks(execute=True):
        queued = client.post(f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {"resamples": 30}, content_type="application/json")
    assert queued.status_code == 202
    job_id = queued.json()["job"]
    assert queued.json()["job_url"].endswith(f"/api/v1/validation/jobs/{job_id}/")
    pending = client.get(f"/api/v1/validation/jobs/{job_id}/").json()
    assert (pending["status"], pending["kind"], pending["requested_by"], pending["report"]) == (
        "pending",
        "agreement_report",
        cast.admin.username,
        None,
    )

    jobs.run_background_job(job_id=job_id)
    done = client.get(f"/api/v1/validation/jobs/{job_id}/").json()
    report = AgreementReport.objects.get()
    assert (done["status"], done["attempts"], done["report"]) == ("done", 1, report.pk)
    assert done["report_url"].endswith(f"/api/v1/validation/reports/{report.pk}/")


def test_a_failed_job_shows_its_error_in_the_api_and_on_the_dashboard(cast, campaign, client_for, no_worker):
    job = jobs.record_job(kind="agreement_report", campaign=campaign, parameters={"threshold": 2}, requested_by=cast.admin)
    jobs.run_background_job(job_id=job.pk)
    client = client_for(cast.admin)
    answer = client.get(f"/api/v1/validation/jobs/{job.pk}/").json()
    assert answer["status"] == "failed" and answer["last_error"].startswith("threshold:")
    page = client.get(f"/validation/campaigns/{campaign.pk}/?part=jobs", HTTP_HX_REQUEST="true").content.decode()
    assert f'data-job="{job.pk}" data-status="failed"' in page and "threshold:" in page


def test_the_dashboard_lists_a_waiting_request_and_drops_it_once_its_report_is_stored(cast, campaign, client_for, no_worker):
    job = jobs.record_job(kind="agreement_report", campaign=campaign, requested_by=cast.admin)
    client = client_for(cast.admin)
    assert f'data-job="{job.pk}" data-status="pending"' in client.get(f"/validation/campaigns/{campaign.pk}/").content.decode()
    jobs.run_background_job(job_id=job.pk)
    assert BackgroundJob.objects.get().status == "done"
    assert 'data-job="' not in client.get(f"/validation/campaigns/{campaign.pk}/").content.decode()


def test_an_expert_cannot_read_a_job(cast, campaign, client_for, no_worker):
    job = jobs.record_job(kind="agreement_report", campaign=campaign, requested_by=cast.admin)
    assert client_for(cast.expert).get(f"/api/v1/validation/jobs/{job.pk}/").status_code == 403


def test_requesting_a_report_on_the_page_names_the_request_and_lists_it_until_stored(
    cast, campaign, client_for, no_worker, django_capture_on_commit_callbacks
):
    client = client_for(cast.admin)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/validation/campaigns/{campaign.pk}/compute/", {"resamples": "30"}, HTTP_HX_REQUEST="true")
    job = BackgroundJob.objects.get()
    assert answer.status_code == 200 and f"request #{job.pk}" in answer.content.decode()
    listed = client.get(f"/validation/campaigns/{campaign.pk}/?part=jobs", HTTP_HX_REQUEST="true").content.decode()
    assert f'data-job="{job.pk}" data-status="pending"' in listed
