"""Two tabs on one response, in a real browser and in Chinese: the stale tab is told, keeps its text, and overwrites nothing.

Both tabs open the response at the same draft version. Tab A saves; tab B, still on the older
version, types and its autosave is refused (409): its indicator says, in Chinese, that the
response changed in another tab and its text is kept, the text stays in its form and in the
browser, and the server keeps tab A's text. Reloaded, tab B shows tab A's text and offers its
own back; putting it back is a choice, and is saved. Screenshots go to test-artifacts/.
"""

import gettext as gettext_module
import json
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Judgment
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import say
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def say_in_script(msgid: str) -> str:
    """The Chinese a page's script shows for a djangojs catalogue entry (it must really be Chinese)."""
    catalogue = gettext_module.translation("djangojs", localedir=str(Path(settings.BASE_DIR) / "locale"), languages=["zh_Hans"])
    text = catalogue.gettext(msgid)
    assert text != msgid, f"no Chinese for {msgid!r} in djangojs"
    return text


def signed_in_context(browser, live_server, user):  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN"})
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/work/")
    return context, page


def test_the_stale_tab_is_told_in_chinese_keeps_its_text_and_overwrites_nothing(browser, live_server, cast):  # noqa: F811
    campaign_on(cast, "dm0001")
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    context, tab_a = signed_in_context(browser, live_server, cast.expert)
    tab_a.click("button.ws-next")
    tab_a.wait_for_url(f"{live_server.url}/work/a/**")
    url = tab_a.url
    pid = url.rstrip("/").split("/")[-1]
    tab_b = context.new_page()
    tab_b.goto(url)
    assert tab_b.get_attribute("html", "lang") == "zh-hans"

    tab_a.locator("textarea.rationale").first.fill("甲标签页：回复准确指出了患者的疲劳。")
    tab_a.wait_for_selector("#save-status.state-saved")
    first = Judgment.objects.get(assignment__public_id=pid, criterion__position=0)
    assert first.rationale == "甲标签页：回复准确指出了患者的疲劳。"

    box_b = tab_b.locator("textarea.rationale").first
    box_b.click()
    box_b.fill("乙标签页：较早的想法，不应覆盖甲的文本。")
    tab_b.wait_for_selector("#save-status.state-conflict")

    status = tab_b.inner_text("#save-status")
    changed = say(
        "zh-hans", "Changed in another tab — your text is kept here; reload to see the other version (or save again to keep yours)."
    )
    assert status.strip() == changed
    assert box_b.input_value() == "乙标签页：较早的想法，不应覆盖甲的文本。"
    assert tab_b.evaluate("document.activeElement.classList.contains('rationale')")
    held = json.loads(tab_b.evaluate(f"window.localStorage.getItem('hb-draft-held:{pid}')"))
    assert "乙标签页：较早的想法，不应覆盖甲的文本。" in [e["r"] for e in held["entries"].values()]
    assert Judgment.objects.get(pk=first.pk).rationale == "甲标签页：回复准确指出了患者的疲劳。"
    ARTIFACTS.mkdir(exist_ok=True)
    tab_b.screenshot(path=str(ARTIFACTS / "two-tabs-stale-tab-told-zh.png"))

    # Reloaded, the stale tab shows the saved text and offers its own back.
    tab_b.reload()
    assert tab_b.locator("textarea.rationale").first.input_value() == "甲标签页：回复准确指出了患者的疲劳。"
    held_panel = tab_b.locator("#ws-held")
    held_panel.wait_for(state="visible")
    assert say("zh-hans", "Put my text back") in held_panel.inner_text()
    tab_b.screenshot(path=str(ARTIFACTS / "two-tabs-text-offered-back-zh.png"))
    held_panel.get_by_role("button", name=say("zh-hans", "Put my text back")).click()
    tab_b.wait_for_selector("#save-status.state-saved")
    assert tab_b.locator("textarea.rationale").first.input_value() == "乙标签页：较早的想法，不应覆盖甲的文本。"
    assert Judgment.objects.get(pk=first.pk).rationale == "乙标签页：较早的想法，不应覆盖甲的文本。"
    context.close()
