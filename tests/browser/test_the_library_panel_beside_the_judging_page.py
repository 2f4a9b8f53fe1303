"""The library panel on the judging page, in a real browser: opened with `l`, it shows the FAQ entries and cases on the
criterion in focus, follows the focus, searches in Chinese in place, opens an entry and records whether it helped;
`Esc` closes it and the keyboard flow goes on. No Content-Security-Policy violation on the way."""

import pytest

from annotation.knowledge.models import LibraryOpen
from tests.annotation.knowledge.conftest import published_faq, written_case
from tests.browser.test_content_security_policy import WATCH
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_panel_follows_the_criterion_in_focus_searches_and_records_what_helped(browser, live_server, cast):  # noqa: F811
    campaign = campaign_on(cast, "dm0001")
    item = campaign.responses.first().item
    first, second = item.criteria.get(position=0), item.criteria.get(position=1)
    faq = published_faq(
        cast, campaign.version.dataset, question="识别疲惫算不算共情？", answer="算：说出**疲惫**就是共情。", criteria=[first.lineage_id]
    )
    published_faq(cast, campaign.version.dataset, question="追问哪一部分最消耗？", answer="追问具体的部分。", criteria=[second.lineage_id])
    written_case(cast, first, title="隐含的共情")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH)
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", cast.expert.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/work/")
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    drawer = page.locator("#ws-library")
    assert drawer.is_hidden()

    page.keyboard.press("Escape")  # out of the first rationale, onto its criterion
    page.keyboard.press("l")
    page.wait_for_selector("#library-panel .kb-list")
    assert drawer.is_visible()
    panel = page.locator("#library-panel")
    assert "识别疲惫算不算共情？" in panel.inner_text() and "隐含的共情" in panel.inner_text()
    assert page.evaluate("document.activeElement.id") == "library-q"
    page.screenshot(path=str(ARTIFACTS / "library-panel.png"))

    page.keyboard.type("共情")
    page.wait_for_selector("#library-results mark")
    assert "共情" in page.locator("#library-results mark").first.inner_text()
    page.locator("#library-results a", has_text="识别疲惫").first.click()
    page.wait_for_selector("#library-entry .kb-opened")
    page.locator("#library-entry button[value=yes]").click()
    page.wait_for_selector("#library-entry p.kb-helped")
    row = LibraryOpen.objects.get(faq=faq)
    assert row.helped is True and row.campaign_id == campaign.pk and row.lineage_id == first.lineage_id

    page.keyboard.press("Escape")
    assert drawer.is_hidden()
    # The keyboard flow goes on where it was; the panel, opened again, follows the criterion in focus.
    page.keyboard.press("j")
    page.keyboard.press("l")
    page.locator("#library-panel a", has_text="追问哪一部分最消耗").wait_for()
    assert "识别疲惫" not in page.locator("#library-panel").inner_text()
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    page.keyboard.type("A rationale typed after using the library")
    page.keyboard.press("Alt+KeyH")
    assert page.locator(".criterion-card.judged").count() == 1
    violations = page.evaluate("window.__cspViolations")
    assert violations == [], violations
    context.close()
