"""Every page and endpoint a person can reach renders in Simplified Chinese: no translation breaks a page.

A catalogue entry whose placeholders do not match its English would fail only in Chinese; this
walks every URL pattern and every link as users holding every role, with the browser asking for
zh-Hans, and lets any error surface.
"""

import pytest
from django.test import Client

from tests.security import test_dual_role_crawl as walk
from tests.security.dual_role_world import build_dual_role_world
from tests.security.urlwalk import crawl

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("combination", ["expert+all", "superuser"])
def test_every_page_renders_in_chinese_for_a_user_with_every_role(combination, cast, monkeypatch):
    world = build_dual_role_world(cast, platform_runs=True)
    user = world.users[combination]
    pages: dict[str, str] = {}

    def chinese_client() -> Client:
        return Client(HTTP_ACCEPT_LANGUAGE="zh-hans")

    def record(text: str) -> list[str]:
        pages[str(len(pages))] = text
        return []

    monkeypatch.setattr(walk, "Client", chinese_client)
    monkeypatch.setattr(walk, "crawl", lambda client, start, leaks: crawl(client, start, record))
    reached = walk._crawl(world, user)
    assert "/validation/" in reached and "/rubrics/" in " ".join(reached)
    # Whole pages of the site (htmx partials have no <html>; the API docs page is the generator's own).
    html = [t for t in pages.values() if "<html" in t and "platform API</title>" not in t]
    missing = [t[t.find("<title>") : t.find("</title>")] for t in html if 'lang="zh-hans"' not in t]
    assert html and not missing, missing[:5]
    assert sum("评测任务" in t or "评分项" in t for t in html) > len(html) // 2
