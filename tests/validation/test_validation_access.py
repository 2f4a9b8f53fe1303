"""Who sees what: the dashboard, exports and reports are for admins; experts and outsiders see none of it."""

import pytest

from tests.validation.builders import blind_test
from validation.models import AgreementReport, ReleaseGate
from validation.services.agreement_reports import create_agreement_report


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast)
    create_agreement_report(campaign=campaign, resamples=50)
    return campaign


def admin_urls(campaign):
    report = AgreementReport.objects.get()
    c = campaign.pk
    return [
        "/validation/",
        f"/validation/campaigns/{c}/",
        f"/validation/campaigns/{c}/reports/{report.pk}/",
        f"/validation/campaigns/{c}/export/judgments.csv",
        f"/validation/campaigns/{c}/export/golden.jsonl",
        f"/validation/campaigns/{c}/export/report.csv",
        f"/api/v1/validation/campaigns/{c}/reports/",
        f"/api/v1/validation/reports/{report.pk}/",
        f"/api/v1/validation/campaigns/{c}/golden-labels/",
    ]


def reviewer_urls(campaign):
    return [f"/validation/campaigns/{campaign.pk}/adjudication/", f"/api/v1/validation/campaigns/{campaign.pk}/queue/"]


class TestAccess:
    def test_experts_and_outsiders_are_refused_everywhere(self, cast, campaign, client_for):
        for user in (*cast.experts, cast.outsider):
            client = client_for(user)
            for url in admin_urls(campaign) + reviewer_urls(campaign):
                response = client.get(url)
                assert response.status_code == 403, (user.username, url)
                body = response.content.decode()
                assert "demo-model" not in body and "item_agreement" not in body

    def test_an_expert_cannot_compute_a_report(self, cast, campaign, client_for):
        client = client_for(cast.expert)
        assert client.post(f"/validation/campaigns/{campaign.pk}/compute/").status_code == 403
        assert client.post(f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {"wait": True}).status_code == 403
        assert AgreementReport.objects.count() == 1

    def test_senior_reviewers_reach_adjudication_but_not_the_dashboard(self, cast, campaign, client_for):
        client = client_for(cast.reviewer)
        for url in reviewer_urls(campaign):
            assert client.get(url).status_code == 200
        for url in admin_urls(campaign):
            assert client.get(url).status_code == 403, url

    def test_anonymous_visitors_are_sent_to_login(self, campaign, client):
        response = client.get(f"/validation/campaigns/{campaign.pk}/")
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


class TestDashboard:
    def test_admins_see_the_headline_gate_charts_alerts_and_queue(self, cast, campaign, client_for, django_assert_max_num_queries):
        client = client_for(cast.admin)
        client.get(f"/validation/campaigns/{campaign.pk}/")  # the first view computes and stores the queue's figures
        with django_assert_max_num_queries(30):
            page = client.get(f"/validation/campaigns/{campaign.pk}/").content.decode()
        report = AgreementReport.objects.get()
        assert f"{report.typed_result.item_agreement.rate.value:.3f}" in page
        assert 'id="gate"' in page and "Risk alerts" in page and "Adjudication queue" in page
        assert page.count("<svg") >= 5

    def test_the_history_partial_is_served_to_htmx(self, cast, campaign, client_for):
        response = client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/?part=history", HTTP_HX_REQUEST="true")
        body = response.content.decode()
        assert 'id="report-history"' in body and "<html" not in body

    @pytest.mark.parametrize("part", ["history", "jobs"])
    def test_the_polled_partials_build_no_charts_queue_or_exposures(self, cast, campaign, client_for, part, django_assert_max_num_queries):
        from heartbench_core.models import StaffExposure

        client = client_for(cast.admin)
        client.get("/")  # the session's first request pays for its own setup
        with django_assert_max_num_queries(8):
            response = client.get(f"/validation/campaigns/{campaign.pk}/?part={part}", HTTP_HX_REQUEST="true")
        assert response.status_code == 200 and "<html" not in response.content.decode()
        assert not StaffExposure.objects.filter(user=cast.admin).exists()

    def test_computing_from_the_page_queues_a_job(self, cast, campaign, client_for, monkeypatch, django_capture_on_commit_callbacks):
        from django_q.conf import Conf

        monkeypatch.setattr(Conf, "SYNC", True)
        with django_capture_on_commit_callbacks(execute=True):
            response = client_for(cast.admin).post(f"/validation/campaigns/{campaign.pk}/compute/", {"resamples": "40", "threshold": "0.6"})
        assert response.status_code == 302
        newest = AgreementReport.objects.order_by("-id").first()
        assert newest.typed_parameters.resamples == 40 and newest.typed_parameters.threshold == 0.6 and newest.trigger == "page"
        assert newest.exploratory and not ReleaseGate.objects.filter(report=newest).exists()  # not the release policy's parameters

    def test_bad_form_values_are_reported_and_nothing_is_queued(self, cast, campaign, client_for):
        response = client_for(cast.admin).post(f"/validation/campaigns/{campaign.pk}/compute/", {"threshold": "7"}, HTTP_HX_REQUEST="true")
        assert response.status_code == 400 and "threshold" in response.content.decode()

    def test_exports_carry_judgments_golden_labels_and_the_report(self, cast, campaign, client_for):
        client = client_for(cast.admin)
        judgments = b"".join(client.get(f"/validation/campaigns/{campaign.pk}/export/judgments.csv").streaming_content).decode()
        lines = judgments.strip().splitlines()
        assert lines[0].startswith("response,question_id,model,expert")
        from annotation.models import Judgment

        assert len(lines) - 1 == Judgment.objects.count()
        golden = b"".join(client.get(f"/validation/campaigns/{campaign.pk}/export/golden.jsonl").streaming_content).decode()
        import json

        first = json.loads(golden.splitlines()[0])
        assert first["provenance"] in ("unanimous", "majority") and isinstance(first["hit"], bool)
        report = client.get(f"/validation/campaigns/{campaign.pk}/export/report.jsonl").content.decode()
        # The export is the stored JSON (its keys are the contract); the figure it carries is the typed report's.
        assert json.loads(report)["item_agreement"]["rate"]["value"] == AgreementReport.objects.get().typed_result.item_agreement.rate.value

    def test_the_api_computes_a_report_on_request(self, cast, campaign, client_for):
        response = client_for(cast.admin).post(
            f"/api/v1/validation/campaigns/{campaign.pk}/reports/", {"wait": True, "resamples": 30}, content_type="application/json"
        )
        assert response.status_code == 201
        body = response.json()
        assert body["result"]["parameters"]["resamples"] == 30 and "gate" in body["result"]
