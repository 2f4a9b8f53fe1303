"""Each role's main path in a real browser, in Simplified Chinese and in English.

An expert takes the next response, writes a rationale and a verdict for every criterion and
submits; an admin goes from the campaigns to a campaign and to its agreement dashboard; a rubric
author opens an item's rubric and edits a criterion; a senior reviewer opens the adjudication
queue. English is what the browser asks for; the Chinese walk chooses 简体中文 in the header
first (so the switcher is walked too). Every step checks the page's language and a key text of
it, taken from the catalogue (so a Chinese walk fails when that text has no Chinese), and saves
a screenshot (HB_SCREENSHOT_DIR, or the test's temporary directory).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.utils import translation

from annotation.models import Assignment
from rubrics.models import CriterionRevision
from tests.browser.test_judging_flow import browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD
from tests.security.dual_role_world import build_dual_role_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ["zh-hans", "en"]


def say(language: str, msgid: str, context: str | None = None, **values: object) -> str:
    """The text a page in `language` shows for a catalogue entry (Chinese must really be Chinese)."""
    with translation.override(language):
        text = translation.pgettext(context, msgid) if context else translation.gettext(msgid)
    if language.startswith("zh"):
        assert text != msgid, f"no Chinese for {msgid!r} in the catalogue"
    return text % values if values else text


class Walk:
    """One signed-in browser page in one language, saving a screenshot at each step."""

    def __init__(self, browser, live_server, user, language: str, shots: Path) -> None:  # noqa: F811
        self.language, self.shots, self.base, self.step = language, shots, live_server.url, 0
        context = browser.new_context(viewport={"width": 1280, "height": 900}, extra_http_headers={"Accept-Language": "en"})
        self.page = context.new_page()
        self.page.goto(self.base + "/accounts/login/")
        self.page.fill("#id_username", user.username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("main button[type=submit]")  # the header holds the language and log-out buttons
        self.page.wait_for_load_state()
        if language != "en":
            self.page.click(f'.language-switcher button[value="{language}"]')
            self.page.wait_for_load_state()
        self.name = user.username

    def check(self, *texts: str, where: str = "body") -> None:
        """The page is in the walk's language and shows each text; a screenshot is saved."""
        self.page.wait_for_load_state()
        assert self.page.get_attribute("html", "lang") == self.language
        shown = self.page.inner_text(where)
        for text in texts:
            assert text in shown, f"{text!r} not on {self.page.url} ({self.language})"
        self.step += 1
        self.page.screenshot(path=str(self.shots / f"{self.name}-{self.language}-{self.step}.png"), full_page=True)

    def nav(self, msgid: str) -> None:
        """Follow a link of the main navigation, opening the menu that holds it first (an admin's links are grouped)."""
        link = self.page.get_by_role("navigation").get_by_role("link", name=say(self.language, msgid), exact=True, include_hidden=True)
        menu = link.locator("xpath=ancestor::details[1]")
        if menu.count() and menu.get_attribute("open") is None:
            menu.locator("summary").click()
        link.click()
        self.page.wait_for_load_state()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("HB_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_expert_judges_and_submits_a_response(browser, live_server, cast, shots, language):  # noqa: F811
    build_dual_role_world(cast)
    walk = Walk(browser, live_server, cast.expert, language, shots)
    page = walk.page
    page.goto(walk.base + "/work/")
    walk.check(say(language, "My work"))
    page.locator("button.ws-next").click()
    page.wait_for_url(f"{walk.base}/work/a/**")
    walk.check(say(language, "Submit all judgments"), say(language, "Rationale"))
    pid = page.url.rstrip("/").split("/")[-1]
    cards = page.locator(".criterion-card")
    hit = say(language, "Hit", "verdict")
    for i in range(cards.count()):
        card = cards.nth(i)
        card.locator("textarea.rationale").fill(f"理由 {i + 1}: the response does what the criterion asks.")
        card.get_by_role("radio", name=hit, exact=True).check()
    page.wait_for_selector("#save-status.state-saved")
    walk.check(say(language, "Submit all judgments"))
    submit = page.locator("button.ws-submit")  # its name ends with the keys (Ctrl+Enter)
    assert submit.inner_text().startswith(say(language, "Submit all judgments"))
    submit.click()
    page.wait_for_url(lambda url: pid not in url)
    walk.check(say(language, "My work"))
    assert Assignment.objects.get(public_id=pid).status == Assignment.Status.SUBMITTED


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_admin_goes_from_the_campaigns_to_a_campaigns_agreement(browser, live_server, cast, shots, language):  # noqa: F811
    world = build_dual_role_world(cast)
    walk = Walk(browser, live_server, cast.admin, language, shots)
    walk.nav("Campaigns")
    walk.check(say(language, "Campaigns"), world.closed_campaign.name)
    walk.page.get_by_role("link", name=world.closed_campaign.name, exact=True).first.click()
    walk.check(say(language, "Sample"), world.closed_campaign.name)
    walk.nav("Agreement")
    walk.page.get_by_role("link", name=world.closed_campaign.name, exact=True).first.click()
    walk.page.wait_for_url(f"{walk.base}/validation/campaigns/{world.closed_campaign.pk}/**")
    walk.check(say(language, "Agreement by ability"), world.closed_campaign.name)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rubric_author_edits_a_criterion_of_an_item(browser, live_server, cast, shots, language):  # noqa: F811
    build_dual_role_world(cast)
    walk = Walk(browser, live_server, cast.author, language, shots)
    page = walk.page
    walk.nav("Rubrics")
    walk.check(say(language, "Rubrics"))
    page.locator("main").get_by_role("link", name="demo", exact=True).first.click()
    page.wait_for_load_state()
    page.locator("main").get_by_role("link", name="dm0001", exact=True).first.click()
    page.wait_for_url("**/items/dm0001/")
    walk.check(say(language, "Rubric editor · %(question_id)s", question_id="dm0001").split(" · ")[0], where="head title")
    first = page.locator("li.criterion").first
    first.get_by_role("link", name=say(language, "Edit", "verb"), exact=True).click()
    form = page.locator("li.rb-editing").first
    form.wait_for()
    form.locator("textarea[name=text]").fill(f"回应先共情，再给出建议（{language}）")
    form.get_by_role("textbox", name=say(language, "Why (required)"), exact=True).fill("clearer wording")
    walk.check(say(language, "Save as draft"))
    form.get_by_role("button", name=say(language, "Save as draft"), exact=True).click()
    page.locator("li.rb-editing").wait_for(state="detached")  # the row is back, its draft revision marked
    walk.check(say(language, "Edit", "verb"))
    assert CriterionRevision.objects.filter(text=f"回应先共情，再给出建议（{language}）").exists()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_senior_reviewer_opens_the_adjudication_queue(browser, live_server, cast, shots, language):  # noqa: F811
    world = build_dual_role_world(cast)
    walk = Walk(browser, live_server, cast.reviewer, language, shots)
    walk.nav("Adjudication")
    walk.check(say(language, "Adjudication"), world.closed_campaign.name)
    walk.page.locator("main").get_by_role("link", name=world.closed_campaign.name, exact=True).first.click()
    walk.page.wait_for_url(f"{walk.base}/validation/campaigns/{world.closed_campaign.pk}/adjudication/**")
    walk.check(say(language, "Adjudication queue"))
