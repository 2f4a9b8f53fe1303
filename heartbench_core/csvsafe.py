"""CSV cells a spreadsheet cannot run as a formula (CSV injection, as OWASP describes it).

A text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula; a rationale such as `=HYPERLINK(...)` would run on
the reader's machine. Every CSV export of the platform writes its rows through `safe_row` (or
`SafeWriter`), which prefixes such a cell with a single quote: the spreadsheet shows the text
as written, and a reader of the raw file sees one extra leading character.
"""

import csv
from collections.abc import Iterable
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """The value, with a leading single quote when it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def safe_row(row: Iterable[Any]) -> list[Any]:
    """Every cell of the row through `safe_cell`; numbers (a negative weight) stay numbers."""
    return [safe_cell(value) for value in row]


class SafeWriter:
    """`csv.writer` whose rows pass through `safe_row`; `writerow` returns what the handle's write returns."""

    def __init__(self, handle: Any, **options: Any) -> None:
        self._writer = csv.writer(handle, **options)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow(safe_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
