"""Every page and endpoint, as users holding every role, in zh-Hans: each renders, and no English interface text is left.

One crawl per user serves both checks. It walks every URL pattern with the world's ids and
every link (the walk of tests/security/test_dual_role_crawl.py), the browser asking for zh-Hans:

- any error surfaces (a catalogue entry whose placeholders do not match its English fails only
  in Chinese), and every whole page says `lang="zh-hans"`;
- on each HTML page the visible text and the attributes read out are searched for runs of
  English words (tests/core/english_ui_text.py says what is left out as data: `translate="no"`
  elements, the world's stored strings, codes, names of the field). A failure lists each run with
  the pages it was found on, for the translation pass;
- and for stored values shown as they are stored, which have no English word to find: a Python
  timedelta, a "field: before → after" diff, a code with an underscore (a role, a field name), a
  stray space before 前 (`raw_values_on_page`).

The crawl goes as every role: each staff role alone, an expert alone, an expert holding every
staff role, and a superuser.

The world's campaigns are closed to its dual-role users (they rate in them, or in one sharing
their responses), so the crawl also gets a blind test of its own to read, with an official and an
exploratory report: the dashboard's figures, charts, reasons and alerts are checked too.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from django.apps import apps
from django.db import models
from django.test import Client

from annotation.models import Campaign
from tests.core.english_ui_text import english_on_page, english_runs, raw_values_on_page, visible_texts
from tests.security import test_dual_role_crawl as walk
from tests.security.dual_role_world import ELSEWHERE, OPEN_MODEL, build_dual_role_world
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
    """A blind test of the cast's experts on the world's other dataset (a dual-role user sees none of the open campaign's)."""
    lines = judgment_lines([e.username for e in cast.experts], vectors={k: v for k, v in judge_vectors().items() if k[1] == OPEN_MODEL})
    return import_judgments(source=as_file(lines), dataset_name=ELSEWHERE, campaign_name="E reported").campaign


class ChineseClient(Client):
    """A test client asking for zh-Hans that keeps the body of every whole HTML page it fetched."""

    pages: dict[str, str]

    def __init__(self) -> None:
        super().__init__(HTTP_ACCEPT_LANGUAGE="zh-hans")
        self.pages = {}

    def get(self, path, *args, **kwargs):  # type: ignore[override]
        response = super().get(path, *args, **kwargs)
        if response.status_code == 200 and "html" in response.get("Content-Type", ""):
            body = (b"".join(response.streaming_content) if response.streaming else response.content).decode("utf-8", "replace")
            if response.streaming:  # the crawl reads the body again
                response.streaming_content = [body.encode()]
            if "<html" in body and "platform API</title>" not in body:  # the API docs page is the generator's own
                self.pages[str(path)] = body
        return response


def test_the_detector_finds_english_interface_text_and_leaves_data_alone():
    page = (
        '<html lang="zh-hans"><head><title>Campaigns · 标注</title></head><body>'
        '<button lang="en">English</button><p>已提交 3 份 <a title="Open the report" href="/x/">报告</a></p>'
        '<div translate="no">A user wrote this dialogue</div><p data-i18n-skip>gpt model answer</p>'
        "<code>make_it_so</code><td>Cohen's κ 0.81 · AC1</td><td>expert_1 · demo.jsonl · /work/a/1/</td>"
        "<svg><text>golden standard</text></svg>"
        "<p>Ms Data Name 提交</p><input type=submit value='Save draft'></body></html>"
    )
    assert english_on_page(page, data=("Ms Data Name",)) == ["Campaigns", "Open the report", "golden standard", "Save draft"]
    assert "A user wrote this dialogue" not in " ".join(visible_texts(page))
    assert english_runs("第 3 条 not translated yet 的") == ["not translated yet"]


def test_the_detector_finds_stored_values_shown_as_they_are_stored():
    page = (
        '<html lang="zh-hans"><body><td>2:00:00</td><td>1 day, 0:00:00</td>'
        "<div><code>status</code>: <del>draft</del> → <ins>submitted</ins></div><div>threshold: 0.75</div>"
        '<span class="tag">rubric_author</span><p>27 分钟 前</p>'
        "<p>状态由“草稿”改为“已提交审核”。</p><p>修订 1 → 2</p><p>27分钟前 · 2小时30分钟</p><code>import_heartbench</code>"
        '<p>Ms Data: 进行中 → 已暂停</p><td>ms_data_name</td><a href="/a_b/">链接</a></body></html>'
    )
    assert [shape for shape, _text in raw_values_on_page(page, data=("Ms Data", "ms_data_name"))] == [
        "a timedelta",
        "a timedelta",
        "a code shown as text",
        "a raw change",
        "a raw change",
        "a space before 前",
    ]


# The cast's users holding one role each, beside the world's dual-role users. An admin alone reads a subset of
# what the superuser and expert+all crawls read (the same pages, fewer of them), so it is not crawled a third time.
SINGLE_ROLES = {"rubric author": "author", "senior reviewer": "reviewer", "expert": "expert"}


@pytest.mark.parametrize("combination", ["expert+all", "superuser", *SINGLE_ROLES])
def test_every_page_renders_in_chinese_and_shows_no_english_interface_text(combination, cast, monkeypatch):
    world = build_dual_role_world(cast, platform_runs=True)
    if combination not in SINGLE_ROLES:  # the reports' pages are read by the crawls that reach every page
        # A stored agreement report for every blind test with submitted work: the dashboard shows its figures, charts and alerts.
        # The world's runs made on the platform are a second judge: the reports name the one they compare.
        for campaign in Campaign.objects.filter(kind=Campaign.Kind.BLIND_TEST, responses__assignments__status="submitted").distinct():
            create_agreement_report(campaign=campaign, judge="demo-judge", resamples=20)
    own = report_campaign(cast)
    if combination not in SINGLE_ROLES:
        create_agreement_report(campaign=own, judge="demo-judge")
        create_agreement_report(campaign=own, judge="demo-judge", resamples=20, seed=3, threshold=0.9, exclude_catastrophic=True)
    user = getattr(cast, SINGLE_ROLES[combination]) if combination in SINGLE_ROLES else world.users[combination]
    clients: list[ChineseClient] = []

    def chinese_client() -> ChineseClient:
        clients.append(ChineseClient())
        return clients[-1]

    monkeypatch.setattr(walk, "Client", chinese_client)
    monkeypatch.setattr(walk, "_leaks", lambda text, world: [])  # blindness is test_dual_role_crawl's; here, language
    reached = walk._crawl(world, user)
    pages = {url: body for client in clients for url, body in client.pages.items()}
    if combination in ("expert+all", "superuser"):
        assert "/validation/" in reached and "/rubrics/" in " ".join(reached)
        assert len(pages) > 20 and f"/validation/campaigns/{own.pk}/" in pages, sorted(pages)
    else:  # each role reached its own pages
        assert len(pages) > 5, sorted(pages)
        home = {"rubric author": "/rubrics/", "senior reviewer": "/validation/adjudication/", "expert": "/work/"}[combination]
        assert home in pages, sorted(pages)

    not_chinese = [url for url, body in pages.items() if 'lang="zh-hans"' not in body]
    assert not not_chinese, not_chinese[:5]
    assert sum("评测任务" in b or "评分项" in b or "评分" in b for b in pages.values()) > len(pages) // 2

    data = (*stored_strings(), user.username)
    where: dict[str, list[str]] = defaultdict(list)
    for url, body in sorted(pages.items()):
        for run in english_on_page(body, data):
            where[run].append(url)
        for shape, text in raw_values_on_page(body, data):
            where[f"{shape}: {text}"].append(url)
    report = "\n".join(f"  {run!r} on {', '.join(urls[:3])}{' …' if len(urls) > 3 else ''}" for run, urls in sorted(where.items()))
    assert not where, f"{len(where)} English interface strings or raw values on zh-Hans pages (as {combination}):\n{report}"
