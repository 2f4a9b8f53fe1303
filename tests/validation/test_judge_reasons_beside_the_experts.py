"""In adjudication and in the adjudication queue (the disagreement list), the judge's own reason for its verdict on the
criterion is shown next to the experts' rationales — to the roles that may adjudicate, never to an expert of the campaign."""

import pytest
from django.core.management import call_command

from annotation.models import CampaignResponse
from heartbench_core.judging.services.endpoints import save_endpoint
from heartbench_core.models import JudgeVerdict
from tests.conftest import make_user
from tests.fake_openai import FakeChatServer, Reply, alternating, criteria_count, platform_answer
from tests.validation.builders import MODELS, blind_test

pytestmark = pytest.mark.django_db


def _reasoning_judge(body, attempt):
    n = criteria_count(body)
    return Reply(platform_answer(alternating(n), [f"评审理由-第{i + 1}项：回复里有明确依据" for i in range(n)]))


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast, with_judge=False)
    with FakeChatServer(_reasoning_judge) as server:
        save_endpoint(name="judge-a", base_url=server.base_url, model="fake-judge")
        for model in MODELS:
            call_command("judge", "--dataset", "demo", "--model", model, "--endpoint", "judge-a")
    return campaign


def test_the_adjudication_page_shows_the_judge_s_reason_for_the_criterion(campaign, cast, client_for):
    entry = CampaignResponse.objects.filter(campaign=campaign, is_gold=False).select_related("item").order_by("pk").first()
    criterion = entry.item.criteria.order_by("position")[1]
    page = client_for(cast.reviewer).get(f"/validation/campaigns/{campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "评审理由-第2项：回复里有明确依据" in text and "fake-judge/heartbench-zh-r1" in text and "heartbench-zh r1" in text
    assert "reason 1" in text  # the experts' rationales, beside it


def test_the_queue_page_and_api_carry_the_judge_s_reason_of_each_unit(campaign, cast, client_for):
    client = client_for(cast.reviewer)
    page = client.get(f"/validation/campaigns/{campaign.pk}/adjudication/?show=all").content.decode()
    assert "评审理由-第1项" in page
    body = client.get(f"/api/v1/validation/campaigns/{campaign.pk}/queue/?show=all").json()
    judged = [r for r in body["results"] if r["judge_hit"] is not None]
    assert judged
    for row in judged:
        entry = CampaignResponse.objects.get(pk=row["campaign_response_id"])
        verdict = JudgeVerdict.objects.get(response_id=entry.response_id, criterion_id=row["criterion_id"])
        assert row["judge_reason"] == verdict.rationale and verdict.rationale.startswith("评审理由-第")


def test_an_expert_of_the_campaign_who_may_adjudicate_sees_no_reason(campaign, cast, client_for):
    from annotation.models import Assignment
    from heartbench_core.roles import Role

    reviewer = make_user("reviewer_and_expert", Role.SENIOR_REVIEWER, Role.EXPERT)
    campaign.experts.add(reviewer)
    campaign.status = "active"
    campaign.save(update_fields=["status"])

    entry = CampaignResponse.objects.filter(campaign=campaign, is_gold=False).order_by("pk").first()
    Assignment.objects.create(campaign_response=entry, expert=reviewer, expires_at=None)
    client = client_for(reviewer)
    criterion = entry.item.criteria.order_by("position").first()
    for url in (
        f"/validation/campaigns/{campaign.pk}/adjudication/",
        f"/validation/campaigns/{campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/",
        f"/api/v1/validation/campaigns/{campaign.pk}/queue/?show=all",
    ):
        response = client.get(url)
        assert response.status_code == 403 and "评审理由" not in response.content.decode(), url
