# The knowledge library's pairs of Chinese characters indexed on SQLite too (FTS5, trigram tokenizer),
# kept in step by triggers; PostgreSQL indexes them since 0009 (a GIN trigram index), so this is a no-op there.

from django.db import migrations

from annotation.migrations._search_index import create_pair_indexes


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0020_extra_raters_where_verdicts_split"),
    ]

    operations = [create_pair_indexes()]
