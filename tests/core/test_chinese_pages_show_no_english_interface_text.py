"""Every page, as users holding every role, in zh-Hans: no English interface text is left.

The crawl of test_every_page_renders_in_chinese.py (every URL pattern with the world's ids, and
every link), with the browser asking for zh-Hans. On each HTML page, the visible text and the
attributes read out are searched for runs of English words (tests/core/english_ui_text.py says
what is left out as data: `translate="no"` elements, the world's stored strings, codes, names of
the field). A failure lists each run with the pages it was found on, for the translation pass.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from django.apps import apps
from django.db import models
from django.test import Client

from annotation.models import Campaign
from tests.core.english_ui_text import english_on_page, english_runs, visible_texts
from tests.security import test_dual_role_crawl as walk
from tests.security.dual_role_world import OPEN_MODEL, build_dual_role_world
from tests.security.urlwalk import links_in
from tests.validation.builders import as_file, judge_vectors, judgment_lines
from validation.services.agreement_reports import create_agreement_report
from validation.services.imports import import_judgments

pytestmark = pytest.mark.django_db

# What the project stores is data, whatever page shows it: names, texts, labels people and imports wrote.
_DATA_APPS = ("heartbench_core", "annotation", "rubrics", "validation", "auth")


def stored_strings() -> tuple[str, ...]:
    """Every stored text value with an English letter in it, longest first (free-text fields, not coded choices)."""
    found: set[str] = set()
    for model in apps.get_models():
        if model._meta.app_label not in _DATA_APPS:
            continue
        fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, (models.CharField, models.TextField)) and not f.choices and f.name not in ("password",)
        ]
        for row in model.objects.values_list(*fields) if fields else ():
            found.update(v.strip() for v in row if isinstance(v, str) and re.search("[A-Za-z]", v) and len(v.strip()) > 1)
    return tuple(sorted(found, key=len, reverse=True))


def report_campaign(cast) -> Campaign:
    """A blind test of the cast's experts on the responses of the world's model that no open campaign holds."""
    lines = judgment_lines([e.username for e in cast.experts], vectors={k: v for k, v in judge_vectors().items() if k[1] == OPEN_MODEL})
    return import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="E reported").campaign


def crawl_pages(client: Client, start: set[str]) -> dict[str, str]:
    """Every HTML page (a full page, not an htmx partial) reachable from the start URLs: URL → body."""
    queue, seen, pages = set(start) | {"/", "/work/"}, set(), {}
    while queue:
        url = queue.pop()
        if url in seen or "logout" in url:
            continue
        seen.add(url)
        response = client.get(url, follow=False)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        body = (b"".join(response.streaming_content) if response.streaming else response.content).decode("utf-8", "replace")
        queue |= links_in(url, body) - seen
        if "<html" in body and "platform API</title>" not in body:  # the API docs page is the generator's own
            pages[url] = body
    return pages


def test_the_detector_finds_english_interface_text_and_leaves_data_alone():
    page = (
        '<html lang="zh-hans"><head><title>Campaigns · 标注</title></head><body>'
        '<button lang="en">English</button><p>已提交 3 份 <a title="Open the report" href="/x/">报告</a></p>'
        '<div translate="no">A user wrote this dialogue</div><p data-i18n-skip>gpt model answer</p>'
        "<code>make_it_so</code><td>Cohen's κ 0.81 · AC1</td><td>expert_1 · demo.jsonl · /work/a/1/</td>"
        "<p>Ms Data Name 提交</p><input type=submit value='Save draft'></body></html>"
    )
    assert english_on_page(page, data=("Ms Data Name",)) == ["Campaigns", "Open the report", "Save draft"]
    assert "A user wrote this dialogue" not in " ".join(visible_texts(page))
    assert english_runs("第 3 条 not translated yet 的") == ["not translated yet"]


@pytest.mark.parametrize("combination", ["expert+all", "superuser"])
def test_no_page_shows_english_interface_text_in_chinese(combination, cast, monkeypatch):
    world = build_dual_role_world(cast)
    # A stored agreement report for every blind test with submitted work: the dashboard shows its figures, charts and alerts.
    for campaign in Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, responses__assignments__status="submitted").distinct():
        create_agreement_report(campaign=campaign, resamples=20)
    # The world's campaigns are closed to its dual-role users (they rate in them, or in one sharing their responses),
    # so a campaign of their own to read: an official report, then an exploratory one that the dashboard shows first.
    own = report_campaign(cast)
    create_agreement_report(campaign=own)
    create_agreement_report(campaign=own, resamples=20, seed=3, threshold=0.9, exclude_catastrophic=True)
    user = world.users[combination]
    pages: dict[str, str] = {}

    def chinese_client() -> Client:
        return Client(HTTP_ACCEPT_LANGUAGE="zh-hans")

    def record(client: Client, start: set[str], leaks: object) -> list[str]:
        pages.update(crawl_pages(client, start))
        return list(pages)

    monkeypatch.setattr(walk, "Client", chinese_client)
    monkeypatch.setattr(walk, "crawl", record)
    walk._crawl(world, user)
    assert len(pages) > 20, sorted(pages)  # the crawl reached the site, not only its start page

    data = (*stored_strings(), user.username)
    where: dict[str, list[str]] = defaultdict(list)
    for url, body in sorted(pages.items()):
        for run in english_on_page(body, data):
            where[run].append(url)
    report = "\n".join(f"  {run!r} on {', '.join(urls[:3])}{' …' if len(urls) > 3 else ''}" for run, urls in sorted(where.items()))
    assert not where, f"{len(where)} English interface strings on zh-Hans pages (as {combination}):\n{report}"
