"""The judging flow in a real browser (Debian's Chromium through Playwright), keyboard only.

Log in as an expert, take the next response, judge every criterion with the keyboard (the
rationale, then Alt+H or Alt+M, which moves on to the next criterion's rationale), reload
half-way and find the draft intact and the cursor where the expert was, lose the connection and
get the change saved when it returns, submit, and see progress advance; on a 6- and on the
22-criterion item. A screenshot of the judging page goes to test-artifacts/.
"""

import os
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Assignment, CampaignResponse, Judgment
from annotation.services.campaigns import create_campaign
from tests.conftest import PASSWORD
from tests.factories import demo_responses, demo_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts"


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing on CI: install Debian's chromium")
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium to run the browser tests")
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test are safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()
    live_server_idle()


def live_server_idle(timeout: float = 15.0) -> None:
    """Wait until the live server has answered every request the closed browser had sent (an autosave,
    a poll): the database is emptied after the test, and a late request must not write into the next."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any("process_request_thread" in t.name for t in threading.enumerate() if t.is_alive()):
            return
        time.sleep(0.05)


def campaign_on(cast, question_id: str):
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name=f"Browser {question_id}",
        dataset_name="demo",
        model_names=["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"],
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
    ).campaign
    CampaignResponse.objects.filter(campaign=campaign).exclude(item__question_id=question_id).delete()
    return campaign


def judge_with_keyboard(page, start: int, stop: int, *, prefix: str):
    """Type each rationale where the focus already is, then mark it with the chord that also moves on."""
    for i in range(start, stop):
        page.keyboard.type(f"{prefix} rationale for criterion {i + 1}")
        page.keyboard.press("Alt+KeyH" if i % 3 else "Alt+KeyM")


def focused_card_index(page) -> int:
    return page.evaluate(
        "Array.from(document.querySelectorAll('.criterion-card')).indexOf(document.activeElement.closest('.criterion-card'))"
    )


def run_flow(browser, live_server, cast, question_id: str, criteria: int, screenshot: str):
    campaign_on(cast, question_id)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", cast.expert.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")  # the header holds the language and log-out buttons
    page.wait_for_url(f"{live_server.url}/work/")
    assert page.inner_text(".ws-done") == "0"
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    assert page.locator(".criterion-card").count() == criteria
    # The first rationale has the focus: typing starts at once.
    assert page.evaluate("document.activeElement.classList.contains('rationale')") and focused_card_index(page) == 0
    # Reasoning before scoring: the verdict is locked until a rationale is written.
    assert page.locator(".criterion-card").first.locator("input[value=hit]").is_disabled()
    page.keyboard.press("Escape")
    page.keyboard.press("h")
    assert page.evaluate("document.activeElement.classList.contains('rationale')")
    # The Alt chord marks nothing (and types nothing) while the rationale is too short.
    page.keyboard.press("Alt+KeyH")
    assert focused_card_index(page) == 0 and page.locator("textarea.rationale").first.input_value() == ""

    half = criteria // 2
    judge_with_keyboard(page, 0, half, prefix="First")
    page.wait_for_selector("#save-status.state-saved")
    page.reload()
    # Back where the expert was: the next criterion's rationale, ready for typing.
    assert page.evaluate("document.activeElement.classList.contains('rationale')") and focused_card_index(page) == half
    cards = page.locator(".criterion-card")
    for i in range(half):
        assert cards.nth(i).locator("textarea.rationale").input_value() == f"First rationale for criterion {i + 1}"
        assert cards.nth(i).locator("input[value=hit]" if i % 3 else "input[value=miss]").is_checked()
    assert page.inner_text(".ws-judged") == str(half)

    # A lost connection: the change is kept, the indicator says so, and it is sent once back online.
    page.context.set_offline(True)
    judge_with_keyboard(page, half, half + 1, prefix="Offline")
    page.wait_for_selector("#save-status.state-offline")
    page.context.set_offline(False)
    page.wait_for_selector("#save-status.state-saved")
    pid = page.url.rstrip("/").split("/")[-1]
    assert Judgment.objects.filter(assignment__public_id=pid, rationale=f"Offline rationale for criterion {half + 1}").exists()

    judge_with_keyboard(page, half + 1, criteria, prefix="Later")
    # After the last criterion the focus is on the submit button; "?" opens the help outside a text box.
    assert page.evaluate("document.activeElement.classList.contains('ws-submit')")
    page.keyboard.press("?")
    assert page.locator("#kbd-help").is_visible()
    page.keyboard.press("Escape")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)

    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: pid not in url)
    assert Assignment.objects.get(public_id=pid).status == Assignment.Status.SUBMITTED
    assert Judgment.objects.filter(assignment__public_id=pid, hit__isnull=False).count() == criteria
    assert page.inner_text(".ws-done") == "1"
    page.close()


def test_an_expert_judges_a_six_criterion_response_by_keyboard(browser, live_server, cast):
    run_flow(browser, live_server, cast, "dm0001", 6, "judging-page-6-criteria.png")


def test_an_expert_judges_the_22_criterion_response_by_keyboard(browser, live_server, cast):
    run_flow(browser, live_server, cast, "dm0006", 22, "judging-page-22-criteria.png")
