"""The database's ranking equals the reference scorer on English, Chinese, full-width and repeated terms, and pages by id.

The search reads ids, scores and the total first, then the page's rows by id; the score counts a
term's occurrences in bytes (a Chinese character is three). Both must give exactly what
`heartbench_core.lib.search.score` gives, in the same order, with the same total, on SQLite and
PostgreSQL (run with DATABASE_URL for the latter).
"""

import pytest

from annotation.knowledge import selectors
from annotation.knowledge.models import FaqEntry
from annotation.knowledge.services.knowledge import _faq_search
from heartbench_core.lib import search as lib
from tests.factories import demo_version

TEXTS = [
    ("Empathy first", "empathy empathy empathy empathy empathy empathy, then advice"),
    ("On advice", "Advice too early: the user wanted empathy, not a plan."),
    ("共情的判断", "共情共情共情：回复说出了用户的感受。empathy"),
    ("过早建议", "回复过早提供具体行为建议，用户并没有请求建议。"),
    ("全角 ＥＭＰＡＴＨＹ", "ＥＭＰＡＴＨＹ 与 empathy 是同一个词。"),
    ("Nothing here", "A text about something else entirely."),
    ("用户感受", "用户 感受 用户感受 empathy empathy"),
]
QUERIES = ["empathy", "共情", "过早建议", "用户 感受", "AI 共情", "empathy advice", "ＥＭＰＡＴＨＹ", "感受"]


@pytest.fixture
def entries(cast):
    version = demo_version()
    made = []
    for i, (question, answer) in enumerate(TEXTS * 4):  # four of each: ties ordered by date, then id
        entry = FaqEntry(
            dataset=version.dataset,
            question=f"{question} {i}",
            answer=answer,
            status=FaqEntry.Status.PUBLISHED,
            author=cast.author,
            reviewer=cast.reviewer,
        )
        _faq_search(entry)
        made.append(entry)
    FaqEntry.objects.bulk_create(made)
    return version.dataset


@pytest.mark.parametrize("query", QUERIES)
def test_scores_order_and_total_are_the_reference_s(cast, entries, query, django_assert_max_num_queries):
    terms = lib.parse_query(query)
    expected = []
    for entry in FaqEntry.objects.filter(dataset=entries):
        value = lib.score(entry.search_title, entry.search_text, terms)
        if value is not None:
            expected.append((-value, -entry.pk))  # ties: newest first (none is dated here), then the higher id
    expected.sort()
    selectors.search(cast.expert, "warm", as_expert=True, dataset=entries)  # the expert's roles and blind scope, read once per request
    with django_assert_max_num_queries(4):  # per kind: the ranked ids with the total, then the page's rows
        results = selectors.search(cast.expert, query, as_expert=True, dataset=entries, limit=10)
    assert results.faq_total == len(expected)
    got = [(h.score, h.faq.pk) for h in results.faq]
    assert [pk for _, pk in got] == [-pk for _, pk in expected[:10]]
    assert [score for score, _ in got] == pytest.approx([-value for value, _ in expected[:10]])
    assert all(hit.faq.dataset_id == entries.pk for hit in results.faq)  # the rows read by id are whole
