"""Typing after the session ended, in a real browser and in Chinese: nothing is lost, and signing in brings the expert back.

The expert writes and the draft is saved; the session then ends on the server. The next
autosave is refused (401): the indicator says, in Chinese, "signed out — sign in to continue,
nothing is lost" with a sign-in link, the header keeps its indicator (no login form swapped in,
the focus stays in the rationale) and the browser keeps its copy. Signing in through the link
returns to the same response, which puts the copy back into the form and saves it.
Screenshots go to test-artifacts/.
"""

import json

import pytest
from django.contrib.sessions.models import Session

from annotation.models import Judgment
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.browser.test_two_tabs_on_one_response_lose_nothing import say_in_script, signed_in_context
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_text_typed_after_the_session_ended_is_kept_and_saved_after_signing_in(browser, live_server, cast):  # noqa: F811
    campaign_on(cast, "dm0001")
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    context, page = signed_in_context(browser, live_server, cast.expert)
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    judging_url = page.url
    pid = judging_url.rstrip("/").split("/")[-1]
    boxes = page.locator("textarea.rationale")
    boxes.nth(0).fill("会话结束前写下的理由：回复共情得当。")
    page.wait_for_selector("#save-status.state-saved")

    Session.objects.all().delete()  # the session ends on the server (it expired, or was signed out elsewhere)
    boxes.nth(1).click()
    page.keyboard.type("会话结束后写下的理由：不能丢失。")
    page.wait_for_selector("#save-status.state-signed-out")

    status = page.locator("#save-status")
    assert say_in_script("Signed out — sign in to continue; nothing is lost.") in status.inner_text()
    link = status.get_by_role("link", name=say_in_script("Sign in"))
    assert link.get_attribute("href") == f"/accounts/login/?next=/work/a/{pid}/"
    assert page.locator("header #id_username, .ws-header #id_username, #save-status input").count() == 0
    assert page.evaluate("document.activeElement.classList.contains('rationale')")
    stored = json.loads(page.evaluate(f"window.localStorage.getItem('hb-draft:{pid}')"))
    assert stored["dirty"] is True and "会话结束后写下的理由：不能丢失。" in [e["r"] for e in stored["entries"].values()]
    assert not Judgment.objects.filter(assignment__public_id=pid, rationale__startswith="会话结束后").exists()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "session-ended-signed-out-zh.png"))

    link.click()
    page.wait_for_url(f"{live_server.url}/accounts/login/**")
    page.fill("#id_username", cast.expert.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(judging_url)
    page.wait_for_selector("#save-status.state-saved")
    assert page.locator("textarea.rationale").nth(1).input_value() == "会话结束后写下的理由：不能丢失。"
    saved = list(Judgment.objects.filter(assignment__public_id=pid).order_by("criterion__position").values_list("rationale", flat=True))
    assert saved[:2] == ["会话结束前写下的理由：回复共情得当。", "会话结束后写下的理由：不能丢失。"]
    page.screenshot(path=str(ARTIFACTS / "session-ended-back-and-saved-zh.png"))
    context.close()
