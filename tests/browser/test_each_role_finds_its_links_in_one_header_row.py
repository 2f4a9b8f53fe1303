"""At 1366 px each role's header keeps to one row, in Chinese: an admin's links are grouped into menus, and every link is reachable.

Each role signs in in Debian's Chromium at 1366×768 with a Chinese browser. The header's items all
sit on one row; the role sees exactly its own links (an expert none of an admin's); each menu
(work, data, validation, people, settings) opens by a click and by the keyboard (Enter on its name,
Tab into its links, Escape back), and every link in it is then visible inside the window. Screenshots
of the header, a menu open, go to test-artifacts/.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from heartbench_core.models import User
from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1366, 768
EXPERT = ["annotation:home", "annotation:my_reports", "annotation:profile"]
DATA = ["core:datasets", "rubrics:index"]
ADMIN = [
    "annotation:needs_action",
    "annotation:campaigns",
    "annotation:library",
    *DATA,
    "judging:index",
    "validation:index",
    "people:list",
    "tokens",
    "api-docs",
    "admin:index",
]
LINKS = {
    "superuser": [*EXPERT, *ADMIN, "validation:adjudication-index"],
    "admin": ADMIN,
    "expert": [*EXPERT, "annotation:library"],
    "author": ["annotation:library", *DATA],
    "reviewer": ["annotation:library", *DATA, "validation:adjudication-index"],
}
ROW = """() => {
  const items = [...document.querySelectorAll('header.topbar > *:not(.skip-link), header.topbar nav > *, header.topbar form > *')]
    .map(el => el.getBoundingClientRect()).filter(box => box.height > 0);
  const middles = items.map(box => box.top + box.height / 2).sort((a, b) => a - b);
  const rows = middles.filter((y, i) => i === 0 || y - middles[i - 1] > 12).length;
  const header = document.querySelector('header.topbar').getBoundingClientRect();
  return {rows: rows, middles: middles, height: header.height, right: Math.max(...items.map(box => box.right))};
}"""


def user_for(cast, role: str) -> User:
    if role == "superuser":
        return User.objects.create_superuser("demo_admin", "demo_admin@example.org", PASSWORD)
    return {"admin": cast.admin, "expert": cast.expert, "author": cast.author, "reviewer": cast.reviewer}[role]


def signed_in_page(browser, live_server, user):  # noqa: F811
    context = browser.new_context(
        viewport={"width": WIDTH, "height": HEIGHT}, locale="zh-CN", extra_http_headers={"Accept-Language": "zh-hans"}
    )
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_load_state("networkidle")
    page.goto(live_server.url + "/")
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("html", "lang") == "zh-hans"
    return page


@pytest.mark.parametrize("role", list(LINKS))
def test_the_header_is_one_row_and_every_link_of_the_role_is_reachable(browser, live_server, cast, role):  # noqa: F811
    page = signed_in_page(browser, live_server, user_for(cast, role))
    nav = page.locator("header.topbar nav")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("header.topbar").screenshot(path=str(ARTIFACTS / f"header-1366-{role}-zh.png"))
    measured = page.evaluate(ROW)
    assert measured["rows"] == 1 and measured["height"] < 70, f"as {role}: the header takes {measured}"
    assert measured["right"] <= WIDTH

    expected = sorted(reverse(name) for name in LINKS[role])
    shown = sorted(nav.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))"))
    assert shown == expected, f"as {role}"

    menus = nav.locator("details")
    if role in {"expert", "author", "reviewer"}:
        assert menus.count() == 0, f"as {role}: a few links need no menu"
    else:
        assert menus.count() >= 3
    for i in range(menus.count()):
        menu = menus.nth(i)
        menu.locator("summary").click()
        assert menu.get_attribute("open") is not None
        for link in menu.locator("a").all():
            assert link.is_visible(), f"as {role}: {link.get_attribute('href')} hidden in an open menu"
            box = link.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH and box["y"] + box["height"] <= HEIGHT
        assert [m for m in range(menus.count()) if menus.nth(m).get_attribute("open") is not None] == [i]  # one at a time
        if i == 0:
            page.screenshot(path=str(ARTIFACTS / f"header-1366-{role}-zh-menu.png"), clip={"x": 0, "y": 0, "width": WIDTH, "height": 320})
    for link in nav.locator("a").all():  # outside menus, every link is in view at once
        if not link.locator("xpath=ancestor::details").count():
            assert link.is_visible()


def test_the_superusers_menus_are_grouped_by_work_data_validation_people_and_settings(browser, live_server, cast):  # noqa: F811
    page = signed_in_page(browser, live_server, user_for(cast, "superuser"))
    with translation.override("zh-hans"):
        names = [translation.pgettext("navigation group", g) for g in ["Work", "Data", "Validation", "People", "Settings"]]
    assert page.locator("header.topbar nav details > summary").all_inner_texts() == names


def test_a_menu_opens_and_closes_with_the_keyboard(browser, live_server, cast):  # noqa: F811
    page = signed_in_page(browser, live_server, user_for(cast, "superuser"))
    menu = page.locator("header.topbar nav details").first
    page.focus("header.topbar .brand")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    assert menu.get_attribute("open") is not None
    page.keyboard.press("Tab")
    first = menu.locator("a").first.get_attribute("href")
    assert page.evaluate("document.activeElement.getAttribute('href')") == first
    page.keyboard.press("Escape")
    assert menu.get_attribute("open") is None
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    with page.expect_request(live_server.url + first):
        page.keyboard.press("Enter")  # follows the focused link


def test_on_a_phone_an_open_menu_stays_inside_the_screen(browser, live_server, cast):  # noqa: F811
    user = user_for(cast, "superuser")
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", extra_http_headers={"Accept-Language": "zh-hans"})
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_load_state("networkidle")
    menus = page.locator("header.topbar nav details")
    for i in range(menus.count()):
        menus.nth(i).locator("summary").click()
        for link in menus.nth(i).locator("a").all():
            box = link.bounding_box()
            assert link.is_visible() and box and box["x"] + box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        if i == menus.count() - 1:
            page.locator("header.topbar").screenshot(path=str(ARTIFACTS / "header-390-superuser-zh-menu.png"))
