"""The response under test is in view at 1440×900 on load and after scrolling the criteria to the bottom, on real HeartBench items.

Thirty items of the released data: the ten with the longest dialogues, the ten with the most
criteria and ten more drawn with a fixed seed, each with a synthetic response of 120 to 900
characters (the released data has no model responses). For each judging page the response's
box must lie inside the window, and the dialogue above it must be scrolled to its last turn.
Screenshots of the longest dialogue's page, in English and in Chinese, go to test-artifacts/.
"""

import json
import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.models import Assignment, Campaign, CampaignResponse
from annotation.services.guidelines import publish_guidelines
from heartbench_core.models import Item, ModelResponse
from heartbench_core.services.responses import import_responses
from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD, heartbench_file

pytestmark = [pytest.mark.browser, pytest.mark.heartbench, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1440, 900
GUIDELINES = "## 判断原则\n\n- 先写理由，再判断**命中**或**未命中**。\n- 只评价待评回复本身；对话是背景。\n"
PARAGRAPH = "我听到你说这段时间一直很累，好像怎么努力都不被看见。这种感觉真的很消耗人，你愿意多说一点，最让你难受的是哪一刻吗？"


def synthetic_response(n: int) -> str:
    """About `length` characters of a plausible counselling reply, in paragraphs."""
    length = (120, 400, 900)[n % 3]
    paragraphs, total = [], 0
    while total < length:
        paragraphs.append(PARAGRAPH)
        total += len(PARAGRAPH)
    return "\n\n".join(paragraphs)


def pick_items() -> list[Item]:
    items = list(Item.objects.prefetch_related("criteria"))
    by_dialogue = sorted(items, key=lambda i: -sum(len(t.get("content", "")) for t in i.dialogue))
    by_criteria = sorted(items, key=lambda i: -len(i.criteria.all()))
    chosen: dict[int, Item] = {}
    for item in by_dialogue[:10] + by_criteria[:10]:
        chosen.setdefault(item.pk, item)
    rest = [i for i in items if i.pk not in chosen]
    for item in random.Random(7).sample(rest, 30 - len(chosen)):
        chosen[item.pk] = item
    return [*chosen.values()][:30]


@pytest.fixture
def real_pages(cast, tmp_path):
    call_command("import_heartbench", str(heartbench_file()), "--dataset", "heartbench")
    items = pick_items()
    path = tmp_path / "responses.jsonl"
    path.write_text(
        "".join(
            json.dumps({"question_id": i.question_id, "response": synthetic_response(n)}, ensure_ascii=False) + "\n"
            for n, i in enumerate(items)
        ),
        encoding="utf-8",
    )
    import_responses(source=path, dataset_name="heartbench", model_name="synthetic-long")
    campaign = Campaign.objects.create(name="HeartBench in view", version=items[0].version, overlap=1, rationale_min_chars=5)
    by_question = {i.question_id: i for i in items}
    pages = []
    for response in ModelResponse.objects.filter(model__name="synthetic-long"):
        item = by_question[response.question_id]
        cr = CampaignResponse.objects.create(campaign=campaign, response=response, item=item)
        assignment = Assignment.objects.create(campaign_response=cr, expert=cast.expert, expires_at=timezone.now() + timedelta(hours=2))
        pages.append((item, assignment.public_id))
    # The two longest dialogues, for the screenshots (one per language, each from a fresh start).
    longest = sorted(pages, key=lambda p: -sum(len(t.get("content", "")) for t in p[0].dialogue))[:2]
    return pages, longest


def log_in(browser, live_server, user, *, locale="en-US"):  # noqa: F811
    context = browser.new_context(
        viewport={"width": WIDTH, "height": HEIGHT}, locale=locale, extra_http_headers={"Accept-Language": locale}
    )
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/work/")
    return page


def in_view(page) -> dict:
    page.wait_for_timeout(50)  # one animation frame: the column is refitted after a scroll
    return page.evaluate(
        """() => {
        const box = document.getElementById('response-under-test').getBoundingClientRect();
        const dialogue = document.querySelector('.ws-dialogue-scroll');
        const text = document.querySelector('#response-under-test .response-text');
        return {top: box.top, bottom: box.bottom, height: box.height, left: box.left, right: box.right,
                textShown: text.clientHeight, textFull: text.scrollHeight,
                atEnd: dialogue.scrollTop + dialogue.clientHeight >= dialogue.scrollHeight - 2,
                scrolled: window.scrollY};
    }"""
    )


def assert_inside(where, item, box):
    # Readable, not a sliver: the whole response, or at least a quarter of the window of it (it scrolls within its box).
    shown = min(box["textFull"], HEIGHT // 4)
    assert box["textShown"] >= shown - 1, f"{item.question_id} {where}: only {box['textShown']}px of the response's text shows"
    assert box["top"] >= 0 and box["bottom"] <= HEIGHT and box["left"] >= 0 and box["right"] <= WIDTH, (
        f"{item.question_id} {where}: the response box {box} is not inside the {WIDTH}×{HEIGHT} window"
    )


def test_the_response_under_test_is_in_view_on_load_and_after_scrolling_the_criteria(browser, live_server, cast, real_pages):  # noqa: F811
    pages, longest = real_pages
    assert len(pages) == 30
    page = log_in(browser, live_server, cast.expert)
    for item, public_id in pages:
        page.goto(f"{live_server.url}/work/a/{public_id}/")
        loaded = in_view(page)
        assert_inside("on load", item, loaded)
        assert loaded["atEnd"], f"{item.question_id}: the dialogue is not scrolled to its last turn on load"
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        scrolled = in_view(page)
        assert scrolled["scrolled"] > 0 or page.evaluate("document.documentElement.scrollHeight <= innerHeight")
        assert_inside("after scrolling the criteria to the bottom", item, scrolled)
        last = page.locator(".criterion-card").last.bounding_box()
        assert last["y"] + last["height"] <= HEIGHT, f"{item.question_id}: the last criterion is not reachable"
    # The screenshots for docs/workspace.md: guidelines, a deadline, and the first criterion judged.
    campaign = Campaign.objects.get(name="HeartBench in view")
    Campaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() + timedelta(days=9))
    publish_guidelines(campaign=campaign, body=GUIDELINES, change_note="", author=cast.admin)
    ARTIFACTS.mkdir(exist_ok=True)
    for (_item, public_id), locale, name in zip(longest, ("en-US", "zh-CN"), ("judging-page-en.png", "judging-page-zh.png")):
        shot = log_in(browser, live_server, cast.expert, locale=locale)
        shot.goto(f"{live_server.url}/work/a/{public_id}/")
        shot.keyboard.type("回应点出了依恋中的不安全感。" if locale == "zh-CN" else "The response names the insecurity.")
        shot.keyboard.press("Alt+KeyH")
        shot.wait_for_selector("#save-status.state-saved")
        shot.evaluate("window.scrollTo(0, 0)")
        assert_inside("for the screenshot", _item, in_view(shot))
        shot.screenshot(path=str(ARTIFACTS / name))
        shot.context.close()
    page.context.close()
