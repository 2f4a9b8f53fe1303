"""The last response of a calibration attempt leads straight to that attempt's result: the score against the pass mark,
passed or not, each difference from the reference with its explanation, when a retake opens and what follows; the home
page then links to that result instead of offering the calibration again."""

import re

import pytest
from django.urls import reverse

from annotation.models import Assignment, CalibrationResult, Campaign
from annotation.services.campaigns import create_calibration, create_campaign
from tests.annotation.manage.helpers import age_calibration, gold_file, more_experts, qualify
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def calibration(cast) -> Campaign:
    version = demo_version()
    demo_responses()
    return create_calibration(name="Calibration A", dataset_name="demo", source=gold_file(version), pass_threshold=0.8).campaign


def take_through_the_pages(client, calibration: Campaign, *, wrong: int) -> str:
    """Take the whole sitting as the pages do (criterion i is a hit when i is even, like gold, but for the first `wrong`);
    the address the last submission leads to."""
    url = client.post(reverse("annotation:next_response", args=[calibration.pk])).url
    while (match := re.fullmatch(r"/work/a/([^/]+)/", url)) is not None:
        assignment = Assignment.objects.get(public_id=match.group(1))
        data = {"version": str(assignment.draft_version), "active_seconds": "30"}
        for i, c in enumerate(assignment.campaign_response.item.criteria.order_by("position")):
            hit = (c.position % 2 == 0) != (i < wrong)
            data.update({f"rationale-{c.pk}": "A long enough rationale", f"hit-{c.pk}": "hit" if hit else "miss"})
        response = client.post(reverse("annotation:judge_submit", args=[assignment.public_id]), data)
        assert response.status_code == 302, response.content.decode()[:500]
        url = response.url
    return url


def test_the_last_response_of_a_failed_attempt_leads_to_its_result(cast, calibration, client_for):
    client = client_for(cast.expert)
    landed = take_through_the_pages(client, calibration, wrong=3)
    result = CalibrationResult.objects.get(expert=cast.expert, campaign=calibration)
    assert landed == reverse("annotation:calibration_feedback", args=[result.pk])
    page = client.get(landed).content.decode()
    assert "Your score: 54% · pass mark: 80%" in page
    assert "not passed" in page
    # Each difference from the reference, with the calibration set's explanation.
    assert page.count('class="criterion"') == 6
    assert "gold note 0" in page
    assert "A failed attempt qualifies for nothing" in page
    assert "A retake opens on" in page and "1 attempt left" in page
    assert reverse("annotation:next_response", args=[calibration.pk]) not in page


def test_the_home_page_links_to_the_finished_attempt_instead_of_offering_the_calibration_again(cast, calibration, client_for):
    client = client_for(cast.expert)
    take_through_the_pages(client, calibration, wrong=3)
    result = CalibrationResult.objects.get(expert=cast.expert)
    home = client.get(reverse("annotation:home")).content.decode()
    assert reverse("annotation:calibration_feedback", args=[result.pk]) in home
    assert "Attempt 1: 54%, pass mark 80%." in home
    assert "retake from" in home
    assert "Take calibration" not in home
    assert reverse("annotation:next_response", args=[calibration.pk]) not in home


def test_once_the_cooldown_has_run_the_result_and_the_home_page_offer_the_retake(cast, calibration, client_for):
    client = client_for(cast.expert)
    take_through_the_pages(client, calibration, wrong=3)
    age_calibration(cast.expert, calibration, days=1.5)
    result = CalibrationResult.objects.get(expert=cast.expert)
    page = client.get(reverse("annotation:calibration_feedback", args=[result.pk])).content.decode()
    assert "A retake is open now; you have 1 attempt left." in page
    assert reverse("annotation:next_response", args=[calibration.pk]) in page
    assert "Retake the calibration" in client.get(reverse("annotation:home")).content.decode()
    # The retake starts from the result page; its last response leads to the second attempt's result.
    landed = take_through_the_pages(client, calibration, wrong=0)
    second = CalibrationResult.objects.get(expert=cast.expert, attempt=2)
    assert landed == reverse("annotation:calibration_feedback", args=[second.pk])
    assert "See your latest result" in client.get(reverse("annotation:calibration_feedback", args=[result.pk])).content.decode()


def test_a_passed_attempt_names_the_campaigns_that_now_offer_work(cast, calibration, client_for):
    others = more_experts(1)
    qualify(*others)
    blind = create_campaign(
        name="Blind test North",
        dataset_name="demo",
        model_names=["demo-model-aurora"],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.expert.username, others[0].username],
    ).campaign
    client = client_for(cast.expert)
    page = client.get(take_through_the_pages(client, calibration, wrong=0)).content.decode()
    assert "Your score: 100% · pass mark: 80%" in page
    assert "No miss: you agreed with the reference on every criterion." in page
    assert "These campaigns offer you work now:" in page and blind.name in page


def test_an_expert_reads_only_their_own_results(cast, calibration, client_for):
    take_through_the_pages(client_for(cast.expert), calibration, wrong=3)
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert client_for(cast.experts[1]).get(reverse("annotation:calibration_feedback", args=[result.pk])).status_code == 404
    assert client_for(cast.expert).get(reverse("annotation:calibration_feedback", args=[result.pk + 1000])).status_code == 404


def test_the_api_names_the_attempt_the_last_submission_finished(cast, calibration, client_for):
    client = client_for(cast.expert)
    answers = []
    while True:
        nxt = client.post(reverse("api-ws-next"), {"campaign": calibration.pk}, content_type="application/json")
        if nxt.status_code != 200:
            break
        assignment = Assignment.objects.get(public_id=nxt.json()["id"])
        judgments = [
            {"criterion": c.pk, "rationale": "A long enough rationale", "hit": c.position % 2 == 1}
            for c in assignment.campaign_response.item.criteria.order_by("position")
        ]
        answers.append(
            client.post(
                reverse("api-ws-submit", args=[assignment.public_id]),
                {"judgments": judgments, "version": assignment.draft_version},
                content_type="application/json",
            ).json()
        )
    result = CalibrationResult.objects.get(expert=cast.expert)
    assert [a["calibration_result"] for a in answers] == [None] * (len(answers) - 1) + [result.pk]
    body = client.get(reverse("api-calibration-result-detail", args=[result.pk])).json()
    assert (body["passed"], body["threshold"]) == (False, 0.8)
