"""Searching the library in Chinese finds what it should, on the released HeartBench criteria, on SQLite and PostgreSQL alike.

Chinese has no spaces: a search for 共情, 第一人称 or 过早建议 must find the FAQ entries and cases
that hold those words inside long runs of characters, rank them, and mark them in the snippet.
过早建议 appears in no released criterion as such: the criteria say "过早提供具体行为建议", which
the search finds through the term's character pairs (过早, 建议), below an entry that holds the
whole phrase.
"""

import pytest

from annotation.knowledge import selectors
from annotation.knowledge.models import Case, FaqEntry
from annotation.knowledge.services.knowledge import (
    CaseContent,
    FaqContent,
    create_case,
    create_faq_entry,
    review_faq_entry,
    submit_faq_entry,
)
from heartbench_core.lib import search as lib
from heartbench_core.models import Criterion
from heartbench_core.services.datasets import import_heartbench

pytestmark = [pytest.mark.django_db, pytest.mark.heartbench]

WORDS = ("共情", "第一人称", "过早")


@pytest.fixture
def library(cast, heartbench_all):
    version = import_heartbench(source=heartbench_all, dataset_name="heartbench").version
    criteria = list(Criterion.objects.filter(item__version=version).select_related("lineage").order_by("id"))
    with_word = {w: [c for c in criteria if w in c.text] for w in WORDS}
    without = [c for c in criteria if not any(w in c.text for w in WORDS) and "建议" not in c.text][:15]
    assert len(with_word["共情"]) == 33 and len(with_word["第一人称"]) == 294 and len(with_word["过早"]) == 206
    made = {"faq": {}, "case": {}}
    picked = {w: cs[:6] for w, cs in with_word.items()}
    for criterion in [c for cs in picked.values() for c in cs] + without:
        # A case quotes its criterion (search reads the criterion's wording) and a FAQ entry discusses it.
        found = create_case(
            author=cast.reviewer,
            criterion=criterion,
            content=CaseContent(
                title=f"案例：{criterion.item.question_id} 第{criterion.position + 1}条",
                excerpt="回复节选：我明白你的难处。",
                hit=True,
                reasoning="评审的理由写在这里。",
            ),
            publish=True,
        )
        made["case"][found.pk] = criterion
        entry = create_faq_entry(
            author=cast.author,
            dataset=version.dataset,
            content=FaqContent(
                question=f"这条评分项怎么判？（{criterion.item.question_id}）",
                answer=f"评分项原文：{criterion.text}",
                criteria=[criterion.lineage_id],
            ),
        )
        submit_faq_entry(entry=entry, author=cast.author)
        review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)
        made["faq"][entry.pk] = criterion
    # One entry holds the whole phrase 过早建议, in its question.
    literal = create_faq_entry(
        author=cast.author,
        dataset=version.dataset,
        content=FaqContent(question="什么算过早建议？", answer="用户还没有准备好时就给出具体做法。"),
    )
    submit_faq_entry(entry=literal, author=cast.author)
    review_faq_entry(entry=literal, reviewer=cast.reviewer, approve=True)
    return {"version": version, "made": made, "literal": literal}


def _found(cast, query):
    results = selectors.search(cast.expert, query, as_expert=True, limit=500)
    return results, {h.faq.pk for h in results.faq}, {h.case.pk for h in results.cases}


@pytest.mark.parametrize("word", ["共情", "第一人称"])
def test_a_chinese_word_finds_exactly_the_entries_that_contain_it(library, cast, word):
    results, faq, cases = _found(cast, word)
    expected_faq = {pk for pk, c in library["made"]["faq"].items() if word in c.text}
    expected_cases = {pk for pk, c in library["made"]["case"].items() if word in c.text}
    assert expected_faq and expected_cases
    assert faq == expected_faq and cases == expected_cases
    assert results.faq_total == len(expected_faq) and results.case_total == len(expected_cases)
    # Each snippet marks the word where it found it.
    for hit in results.faq + results.cases:
        assert any(s.marked and s.text == word for s in hit.snippet), [s.text for s in hit.snippet]


def test_premature_advice_finds_the_phrase_first_and_its_split_form_after(library, cast):
    results, faq, cases = _found(cast, "过早建议")
    split = {pk for pk, c in library["made"]["faq"].items() if "过早" in c.text and "建议" in c.text}
    assert split, "the released criteria say 过早提供…建议"
    assert faq == split | {library["literal"].pk}
    assert results.faq[0].faq.pk == library["literal"].pk  # the whole phrase, in the question, ranks first
    assert {pk for pk, c in library["made"]["case"].items() if "过早" in c.text and "建议" in c.text} == cases
    marked = {s.text for s in results.faq[1].snippet if s.marked}
    assert {"过早", "建议"} <= marked


def test_the_database_ranks_exactly_as_the_reference_scorer(library, cast):
    for query in ("共情", "第一人称 我们", "过早建议", "AI 理解"):
        results, _faq, _cases = _found(cast, query)
        terms = lib.parse_query(query)
        for hit in results.faq:
            entry = FaqEntry.objects.get(pk=hit.faq.pk)
            assert hit.score == pytest.approx(lib.score(entry.search_title, entry.search_text, terms)), query
        for hit in results.cases:
            found = Case.objects.get(pk=hit.case.pk)
            assert hit.score == pytest.approx(lib.score(found.search_title, found.search_text, terms)), query
        scores = [h.score for h in results.faq]
        assert scores == sorted(scores, reverse=True)


def test_a_word_nobody_wrote_finds_nothing_and_says_so(library, cast):
    results, _faq, _cases = _found(cast, "量子纠缠")
    assert results.empty and results.faq_total == 0 and results.case_total == 0
