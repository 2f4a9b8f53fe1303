"""A text cell a spreadsheet would run as a formula is written with a leading quote; numbers stay numbers."""

import csv
import io

import pytest

from heartbench_core.csvsafe import SafeWriter, safe_cell, safe_row


@pytest.mark.parametrize("text", ["=1+2", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_text_starting_with_a_formula_trigger_gets_a_leading_quote(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["plain", "情绪感知", "", " =leading space is text", -3, 2.5, None])
def test_other_cells_are_written_as_they_are(value):
    assert safe_cell(value) == value


def test_a_row_keeps_its_numbers_and_quotes_only_its_dangerous_text():
    assert safe_row(['=HYPERLINK("http://x")', -3, "ok"]) == ['\'=HYPERLINK("http://x")', -3, "ok"]


def test_the_writer_quotes_dangerous_cells_in_the_file():
    out = io.StringIO()
    SafeWriter(out).writerows([["a", "=1+1"], ["@x", 4]])
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [["a", "'=1+1"], ["'@x", "4"]]
