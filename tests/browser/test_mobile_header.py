"""At a phone's width (390 px) the header fits: no role's navigation makes the home page scroll sideways.

Each role (anonymous, expert, admin: the admin has the most links) opens the home page in
Debian's Chromium at 390×844; a screenshot of the header goes to test-artifacts/.
"""

import pytest

from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 390, 844
OVERFLOW = """() => {
  const wide = [...document.querySelectorAll('header.topbar, header.topbar *')]
    .filter(el => el.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map(el => el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' ' + (el.textContent || '').trim().slice(0, 30));
  return {scrollWidth: document.documentElement.scrollWidth, wide: wide};
}"""


def phone_page(browser, live_server, user):  # noqa: F811
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, locale="en-US")
    if user is not None:
        page.goto(live_server.url + "/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")  # the header holds submit buttons too (log out, language)
        page.wait_for_load_state("networkidle")
    page.goto(live_server.url + "/")
    page.wait_for_load_state("networkidle")
    return page


@pytest.mark.parametrize("role", ["anonymous", "expert", "admin"])
def test_the_header_does_not_overflow_a_phone_screen(browser, live_server, cast, role):  # noqa: F811
    user = {"anonymous": None, "expert": cast.expert, "admin": cast.admin}[role]
    page = phone_page(browser, live_server, user)
    if user is not None:
        assert user.username in page.inner_text("header.topbar")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("header.topbar").screenshot(path=str(ARTIFACTS / f"mobile-header-{role}.png"))
    page.screenshot(path=str(ARTIFACTS / f"mobile-home-{role}.png"))
    measured = page.evaluate(OVERFLOW)
    assert measured["scrollWidth"] <= WIDTH, f"as {role}: the page is {measured['scrollWidth']} px wide: {measured['wide']}"
    assert not measured["wide"], f"as {role}: past the right edge: {measured['wide']}"
