"""Back after submitting, in a real browser and in Chinese: the page shows the submitted, read-only work, never the old form.

The expert judges a response and submits it (the next response opens). Going back, whether the
browser restores the page from its back/forward cache or loads it again, the page shows the
submitted judgments read-only — the rationales and verdicts as submitted, the indicator
"submitted", no form to post — and Ctrl+Enter submits nothing. A page shown again as it was (from
the back/forward cache) asks the server, and reloads to the read-only view when the response was
submitted meanwhile, or stays as it is when nothing changed. Screenshots go to test-artifacts/.
"""

import pytest

from annotation.models import Assignment, Judgment
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
from tests.browser.test_judging_flow import ARTIFACTS, browser, campaign_on, judge_with_keyboard  # noqa: F401 (fixture)
from tests.browser.test_role_paths_in_both_languages import say
from tests.browser.test_two_tabs_on_one_response_lose_nothing import signed_in_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Whether each page was shown from the back/forward cache (the test reports which path it took).
WATCH_PAGESHOW = "window.addEventListener('pageshow', function (e) { window.__restoredFromCache = e.persisted; });"


def test_going_back_after_submitting_shows_the_submitted_work_read_only(browser, live_server, cast):  # noqa: F811
    campaign_on(cast, "dm0001")
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    context, page = signed_in_context(browser, live_server, cast.expert)
    context.add_init_script(WATCH_PAGESHOW)
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    pid = page.url.rstrip("/").split("/")[-1]
    judge_with_keyboard(page, 0, 6, prefix="回复")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: pid not in url)
    assert Assignment.objects.get(public_id=pid).status == Assignment.Status.SUBMITTED

    page.go_back()
    page.wait_for_selector("#save-status.state-submitted", timeout=10000)
    assert pid in page.url
    print("restored from the back/forward cache:", page.evaluate("window.__restoredFromCache"))
    assert page.inner_text("#save-status").strip() == say("zh-hans", "Submitted")
    form = page.locator("#judging-form")
    assert form.get_attribute("data-submitted") == "1"
    assert page.locator(".ws-submit").count() == 0 and page.locator(".ws-save").count() == 0
    cards = page.locator(".criterion-card")
    for i in range(6):
        box = cards.nth(i).locator("textarea.rationale")
        assert box.input_value() == f"回复 rationale for criterion {i + 1}"
        assert box.get_attribute("readonly") is not None
        assert cards.nth(i).locator("input[value=hit]" if i % 3 else "input[value=miss]").is_checked()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "back-after-submit-zh.png"))

    # Nothing to post: Ctrl+Enter stays on the page, and the submitted judgments do not change.
    before = list(Judgment.objects.filter(assignment__public_id=pid).values_list("rationale", "hit"))
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(300)
    assert pid in page.url
    assert list(Judgment.objects.filter(assignment__public_id=pid).values_list("rationale", "hit")) == before
    context.close()


# What the browser fires when it shows a page from its back/forward cache, as it was when left.
RESTORED_AS_IT_WAS = "window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))"


def test_a_page_restored_as_it_was_learns_the_response_was_submitted_meanwhile(browser, live_server, cast):  # noqa: F811
    # (Playwright's Chromium runs without the back/forward cache, so the restore is the event the page would get.)
    campaign_on(cast, "dm0001")
    cast.expert.language = "zh-hans"
    cast.expert.save(update_fields=["language"])
    context, page = signed_in_context(browser, live_server, cast.expert)
    page.click("button.ws-next")
    page.wait_for_url(f"{live_server.url}/work/a/**")
    pid = page.url.rstrip("/").split("/")[-1]
    page.locator("textarea.rationale").first.fill("本页的理由，已保存。")
    page.wait_for_selector("#save-status.state-saved")

    # Restored while nothing changed: the page stays as it is (no reload).
    page.evaluate("window.__sameDocument = true")
    page.evaluate(RESTORED_AS_IT_WAS)
    page.wait_for_timeout(1500)
    assert page.evaluate("window.__sameDocument === true")

    # Meanwhile the response is judged and submitted elsewhere (another tab, the API).
    assignment = Assignment.objects.get(public_id=pid)
    criteria = assignment.campaign_response.item.criteria.order_by("position")
    entries = [DraftEntry(criterion_id=c.pk, rationale=f"另一个标签页的理由 {c.position}", hit=True) for c in criteria]
    version = save_draft(assignment=assignment, expert=cast.expert, entries=entries, based_on=assignment.draft_version).draft_version
    submit_assignment(assignment=assignment, expert=cast.expert, based_on=version)

    page.evaluate(RESTORED_AS_IT_WAS)
    page.wait_for_selector("#save-status.state-submitted", timeout=10000)
    assert not page.evaluate("window.__sameDocument === true")  # reloaded
    assert page.locator("#judging-form").get_attribute("data-submitted") == "1"
    assert page.locator("textarea.rationale").first.input_value() == "另一个标签页的理由 0"
    assert page.locator(".ws-submit").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "back-to-a-page-submitted-meanwhile-zh.png"))
    context.close()
