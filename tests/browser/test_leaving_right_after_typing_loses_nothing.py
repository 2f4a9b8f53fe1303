"""Leaving the judging page right after typing, in a real browser and in Chinese: the text just typed is what comes back.

The pending draft is saved before any navigation: a link or a form of the page (here the
language switch) waits for the save in flight and the pending one; a closed tab sends it with a
save that outlives the page (fetch keepalive). A save whose answer never came (the page was left
first) is recognised on the next load as this browser's own (one version on, exactly its text),
so the text typed after it is put back and saved, not offered as if another tab had written.
The server still refuses a save based on an older version, so a stale page never writes an older
text over a newer one. Screenshots go to test-artifacts/.
"""

import time

import pytest

from annotation.models import Assignment, Judgment
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.browser.test_two_tabs_on_one_response_lose_nothing import signed_in_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_response(browser, live_server, cast):  # noqa: F811
    campaign_on(cast, "dm0001")
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    context, page = signed_in_context(browser, live_server, cast.expert)
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    assert page.get_attribute("html", "lang") == "zh-hans"
    return context, page, page.url.rstrip("/").split("/")[-1]


def first_rationale(pid: str) -> str:
    return Judgment.objects.get(assignment__public_id=pid, criterion__position=0).rationale


def switch_to_english(page, pid: str) -> None:
    page.click("form.language-switcher button[value=en]")
    page.wait_for_selector("html[lang=en]", state="attached")
    assert pid in page.url


def test_text_typed_just_before_switching_language_is_saved_first(browser, live_server, cast):  # noqa: F811
    context, page, pid = open_response(browser, live_server, cast)
    box = page.locator("textarea.rationale").first
    box.press_sequentially("回复准确指出了疲劳，", delay=20)
    # At once, before the autosave's pause is over: the switch waits for the save.
    switch_to_english(page, pid)
    assert first_rationale(pid) == "回复准确指出了疲劳，"
    # The page it led to shows the saved draft as the server sent it: nothing left to restore, no older time.
    assert page.locator("textarea.rationale").first.input_value() == "回复准确指出了疲劳，"
    assert "state-idle" in (page.get_attribute("#save-status", "class") or "")
    assert page.locator("#ws-held").is_hidden()
    context.close()


def test_text_typed_while_a_save_was_unanswered_comes_back_current_after_switching_language(browser, live_server, cast):  # noqa: F811
    context, page, pid = open_response(browser, live_server, cast)
    box = page.locator("textarea.rationale").first
    box.press_sequentially("第一句。", delay=20)
    page.wait_for_selector("#save-status.state-saved")
    version = Assignment.objects.get(public_id=pid).draft_version

    # The next autosave reaches the server and is written, but its answer never reaches the page.
    held = []

    def hold_the_answer(route):
        if held:
            route.continue_()
        else:
            held.append(route.fetch())  # written on the server; the page's request is never answered

    page.route("**/draft/", hold_the_answer)
    box.press_sequentially("第二句。", delay=20)
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the autosave was not sent"
    assert Assignment.objects.get(public_id=pid).draft_version == version + 1
    assert first_rationale(pid) == "第一句。第二句。"
    # Typed while that save is in flight, then the expert switches language at once.
    box.press_sequentially("第三句。", delay=20)
    switch_to_english(page, pid)

    # The text comes back whole and is saved; nothing is offered back as if another tab had written.
    page.wait_for_selector("#save-status.state-saved")
    assert page.locator("textarea.rationale").first.input_value() == "第一句。第二句。第三句。"
    assert first_rationale(pid) == "第一句。第二句。第三句。"
    assert page.locator("#ws-held").is_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "leaving-right-after-typing.png"))
    context.close()


def test_text_typed_just_before_closing_the_tab_is_saved(browser, live_server, cast):  # noqa: F811
    context, page, pid = open_response(browser, live_server, cast)
    page.locator("textarea.rationale").first.press_sequentially("关闭前写下的理由。", delay=20)
    page.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not Judgment.objects.filter(assignment__public_id=pid, rationale="关闭前写下的理由。").exists():
        time.sleep(0.1)
    assert first_rationale(pid) == "关闭前写下的理由。"
    context.close()
