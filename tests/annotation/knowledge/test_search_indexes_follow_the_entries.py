"""The search indexes exist and follow every write: SQLite's FTS5 trigram tables, PostgreSQL's pg_trgm GIN indexes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.knowledge import selectors
from annotation.knowledge.models import Case, FaqEntry
from annotation.knowledge.services.knowledge import FaqContent, edit_faq_entry
from tests.annotation.knowledge.conftest import published_faq, written_case

pytestmark = pytest.mark.django_db


def _fts(table, rowid):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT body FROM {table}_fts WHERE rowid = %s", [rowid])
        row = cursor.fetchone()
    return row[0] if row else None


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 tables")
def test_the_fts5_tables_mirror_search_text_through_inserts_updates_and_deletes(cast, library):
    entry = published_faq(cast, library.dataset, question="第一版的问题", answer="回答")
    assert _fts("annotation_faqentry", entry.pk) == FaqEntry.objects.get(pk=entry.pk).search_text
    draft = FaqEntry.objects.create(dataset=library.dataset, question="q", answer="a", author=cast.author, search_text="旧文本")
    edit_faq_entry(entry=draft, editor=cast.author, content=FaqContent(question="改过的问题", answer="改过的回答"))
    assert "改过的回答" in _fts("annotation_faqentry", draft.pk)
    case = written_case(cast, library.criterion())
    assert _fts("annotation_case", case.pk) == Case.objects.get(pk=case.pk).search_text
    Case.objects.filter(pk=case.pk).delete()
    assert _fts("annotation_case", case.pk) is None


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 tables")
def test_a_term_of_three_characters_or_more_is_looked_up_in_the_fts5_index_and_a_pair_in_the_pairs_index(cast, library):
    published_faq(cast, library.dataset, question="隐含的共情算不算", answer="算。")
    with CaptureQueriesContext(connection) as long_term:
        assert selectors.search(cast.expert, "隐含的", as_expert=True).faq_total == 1
    assert any("annotation_faqentry_fts MATCH" in q["sql"] for q in long_term.captured_queries)
    with CaptureQueriesContext(connection) as pair:
        assert selectors.search(cast.expert, "共情", as_expert=True).faq_total == 1
        assert selectors.search(cast.expert, "共鸣", as_expert=True).faq_total == 0
    assert any("annotation_faqentry_pairs_fts MATCH" in q["sql"] for q in pair.captured_queries)
    with CaptureQueriesContext(connection) as latin:
        assert selectors.search(cast.expert, "ok", as_expert=True).faq_total == 0
    assert not any("MATCH" in q["sql"] for q in latin.captured_queries)  # two Latin letters have no trigram: LIKE


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 tables")
def test_the_pairs_tables_mirror_search_pairs_through_inserts_updates_and_deletes(cast, library):
    entry = published_faq(cast, library.dataset, question="第一版的问题", answer="回答")
    assert _fts("annotation_faqentry_pairs", entry.pk) == FaqEntry.objects.get(pk=entry.pk).search_pairs
    draft = FaqEntry.objects.create(dataset=library.dataset, question="q", answer="a", author=cast.author, search_pairs=" 旧文 ")
    edit_faq_entry(entry=draft, editor=cast.author, content=FaqContent(question="改过的问题", answer="改过的回答"))
    assert " 改过 " in _fts("annotation_faqentry_pairs", draft.pk) and " 旧文 " not in _fts("annotation_faqentry_pairs", draft.pk)
    case = written_case(cast, library.criterion())
    assert _fts("annotation_case_pairs", case.pk) == Case.objects.get(pk=case.pk).search_pairs
    Case.objects.filter(pk=case.pk).delete()
    assert _fts("annotation_case_pairs", case.pk) is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's pg_trgm")
def test_pg_trgm_is_installed_and_its_gin_index_serves_substring_search(cast, library):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'")
        assert cursor.fetchone()
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'annotation_%%_trgm'")
        names = {row[0] for row in cursor.fetchall()}
        assert names == {f"annotation_{t}_{c}_trgm" for t in ("faqentry", "case") for c in ("search", "pairs")}
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("EXPLAIN SELECT id FROM annotation_faqentry WHERE search_text LIKE '%%隐含的共情%%'")
        text_plan = "\n".join(row[0] for row in cursor.fetchall())
        # A two-character term, looked up as a word of the pairs column: the index serves it too.
        cursor.execute("EXPLAIN SELECT id FROM annotation_faqentry WHERE search_pairs LIKE '%% 共情 %%'")
        pairs_plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("SET enable_seqscan = on")
    assert "annotation_faqentry_search_trgm" in text_plan and "annotation_faqentry_pairs_trgm" in pairs_plan
