"""The "needs action" home, the alerts and the reports give an admin who is also an expert nothing about their own campaign.

Dana is an admin and an expert of the open campaign C. Alerts about C (its gold, agreement among its
experts, its judge), about any campaign on C's dataset, or about Dana's own quality are left out of
her home, the alerts page and the API; so are reports and corrections on C's responses, and C's
progress (unfillable slots, schedule) is withheld. Her own "My reports" page names no model and
says nothing of gold checks.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.manage.needs_action_selectors import queue_counts
from annotation.models import AdminAlert, Campaign, CampaignResponse, ItemProblemReport
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import report_item_problem
from heartbench_core.models import LanguageModel
from heartbench_core.roles import Role
from tests.annotation.manage.helpers import MODELS, demo_campaign, qualify
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db

SECRET = "ALERT-ABOUT-C-3f9"


@pytest.fixture
def world(cast):
    dana = make_user("dana_dual", Role.EXPERT, Role.ADMIN)
    qualify(dana)
    c = demo_campaign(cast, name="C open", experts=[*cast.experts, dana])
    Campaign.objects.filter(pk=c.pk).update(deadline=timezone.now() + timedelta(days=2))
    same_dataset = create_campaign(
        name="D same dataset",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    demo_version("demo-elsewhere")
    demo_responses("demo-elsewhere", models=MODELS)
    other = create_campaign(
        name="E other",
        dataset_name="demo-elsewhere",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    model = LanguageModel.objects.get(name=MODELS[0])
    AdminAlert.objects.create(kind=AdminAlert.Kind.CRITERION_LOW_ALPHA, campaign=c, key="c", message=f"{SECRET} alpha")
    AdminAlert.objects.create(kind=AdminAlert.Kind.EXPERT_DRIFT, expert=dana, key="dana", message=f"{SECRET} dana drifts")
    AdminAlert.objects.create(
        kind=AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL,
        campaign=same_dataset,
        language_model=model,
        key="d-model",
        message=f"{SECRET} judge",
    )
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, campaign=other, expert=cast.experts[1], message="visible to both")
    theirs = assign_next_response(expert=cast.experts[1], campaign=c)
    report_item_problem(assignment=theirs, expert=cast.experts[1], comment=f"{SECRET} comment on C")
    return dana, c, other


def test_her_home_leaves_out_everything_about_her_campaign(cast, client_for, world):
    dana, _c, _other = world
    page = client_for(dana).get(reverse("annotation:needs_action")).content.decode()
    assert SECRET not in page and "visible to both" in page
    assert "You are an expert in this campaign" in page  # C's slots and schedule are withheld, saying why
    counts = queue_counts(dana)
    assert counts.alerts == 1 and counts.problem_reports == 0
    # Another admin sees all of it.
    full = client_for(cast.admin).get(reverse("annotation:needs_action")).content.decode()
    assert full.count(SECRET) >= 4


def test_the_alerts_page_and_api_leave_them_out_and_refuse_to_resolve_them(cast, client_for, world):
    dana, _c, _other = world
    client = client_for(dana)
    assert SECRET not in client.get(reverse("annotation:alerts") + "?all=1").content.decode()
    api = client.get("/api/v1/annotation/manage/alerts/?all=1").content.decode()
    assert SECRET not in api and "visible to both" in api
    hidden = AdminAlert.objects.get(key="c")
    assert client.post(reverse("annotation:alert_resolve", args=[hidden.pk])).status_code == 404
    assert client.post(f"/api/v1/annotation/manage/alerts/{hidden.pk}/resolve/").status_code == 404
    assert AdminAlert.objects.get(key="c").resolved_at is None


def test_a_report_on_her_campaign_is_closed_to_her(cast, client_for, world):
    dana, _c, _other = world
    report = ItemProblemReport.objects.get()
    client = client_for(dana)
    assert client.get(reverse("annotation:report", args=["problem", report.pk])).status_code == 403
    assert client.post(reverse("annotation:report", args=["problem", report.pk]), {"reply": "ok"}).status_code == 403
    assert client.post(f"/api/v1/annotation/manage/reports/problem/{report.pk}/resolve/", {"reply": "ok"}).status_code == 403
    assert ItemProblemReport.objects.get().resolved_at is None


def test_her_badge_costs_a_fixed_number_of_queries(world, django_assert_num_queries):
    dana, _c, _other = world
    dana.refresh_from_db()
    # Roles, whether she is in the expert group, her open campaigns and their models, then the five counts in one query.
    with django_assert_num_queries(4):
        queue_counts(dana)


def test_her_own_reports_name_no_model_and_no_gold(cast, client_for, world):
    dana, c, _other = world
    mine = assign_next_response(expert=dana, campaign=c)
    CampaignResponse.objects.filter(pk=mine.campaign_response_id).update(is_gold=True)  # even a report on a hidden gold check
    report_item_problem(assignment=mine, expert=dana, comment="Cut off at the end.")
    ItemProblemReport.objects.filter(assignment=mine).update(reply="Thanks, judge it as shown.", resolved_at=timezone.now())
    for url in (reverse("annotation:my_reports"), "/api/v1/annotation/my-reports/"):
        page = client_for(dana).get(url).content.decode()
        assert "Cut off at the end." in page and "Thanks, judge it as shown." in page
        lowered = page.lower()
        assert "gold" not in lowered and not any(m in lowered for m in MODELS)
        assert SECRET not in page  # another rater's report is not hers
