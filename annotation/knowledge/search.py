"""Ranked search over FAQ entries and cases in SQL, the same on PostgreSQL and SQLite.

The match rule and the score are `heartbench_core.lib.search`'s, written as SQL expressions over
the normalised `search_title` / `search_text` columns, so both databases return the same rows in
the same order (a test compares them with the pure scorer). The indexes differ:

- PostgreSQL: a GIN `gin_trgm_ops` index (pg_trgm) on `search_text` serves `LIKE '%term%'` for
  terms of three characters or more, and one on `search_pairs` (the text's pairs of Chinese
  characters as words) serves two-character Chinese terms and the pairs of longer ones
  (`LIKE '% 共情 %'`); "two thirds of the pairs" is written as the ways to pick them, so every
  lookup is an index lookup (only a two-letter Latin term, or a Chinese term of more than six
  characters, is checked row by row);
- SQLite: an FTS5 table with the trigram tokenizer mirrors `search_text` (migration 0009); a term
  of three characters or more is looked up there (`MATCH`, a substring match on that tokenizer).
  Another mirrors `search_pairs` (migration 0019): a pair, padded with spaces (" 共情 "), has
  trigrams, so two-character Chinese terms and the pairs of longer ones are looked up there too.
  A two-letter Latin term uses LIKE; a SQLite without the tokenizer (before 3.34) uses LIKE throughout.

Trigram *similarity* is not the ranking: a two-character Chinese word shares none of its padded
trigrams with a sentence (`word_similarity('共情', '该回复表达了共情')` is 0), so it would rank
every Chinese hit alike.
"""

from __future__ import annotations

from functools import reduce
from itertools import combinations
from operator import and_, or_
from typing import Any, TypeVar

from django.db import connections
from django.db.models import Case, Count, Exists, F, FloatField, Func, IntegerField, Model, Q, QuerySet, Value, When, Window
from django.db.models.expressions import CombinedExpression, RawSQL
from django.db.models.functions import Cast, Least, Replace

from heartbench_core.lib import search as lib

M = TypeVar("M", bound=Model)

_fts_tables: dict[tuple[str, str], bool] = {}


def _fts_table(queryset: QuerySet[M], suffix: str = "_fts") -> str | None:
    """The FTS5 table mirroring the model's search_text (or, with "_pairs_fts", its search_pairs) on SQLite, if there (checked once)."""
    connection = connections[queryset.db]
    if connection.vendor != "sqlite":
        return None
    table = f"{queryset.model._meta.db_table}{suffix}"
    key = (str(connection.settings_dict["NAME"]), table)
    if key not in _fts_tables:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [table])
            _fts_tables[key] = cursor.fetchone() is not None
    return table if _fts_tables[key] else None


def _has(needle: str) -> Q:
    return Q(search_text__contains=needle)


def _pair(pair: str) -> Q:
    """The text holds these two Chinese characters side by side: an indexed word lookup in `search_pairs` (on PostgreSQL)."""
    return Q(search_pairs__contains=f" {pair} ")


def _indexed_pair(pair: str, pairs_fts: str | None) -> Q:
    """`_pair` as a filter: on SQLite through the FTS5 table of search_pairs (the padded pair has trigrams), else LIKE."""
    if pairs_fts is None:
        return _pair(pair)
    return Q(pk__in=RawSQL(f"SELECT rowid FROM {pairs_fts} WHERE {pairs_fts} MATCH %s", [f'" {pair} "']))


def _indexed_has(needle: str, fts: str | None) -> Q:
    """`search_text` contains the needle, through the FTS5 trigram index when there is one and the needle is long enough."""
    if fts is None or len(needle) < 3:
        return _has(needle)
    phrase = '"' + needle.replace('"', '""') + '"'
    return Q(pk__in=RawSQL(f"SELECT rowid FROM {fts} WHERE {fts} MATCH %s", [phrase]))


# Past this many ways to pick the pairs a long term needs, the pairs are counted row by row instead of looked up.
MAX_PAIR_COMBINATIONS = 20


def _term_filter(term: lib.Term, fts: str | None, pairs_fts: str | None = None) -> Q | None:
    """The term's match as index lookups: any `need` of its pairs together (None when there are too many ways to pick them).

    A text that holds the whole term holds all of its pairs, so the pairs alone decide; on SQLite the
    whole term is looked up in the FTS5 index too (an index hit there spares scanning the pairs).
    """
    if term.cjk and len(term.text) == 2:
        return _indexed_pair(term.text, pairs_fts)
    if not term.grams:
        return _indexed_has(term.text, fts)
    ways = list(combinations(term.grams, term.need))
    if len(ways) > MAX_PAIR_COMBINATIONS:
        return None
    pairs = reduce(or_, (reduce(and_, (_indexed_pair(g, pairs_fts) for g in way)) for way in ways))
    return _indexed_has(term.text, fts) | pairs if fts is not None else pairs


def _flag(condition: Q | Exists) -> Case:
    return Case(When(condition, then=Value(1.0)), default=Value(0.0), output_field=FloatField())


class _Bytes(Func):
    """The length of a text in bytes: read from the value's header, where counting characters walks the text."""

    function = "OCTET_LENGTH"
    output_field = IntegerField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, template="LENGTH(CAST(%(expressions)s AS BLOB))", **extra)


def _occurrences(needle: str) -> Least:
    """How often the text holds the needle, at most OCCURRENCE_CAP: the bytes its removal takes away, over its own bytes."""
    removed = _Bytes("search_text") - _Bytes(Replace("search_text", Value(needle), Value("")))
    return Least(Cast(removed, FloatField()) / Value(float(len(needle.encode()))), Value(float(lib.OCCURRENCE_CAP)))


def ranked(queryset: QuerySet[M], terms: list[lib.Term], *, focus: Q | Exists | None = None) -> QuerySet[M]:
    """The rows of `queryset` every term matches, annotated with `score` (and `total`, how many match) and ordered best first."""
    fts, pairs_fts = _fts_table(queryset), _fts_table(queryset, "_pairs_fts")
    score: CombinedExpression | Value = Value(0.0)
    for i, term in enumerate(terms):
        found = _term_filter(term, fts, pairs_fts)
        if term.grams:
            pairs = sum((_flag(_pair(g)) for g in term.grams[1:]), _flag(_pair(term.grams[0])))
            queryset = queryset.alias(**{f"_pairs{i}": pairs})
            if found is None:  # a long term: count its pairs row by row
                found = _indexed_has(term.text, fts) | Q(**{f"_pairs{i}__gte": term.need})
            score = score + Value(lib.GRAMS_WEIGHT) * F(f"_pairs{i}") / Value(float(len(term.grams)))
        queryset = queryset.filter(found)
        score = (
            score
            + Value(lib.TITLE_WEIGHT) * _flag(Q(search_title__contains=term.text))
            # A term without pairs only matches a text that holds it: its text flag is 1 on every row kept.
            + Value(lib.TEXT_WEIGHT) * (_flag(_has(term.text)) if term.cjk or term.grams else Value(1.0))
            + _occurrences(term.text)
        )
    if focus is not None:
        score = score + Value(lib.FOCUS_BONUS) * _flag(focus)
    return queryset.annotate(score=Cast(score, FloatField()), total=Window(Count("pk"))).order_by(
        "-score", F("published_at").desc(nulls_last=True), "-id"
    )
