"""The end of a calibration in a real browser, in Chinese: the expert submits the last response of the sitting and lands on
the attempt's result (score against the pass mark, not passed, each miss with its explanation, when a retake opens); the
home page then links to that result instead of offering the calibration again. The result page's screenshot goes to
test-artifacts/calibration-result-zh.png (docs/img/calibration-result-zh.png is taken from it)."""

import pytest

from annotation.models import CalibrationResult, Qualification
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_calibration
from tests.annotation.manage.helpers import gold_file, judge
from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import Walk, say
from tests.factories import demo_responses, demo_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_last_calibration_response_leads_to_the_result_in_chinese(browser, live_server, cast):  # noqa: F811
    version = demo_version()
    demo_responses()
    calibration = create_calibration(name="校准 A", dataset_name="demo", source=gold_file(version), pass_threshold=0.8).campaign
    judge(assign_next_response(expert=cast.expert, campaign=calibration), wrong=3)  # the first response of the sitting
    ARTIFACTS.mkdir(exist_ok=True)
    walk = Walk(browser, live_server, cast.expert, "zh-hans", ARTIFACTS)
    page = walk.page
    page.goto(walk.base + "/work/")
    walk.check(say("zh-hans", "Take calibration"))
    page.locator(".ws-calibration button.primary").click()
    page.wait_for_url(f"{walk.base}/work/a/**")
    cards = page.locator(".criterion-card")
    hit = say("zh-hans", "Hit", "verdict")
    for i in range(cards.count()):
        cards.nth(i).locator("textarea.rationale").fill(f"理由 {i + 1}：回应做到了这一点。")
        cards.nth(i).get_by_role("radio", name=hit, exact=True).check()
    page.wait_for_selector("#save-status.state-saved")
    page.locator("button.ws-submit").click()
    page.wait_for_url(f"{walk.base}/work/profile/calibration/**")
    result = CalibrationResult.objects.get(expert=cast.expert, campaign=calibration)
    assert not result.passed and not Qualification.objects.filter(expert=cast.expert).exists()
    assert page.url.endswith(f"/work/profile/calibration/{result.pk}/")
    score = f"{result.score * 100:.0f}%"
    walk.check(
        say("zh-hans", "Your score: %(score)s · pass mark: %(threshold)s", score=score, threshold="80%"),
        say("zh-hans", "not passed", "calibration result"),
        say("zh-hans", "What happens next"),
        say("zh-hans", "A failed attempt qualifies for nothing, not even per dimension."),
        "gold note",
    )
    page.screenshot(path=str(ARTIFACTS / "calibration-result-zh.png"), full_page=True)
    page.get_by_role("link", name=say("zh-hans", "My work"), exact=True).last.click()
    page.wait_for_url(f"{walk.base}/work/")
    walk.check(say("zh-hans", "See your result"))
    assert page.locator(".ws-calibration button.primary").count() == 0
