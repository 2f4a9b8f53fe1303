"""The blind-test planner in a real browser, in Simplified Chinese, on a desk and on a phone.

The admin opens the planner from the campaigns page, picks the pilot blind test, asks for two
shares with 3 raters, reads the designs and the sentence on the pilot, follows "use this design"
and lands on the new-campaign form with the share and k filled in. On a phone-sized screen the
page has no sideways scroll but for the table's own. Screenshots go to HB_SCREENSHOT_DIR (or the
test's temporary directory).
"""

from __future__ import annotations

import pytest

from heartbench_core.lib import planner as lib
from tests.browser.test_judging_flow import browser  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import Walk, say, shots  # noqa: F401 (fixture)
from tests.validation.builders import blind_test

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_plans_a_blind_test_and_the_design_fills_the_campaign_form(browser, live_server, cast, shots, monkeypatch):  # noqa: F811
    monkeypatch.setattr(lib, "MIN_PILOT_ITEMS", 5)  # the demo's blind test has 6 items
    pilot = blind_test(cast)
    walk = Walk(browser, live_server, cast.admin, "zh-hans", shots)
    page = walk.page
    walk.nav("Campaigns")
    page.locator("main").get_by_role("link", name=say("zh-hans", "Blind-test planner"), exact=True).click()
    page.wait_for_url("**/validation/planner/")
    walk.check(say("zh-hans", "Blind-test planner"), say("zh-hans", "Pilot"))
    page.select_option("#id_pilot", str(pilot.pk))
    page.fill("#id_models", "3")
    page.fill("#id_shares", "0.5, 1")
    page.fill("#id_raters", "3")
    page.get_by_role("button", name=say("zh-hans", "Plan", context="verb: compute the plan")).click()
    page.wait_for_selector("#plan")
    walk.check(say("zh-hans", "Designs"), pilot.name, say("zh-hans", "Use this design"))
    assert page.locator("#plan tbody tr").count() == 2
    page.locator("#plan tbody tr").first.get_by_role("link", name=say("zh-hans", "Use this design")).click()
    page.wait_for_url("**/work/manage/campaigns/new/**")
    walk.check(say("zh-hans", "New blind-test campaign"))
    assert page.input_value("#id_sample_fraction") == "0.5" and page.input_value("#id_overlap") == "3"

    # The same page on a phone-sized screen: one browser session, nothing left loading when the test ends.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(
        f"{live_server.url}/validation/planner/?version={pilot.version_id}&models=3&pilot={pilot.pk}&shares=0.5&raters=3"
        "&judge_agreement=0.87&leniency_sd=0.5&seconds_per_criterion=20"
    )
    page.wait_for_selector("#plan")
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("html", "lang") == "zh-hans"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    page.screenshot(path=str(shots / "planner-phone-zh.png"), full_page=True)
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px on a phone"
