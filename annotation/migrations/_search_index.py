"""The knowledge library's search indexes: pg_trgm GIN indexes on PostgreSQL, FTS5 trigram tables on SQLite.

Both serve substring search (LIKE '%term%') over the `search_text` column of FAQ entries and
cases, which is what Chinese needs (no spaces, so no words to index); on PostgreSQL a second GIN
index on `search_pairs` serves the two-character lookups (LIKE '% 共情 %'). On SQLite the FTS5 tables
mirror `search_text` (0009) and `search_pairs` (0019) through triggers; a SQLite without FTS5's trigram tokenizer (before 3.34)
gets none, and search falls back to LIKE (annotation.knowledge.search checks). A later migration
that rebuilds these tables on SQLite drops the triggers and must recreate them.
"""

import sqlite3

from django.db import migrations

TABLES = ("annotation_faqentry", "annotation_case")


def sqlite_has_trigram() -> bool:
    """FTS5's trigram tokenizer came with SQLite 3.34."""
    return sqlite3.sqlite_version_info >= (3, 34, 0)


def _sqlite_forward(table):
    fts = f"{table}_fts"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5(body, tokenize='trigram')",
        f"INSERT INTO {fts}(rowid, body) SELECT id, search_text FROM {table}",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN INSERT INTO {fts}(rowid, body) VALUES (new.id, new.search_text); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF search_text ON {table} BEGIN UPDATE {fts} SET body = new.search_text WHERE rowid = old.id; END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN DELETE FROM {fts} WHERE rowid = old.id; END",
    ]


def _sqlite_backward(table):
    fts = f"{table}_fts"
    return [f"DROP TRIGGER IF EXISTS {fts}_{suffix}" for suffix in ("ai", "au", "ad")] + [f"DROP TABLE IF EXISTS {fts}"]


def _postgres_forward(table):
    # search_pairs (" 共情 第一 … ") makes two-character lookups indexable too: LIKE '% 共情 %' has trigrams, LIKE '%共情%' none.
    return [
        f"CREATE INDEX {table}_search_trgm ON {table} USING gin (search_text gin_trgm_ops)",
        f"CREATE INDEX {table}_pairs_trgm ON {table} USING gin (search_pairs gin_trgm_ops)",
    ]


def _postgres_backward(table):
    return [f"DROP INDEX IF EXISTS {table}_search_trgm", f"DROP INDEX IF EXISTS {table}_pairs_trgm"]


def _run(forward: bool):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        for table in TABLES:
            if vendor == "postgresql":
                statements = _postgres_forward(table) if forward else _postgres_backward(table)
            elif vendor == "sqlite" and sqlite_has_trigram():
                statements = _sqlite_forward(table) if forward else _sqlite_backward(table)
            else:
                statements = []
            for sql in statements:
                schema_editor.execute(sql)

    return run


def create_search_indexes() -> migrations.RunPython:
    """After `TrigramExtension()`: the GIN trigram indexes (PostgreSQL) or the FTS5 trigram tables (SQLite)."""
    return migrations.RunPython(_run(True), _run(False))


# --- SQLite: the pairs of Chinese characters, as PostgreSQL's second GIN index serves them ------------------


def _sqlite_pairs_forward(table):
    fts = f"{table}_pairs_fts"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5(body, tokenize='trigram')",
        f"INSERT INTO {fts}(rowid, body) SELECT id, search_pairs FROM {table}",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN INSERT INTO {fts}(rowid, body) VALUES (new.id, new.search_pairs); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF search_pairs ON {table} BEGIN UPDATE {fts} SET body = new.search_pairs WHERE rowid = old.id; END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN DELETE FROM {fts} WHERE rowid = old.id; END",
    ]


def _sqlite_pairs_backward(table):
    fts = f"{table}_pairs_fts"
    return [f"DROP TRIGGER IF EXISTS {fts}_{suffix}" for suffix in ("ai", "au", "ad")] + [f"DROP TABLE IF EXISTS {fts}"]


def _run_pairs(forward: bool):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite" or not sqlite_has_trigram():
            return  # PostgreSQL has indexed search_pairs since 0009 (its second GIN index)
        for table in TABLES:
            for sql in _sqlite_pairs_forward(table) if forward else _sqlite_pairs_backward(table):
                schema_editor.execute(sql)

    return run


def create_pair_indexes() -> migrations.RunPython:
    """SQLite: FTS5 trigram tables mirroring `search_pairs` (" 共情 第一 … "), so a two-character lookup is an index lookup."""
    return migrations.RunPython(_run_pairs(True), _run_pairs(False))
