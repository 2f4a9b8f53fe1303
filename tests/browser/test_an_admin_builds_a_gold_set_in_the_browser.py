"""The gold-set builder in a real browser, in Simplified Chinese: filter, tick free responses, keep the ticks across filters, create.

The admin opens the builder from the campaigns page, narrows the list to one model (htmx),
ticks two free responses whose every criterion a closed blind test settled, widens the list
again (the ticks are still there), names the set and creates it, and lands on the new gold
set's page. A response a gold set already holds has no checkbox. A calibration set drafted for
senior reviewers: the reviewer writes every verdict with its explanation, the admin finalises. Screenshots go to
HB_SCREENSHOT_DIR (or the test's temporary directory); docs/img/gold-set-builder-zh.png is one.
"""

from __future__ import annotations

import pytest

from annotation.models import Campaign, CampaignResponse, GoldLabel
from heartbench_core.models import Criterion, ModelResponse
from tests.annotation.manage.helpers import gold_set
from tests.browser.test_judging_flow import browser  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import Walk, say, shots  # noqa: F401 (fixture)
from tests.factories import demo_responses, demo_version
from tests.validation.builders import blind_test
from validation.services.golden import refresh_golden_labels

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_builds_a_gold_set_from_free_settled_responses(browser, live_server, cast, shots):  # noqa: F811
    closed = blind_test(cast, flip=0.02, seed=5)
    refresh_golden_labels(campaign=closed)
    gold_set(demo_version())
    held = ModelResponse.objects.get(question_id="dm0005", model__name="demo-model-aurora")
    walk = Walk(browser, live_server, cast.admin, "zh-hans", shots)
    page = walk.page
    walk.nav("Campaigns")
    page.locator("main").get_by_role("link", name=say("zh-hans", "Gold-set builder"), exact=True).click()
    page.wait_for_url("**/validation/gold-builder/")
    walk.check(say("zh-hans", "Gold-set builder"), say("zh-hans", "free"), say("zh-hans", "gold set %(name)s", name="Gold pool"))
    assert page.locator(f'tr[data-response="{held.pk}"] input[type=checkbox]').count() == 0

    boxes = page.locator("#builder-table tr.pickable input[type=checkbox]")
    assert boxes.count() >= 2
    first, second = (int(boxes.nth(i).get_attribute("value") or 0) for i in (0, 1))
    boxes.nth(0).check()
    boxes.nth(1).check()
    # Narrowing to another model swaps the list (htmx); the ticks ride along and come back.
    page.select_option("#builder-filters select[name=model]", "demo-model-cirrus")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#builder-table td[translate=no]')].every(td => !td.innerText.includes('aurora'))"
    )
    page.select_option("#builder-filters select[name=model]", "")
    page.wait_for_selector(f'#builder-table input[value="{first}"]')
    assert page.locator(f'#builder-table input[value="{first}"]').is_checked()
    assert page.locator(f'#builder-table input[value="{second}"]').is_checked()
    page.fill("#id_name", "浏览器金标准集")
    walk.check(say("zh-hans", "Create from the ticked responses"))
    page.locator("#builder-form button[type=submit]").click()
    page.wait_for_url("**/work/manage/campaigns/*/")
    walk.check("浏览器金标准集")
    built = Campaign.objects.get(name="浏览器金标准集")
    assert built.kind == Campaign.Kind.GOLD_SET
    assert set(CampaignResponse.objects.filter(campaign=built).values_list("response_id", flat=True)) == {first, second}
    assert GoldLabel.objects.filter(campaign_response__campaign=built).count() > 0


def test_senior_reviewers_write_a_drafted_calibration_set_and_the_admin_finalises_it(browser, live_server, cast, shots):  # noqa: F811
    demo_version()
    demo_responses()
    admin = Walk(browser, live_server, cast.admin, "zh-hans", shots)
    admin.page.goto(admin.base + "/validation/gold-builder/?question_id=dm0002")
    admin.check(say("zh-hans", "Gold-set builder"))
    box = admin.page.locator("#builder-table input[type=checkbox]").first
    picked = int(box.get_attribute("value") or 0)
    box.check()
    admin.page.select_option("#id_kind", "calibration")
    admin.page.check('input[name=source][value="reviewers"]')
    admin.page.fill("#id_name", "审核员撰写的校准集")
    admin.page.locator("#builder-form button[type=submit]").click()
    admin.page.wait_for_url("**/validation/gold-drafts/*/")
    admin.check("审核员撰写的校准集", say("zh-hans", "Finalise"))

    reviewer = Walk(browser, live_server, cast.reviewer, "zh-hans", shots)
    reviewer.page.goto(reviewer.base + "/validation/adjudication/")
    reviewer.page.get_by_role("link", name=say("zh-hans", "Gold-set drafts"), exact=True).click()
    reviewer.page.get_by_role("link", name="审核员撰写的校准集", exact=True).click()
    reviewer.check(say("zh-hans", "Save these verdicts"))
    assert "demo-model" not in reviewer.page.inner_text("main")
    for i, item in enumerate(reviewer.page.locator("ol.draft-criteria > li").all()):
        item.locator('input[type=radio][value="1"]' if i % 2 == 0 else 'input[type=radio][value="0"]').check()
        item.locator("textarea").fill(f"第 {i + 1} 条的解释")
    reviewer.page.get_by_role("button", name=say("zh-hans", "Save these verdicts")).click()
    reviewer.page.wait_for_load_state()
    reviewer.check(say("zh-hans", "%(n)d verdicts saved.", n=Criterion.objects.filter(item__question_id="dm0002").count()))

    admin.page.reload()
    admin.page.get_by_role("button", name=say("zh-hans", "Finalise")).click()
    admin.page.wait_for_url("**/work/manage/campaigns/*/")
    admin.check("审核员撰写的校准集")
    built = Campaign.objects.get(name="审核员撰写的校准集")
    assert built.kind == Campaign.Kind.CALIBRATION
    assert GoldLabel.objects.filter(
        campaign_response__campaign=built, campaign_response__response_id=picked, explanation="第 1 条的解释"
    ).exists()
