"""Judging on a phone (390×844) or a tablet (768×1024), in a real browser and in Chinese.

The judging page never scrolls sideways; its toolbar wraps instead of running off-screen, the
save status reads on one line (not one character a line), the shortcuts button is on screen, and
from anywhere in the criteria the response under test is one tap away (the "Response" control,
shown on narrow screens). Screenshots go to test-artifacts/ (the phone's is in docs/img/).
"""

import pytest

from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import say
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": (390, 844), "tablet": (768, 1024), "desktop": (1440, 900)}
MEASURE = """() => {
  const w = window.innerWidth;
  const past = [...document.querySelectorAll('main *')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > w + 0.5 && !el.closest('[hidden], dialog:not([open])');
  }).map(el => el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right));
  const status = document.getElementById('save-status').getBoundingClientRect();
  const help = document.querySelector('.ws-help-button').getBoundingClientRect();
  const lineHeight = parseFloat(getComputedStyle(document.getElementById('save-status')).lineHeight) || 20;
  return {scrollWidth: document.scrollingElement.scrollWidth, innerWidth: w, past: past.slice(0, 8),
          statusLines: Math.round((status.height - 4) / lineHeight), statusWidth: status.width,
          help: {left: help.left, right: help.right, top: help.top, bottom: help.bottom, width: help.width}};
}"""
RESPONSE_IN_VIEW = """() => {
  const r = document.getElementById('response-under-test').getBoundingClientRect();
  return r.top >= -1 && r.top < window.innerHeight - 80;
}"""

CURRENT_IN_VIEW = """() => {
  const r = document.querySelector('.criterion-card.current').getBoundingClientRect();
  return r.top >= -1 && r.top < window.innerHeight - 40;
}"""


def eventually(page, check: str, timeout_ms: int = 5000) -> bool:
    """Whether the check becomes true within the time (polled: the page's policy forbids wait_for_function's eval)."""
    for _ in range(timeout_ms // 50):
        if page.evaluate(check):
            return True
        page.wait_for_timeout(50)
    return False


def judging_page(browser, live_server, cast, size):  # noqa: F811
    campaign_on(cast, "dm0006")  # 22 criteria: a long page
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="zh-CN", has_touch=True, extra_http_headers={"Accept-Language": "zh-CN"}
    )
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", cast.expert.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/work/")
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("html", "lang") == "zh-hans"
    return context, page


@pytest.mark.parametrize("size", ["phone", "tablet"])
def test_the_judging_page_fits_the_screen_and_the_response_is_one_tap_away(browser, live_server, cast, size):  # noqa: F811
    context, page = judging_page(browser, live_server, cast, size)
    width, _height = SIZES[size]
    # Typing shows the save status at its longest ordinary state.
    page.locator("textarea.rationale").first.fill("回应点出了依恋中的不安全感。")
    page.wait_for_selector("#save-status.state-saved")
    page.evaluate("window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"judging-page-{size}-zh.png"))

    measured = page.evaluate(MEASURE)
    assert measured["scrollWidth"] <= width, f"{size}: the page is {measured['scrollWidth']} px wide: {measured['past']}"
    assert not measured["past"], f"{size}: past the right edge: {measured['past']}"
    assert measured["statusLines"] <= 1 and measured["statusWidth"] >= 80, f"{size}: the save status is squeezed: {measured}"
    help_button = measured["help"]
    assert help_button["left"] >= 0 and help_button["right"] <= width and help_button["width"] >= 32, f"{size}: {help_button}"
    # A long state (offline) wraps as a sentence and pushes nothing off the screen.
    context.set_offline(True)
    page.locator("textarea.rationale").first.press_sequentially("再补一句。")
    page.wait_for_selector("#save-status.state-offline")
    page.evaluate("window.scrollTo(0, 0)")
    offline = page.evaluate(MEASURE)
    page.screenshot(path=str(ARTIFACTS / f"judging-page-{size}-offline-zh.png"))
    assert offline["scrollWidth"] <= width and not offline["past"], f"{size}, offline: {offline}"
    context.set_offline(False)
    page.wait_for_selector("#save-status.state-saved")
    page.locator(".ws-help-button").tap()
    assert page.locator("#kbd-help").is_visible()
    page.keyboard.press("Escape")

    # Far down the criteria, the response under test is one tap away.
    page.locator(".criterion-card").last.scroll_into_view_if_needed()
    assert not page.evaluate(RESPONSE_IN_VIEW)
    jump = page.locator(".ws-jump-response")
    assert jump.is_visible() and jump.inner_text().strip().startswith(say("zh-hans", "Response"))
    box = jump.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] >= 40
    page.screenshot(path=str(ARTIFACTS / f"judging-page-{size}-criteria-zh.png"))
    jump.tap()
    assert eventually(page, RESPONSE_IN_VIEW)
    page.screenshot(path=str(ARTIFACTS / f"judging-page-{size}-response-zh.png"))
    # And back to the criterion the expert was on, in one tap too.
    back = page.locator(".ws-back-to-criterion")
    assert back.is_visible()
    back.tap()
    assert eventually(page, CURRENT_IN_VIEW)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    context.close()


def test_on_a_wide_screen_the_response_needs_no_jump(browser, live_server, cast):  # noqa: F811
    # Beside the criteria the response is always in view (test_response_under_test_stays_in_view), so the controls are not shown.
    context, page = judging_page(browser, live_server, cast, "desktop")
    page.locator("textarea.rationale").first.fill("回应点出了依恋中的不安全感。")
    page.wait_for_selector("#save-status.state-saved")
    assert page.locator(".ws-jump-response").is_hidden() and page.locator(".ws-back-to-criterion").is_hidden()
    measured = page.evaluate(MEASURE)
    assert measured["scrollWidth"] <= SIZES["desktop"][0] and measured["statusLines"] <= 1
    # The toolbar stays one row beside the title.
    title, tools = page.locator(".ws-header h1").bounding_box(), page.locator(".ws-tools").bounding_box()
    assert tools["y"] < title["y"] + title["height"] and tools["x"] > title["x"] + title["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "judging-page-desktop-zh.png"))
    context.close()
