"""How many key presses and clicks judging takes, counted on the real page: per criterion, the rationale's text and one more.

Two experts fill every criterion of a response and submit, one with the keyboard only, one with
the mouse for everything but the text. Every key press (other than the rationale's characters)
and every click goes through a counter; the test asserts the counts and writes them to
test-artifacts/keystrokes.json (docs/workspace.md quotes the figure).
"""

import json

import pytest

from annotation.models import Assignment, Judgment
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Counted:
    """The page's keyboard and mouse, counting what the expert does besides typing the rationale."""

    def __init__(self, page):
        self.page, self.keys, self.clicks, self.typed = page, 0, 0, 0

    def type(self, text: str):
        self.typed += len(text)
        self.page.keyboard.type(text)

    def press(self, key: str):
        self.keys += 1
        self.page.keyboard.press(key)

    def click(self, locator):
        self.clicks += 1
        locator.click()


def open_next(browser, live_server, expert):  # noqa: F811
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", expert.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/work/")
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    return page, page.url.rstrip("/").split("/")[-1]


def submitted_fully(pid: str, criteria: int) -> bool:
    done = Assignment.objects.get(public_id=pid).status == Assignment.Status.SUBMITTED
    return done and Judgment.objects.filter(assignment__public_id=pid, hit__isnull=False).exclude(rationale="").count() == criteria


@pytest.mark.parametrize("question_id, criteria", [("dm0001", 6), ("dm0006", 22)])
def test_judging_takes_one_key_or_one_click_per_criterion_besides_the_text(browser, live_server, cast, question_id, criteria):  # noqa: F811
    campaign_on(cast, question_id)
    figures = {}

    page, pid = open_next(browser, live_server, cast.experts[0])
    keyboard = Counted(page)
    for i in range(criteria):
        keyboard.type(f"Rationale number {i + 1}")
        keyboard.press("Alt+KeyH" if i % 2 else "Alt+KeyM")
    keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: pid not in url)
    assert submitted_fully(pid, criteria)
    assert (keyboard.keys, keyboard.clicks) == (criteria + 1, 0)
    figures["keyboard"] = {"keys": keyboard.keys, "clicks": keyboard.clicks, "typed_chars": keyboard.typed}
    page.close()

    page, pid = open_next(browser, live_server, cast.experts[1])
    mouse = Counted(page)
    cards = page.locator(".criterion-card")
    for i in range(criteria):
        mouse.type(f"Rationale number {i + 1}")
        mouse.click(cards.nth(i).locator("label.verdict-hit" if i % 2 else "label.verdict-miss"))
    mouse.click(page.locator("button.ws-submit"))
    page.wait_for_url(lambda url: pid not in url)
    assert submitted_fully(pid, criteria)
    assert (mouse.keys, mouse.clicks) == (0, criteria + 1)
    figures["mouse"] = {"keys": mouse.keys, "clicks": mouse.clicks, "typed_chars": mouse.typed}
    page.close()

    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / "keystrokes.json"
    known = json.loads(out.read_text()) if out.exists() else {}
    known[f"{criteria} criteria"] = {
        **figures,
        "per_criterion_besides_text": {"keyboard": (keyboard.keys - 1) / criteria, "mouse": (mouse.clicks - 1) / criteria},
    }
    out.write_text(json.dumps(known, indent=2))
