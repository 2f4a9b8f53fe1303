"""`scipy.stats`, imported when a statistic first needs it.

Importing it takes about a second; every process imports the models, and the models import the
report's types, so without this every command, web worker and page paid for it at start-up,
though most never compute a p-value or a quantile.
"""

from __future__ import annotations

import importlib
from typing import Any


class _Stats:
    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("scipy.stats"), name)


stats = _Stats()
