"""Skipping a response in a real browser: the reason is required, the text typed just before is kept, the response goes to
another expert and never back, and the admin sees the skip on the campaign's page. Screenshots go to test-artifacts/."""

import pytest

from annotation.models import Assignment, CampaignResponse, Judgment, Skip
from annotation.services.assignment import assign_next_response
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in(browser, live_server, user):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_load_state()
    return page


def test_an_expert_skips_a_response_with_a_reason_and_another_expert_gets_it(browser, live_server, cast):  # noqa: F811
    campaign = campaign_on(cast, "dm0001")
    only = CampaignResponse.objects.filter(campaign=campaign).order_by("pk").first()
    CampaignResponse.objects.filter(campaign=campaign).exclude(pk=only.pk).delete()
    campaign.overlap = 1
    campaign.save(update_fields=["overlap"])

    page = signed_in(browser, live_server, cast.expert)
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    pid = page.url.rstrip("/").split("/")[-1]
    page.locator("textarea.rationale").first.fill("Typed just before deciding to skip")
    page.click("#ws-skip summary")
    # No reason: the page comes back with the error beside the reasons and the text still there.
    page.click(".ws-skip-submit")
    page.wait_for_selector("#skip-reason-error")
    assert "Choose why you skip this response." in page.inner_text("#skip-reason-error")
    assert page.locator("textarea.rationale").first.input_value() == "Typed just before deciding to skip"
    assert Assignment.objects.get(public_id=pid).status == Assignment.Status.RESERVED
    page.check("input[name=reason][value=distressing]")
    page.fill("#skip-note", "A bereavement too close to my own")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#ws-skip").screenshot(path=str(ARTIFACTS / "skip-form.png"))
    page.click(".ws-skip-submit")
    page.wait_for_url(f"{live_server.url}/work/")
    assert "Skipped. The response goes to another expert" in page.inner_text("main")

    skip = Skip.objects.get()
    assert (skip.assignment.public_id, skip.reason, skip.note) == (pid, "distressing", "A bereavement too close to my own")
    assert Judgment.objects.get(assignment__public_id=pid, criterion__position=0).rationale == "Typed just before deciding to skip"
    # Its old link reads as skipped, with the text, and offers no way back.
    page.goto(f"{live_server.url}/work/a/{pid}/")
    assert "You skipped this response" in page.inner_text(".ws-skipped")
    assert page.locator(".ws-reclaim").count() == 0
    assert page.locator("textarea.rationale").first.input_value() == "Typed just before deciding to skip"
    # Never served to them again; another expert gets it.
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None
    other = assign_next_response(expert=cast.experts[1], campaign=campaign)
    assert other is not None and other.campaign_response_id == only.pk
    page.close()

    admin = signed_in(browser, live_server, cast.admin)
    admin.goto(f"{live_server.url}/work/manage/campaigns/{campaign.pk}/")
    section = admin.locator("#skips")
    assert "Distressing content" in section.inner_text() and "A bereavement too close to my own" in section.inner_text()
    section.screenshot(path=str(ARTIFACTS / "campaign-skips.png"))
    admin.close()
