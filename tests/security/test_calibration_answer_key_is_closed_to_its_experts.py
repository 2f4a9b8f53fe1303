"""Others' calibration feedback is the answer key: closed to an admin who is an expert of the open calibration.

Feedback on each miss names the gold verdict and its explanation. An admin who may take the
calibration (it admits every expert) must not read it in the calibration-results API; an admin
who may read it has the calibration's responses recorded as exposures, never to be served them.
"""

import pytest
from django.test import Client

from annotation.models import CalibrationResult, Campaign, CampaignResponse
from annotation.services.campaigns import set_campaign_status
from heartbench_core.models import ModelResponse, StaffExposure
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db

ANSWER = "CALIBRATION-ANSWER-KEY-6b0"


@pytest.fixture
def calibration(cast):
    version = demo_version()
    demo_responses()
    campaign = Campaign.objects.create(name="cal", kind=Campaign.Kind.CALIBRATION, version=version)  # lists nobody: every expert
    response = ModelResponse.objects.order_by("pk").first()
    CampaignResponse.objects.create(campaign=campaign, response=response, item=version.items.get(question_id=response.question_id))
    CalibrationResult.objects.create(
        campaign=campaign,
        expert=cast.experts[1],
        threshold=0.8,
        score=0.5,
        agreed=1,
        compared=2,
        feedback=[
            {
                "position": 0,
                "ability": "共情",
                "ability_name": "Empathy",
                "dimension": "Emotion",
                "text": "criterion",
                "expert_hit": False,
                "gold_hit": True,
                "explanation": ANSWER,
                "rationale": "mine",
                "agreed": False,
            }
        ],
    )
    return campaign


def _get(user, path):
    client = Client()
    client.force_login(user)
    return client.get(path)


def test_an_admin_who_may_take_the_calibration_does_not_see_others_feedback(calibration, cast):
    dual = make_user("dana_admin_expert", Role.ADMIN, Role.EXPERT)
    listed = _get(dual, "/api/v1/annotation/calibration-results/")
    assert listed.status_code == 200 and ANSWER not in listed.content.decode()
    result = CalibrationResult.objects.get()
    assert _get(dual, f"/api/v1/annotation/calibration-results/{result.pk}/").status_code == 404
    assert ANSWER in _get(cast.admin, "/api/v1/annotation/calibration-results/").content.decode()


def test_an_admin_who_reads_others_feedback_is_never_served_those_responses(calibration, cast):
    _get(cast.admin, "/api/v1/annotation/calibration-results/")
    responses = set(CampaignResponse.objects.filter(campaign=calibration).values_list("response_id", flat=True))
    recorded = set(StaffExposure.objects.filter(user=cast.admin, via="api-calibration-results").values_list("response_id", flat=True))
    assert recorded == responses


def test_the_feedback_opens_once_the_calibration_closes(calibration):
    dual = make_user("dana_admin_expert", Role.ADMIN, Role.EXPERT)
    set_campaign_status(campaign=calibration, status=Campaign.Status.CLOSED)
    assert ANSWER in _get(dual, "/api/v1/annotation/calibration-results/").content.decode()
