"""In a browser, a change of the work list's filter swaps the list in place and the URL keeps it."""

import pytest

from heartbench_core.models import Criterion
from rubrics import services
from tests.browser.test_judging_flow import browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD
from tests.factories import demo_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_filter_change_swaps_the_list_and_stays_in_the_url(browser, live_server, cast):  # noqa: F811
    version = demo_version()
    flagged = Criterion.objects.select_related("lineage").get(item__version=version, item__question_id="dm0002", position=0)
    services.flag_criterion(lineage=flagged.lineage, reason="which feeling?", source="adjudication")
    other = Criterion.objects.select_related("lineage").get(item__version=version, item__question_id="dm0003", position=0)
    services.flag_criterion(lineage=other.lineage, reason="too broad", source="author")
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", cast.author.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.goto(live_server.url + "/rubrics/")
    rows = page.locator("#work-list tbody tr")
    assert rows.count() == 2
    assert "high" in rows.first.inner_text() and "dm0002" in rows.first.inner_text()  # adjudication flags come first
    page.select_option("select[name=sort]", "item")
    page.wait_for_url("**/rubrics/?*sort=item*")
    page.select_option("select[name=ability]", other.ability)
    page.wait_for_url(lambda url: "ability=%" in url)  # the chosen (Chinese) label, percent-encoded
    page.wait_for_function(
        "document.querySelectorAll('#work-list tbody tr').length === 1 || document.querySelector('#work-list').innerText.includes('dm0003')"
    )
    assert "dm0003" in page.locator("#work-list").inner_text()
    url = page.url
    page.reload()
    assert page.url == url and page.locator("select[name=sort]").input_value() == "item", page.url
    assert page.locator("select[name=ability]").input_value() == other.ability, (
        page.url,
        page.locator("select[name=ability]").inner_html(),
    )
    assert "dm0003" in page.locator("#work-list").inner_text()
