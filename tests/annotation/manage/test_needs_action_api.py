"""The API of the "needs action" home: its counts, replying to a report, and an expert's own reports."""

import pytest

from annotation.models import AdminAlert, ItemProblemReport
from annotation.services.assignment import assign_next_response
from annotation.services.workspace import report_item_problem

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def report(cast):
    campaign = demo_campaign(cast)
    mine = assign_next_response(expert=cast.expert, campaign=campaign)
    return report_item_problem(assignment=mine, expert=cast.expert, comment="The response is cut off.")


def test_the_counts_match_the_page(cast, client_for, report):
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, expert=cast.expert, message="x")
    data = client_for(cast.admin).get("/api/v1/annotation/manage/needs-action/").json()
    assert data["problem_reports"] == 1 and data["alerts"] == 1 and data["total"] == 2
    assert data["unfillable_slots"] == 0 and data["behind_schedule"] == 0
    assert [s["key"] for s in data["sections"]] == ["release_gates"]


def test_an_admin_replies_through_the_api_and_the_expert_reads_it(cast, client_for, report):
    url = f"/api/v1/annotation/manage/reports/problem/{report.pk}/resolve/"
    response = client_for(cast.admin).post(url, {"reply": ""}, content_type="application/json")
    assert response.status_code == 400 and "reply" in response.json()
    response = client_for(cast.admin).post(url, {"reply": "Judge it as shown."}, content_type="application/json")
    assert response.status_code == 200 and response.json()["resolved_at"]
    assert client_for(cast.admin).post(url, {"reply": "again"}, content_type="application/json").status_code == 400
    mine = client_for(cast.expert).get("/api/v1/annotation/my-reports/").json()["results"]
    assert [(r["kind"], r["comment"], r["reply"]) for r in mine] == [("problem", "The response is cut off.", "Judge it as shown.")]
    assert ItemProblemReport.objects.get().resolved_by == cast.admin


def test_an_unknown_kind_is_not_found(cast, client_for, report):
    response = client_for(cast.admin).post(f"/api/v1/annotation/manage/reports/other/{report.pk}/resolve/", {"reply": "x"})
    assert response.status_code == 404
