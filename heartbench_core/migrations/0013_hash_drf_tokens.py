"""DRF's plain-text tokens become hashed API tokens that expire 90 days from now; their table is dropped (`_drf_tokens`).

Not reversible in substance: a hash gives no token back. Going back leaves the hashed tokens to
be dropped with their table by 0012's reverse.
"""

from importlib import import_module

from django.db import migrations

drf_tokens = import_module("heartbench_core.migrations._drf_tokens")


class Migration(migrations.Migration):
    dependencies = [("heartbench_core", "0012_add_api_tokens")]

    operations = [migrations.RunPython(drf_tokens.hash_drf_tokens, migrations.RunPython.noop)]
