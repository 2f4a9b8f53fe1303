"""Export and import of a campaign say how far they are, table by table, a few lines a second at most."""

import io
import time

import pytest
from django.core.management import call_command

from heartbench_core.backup import ProgressPrinter, export_campaign, import_campaign
from tests.security.world import build_world


def test_the_printer_writes_counts_with_thousands_separators():
    lines = []
    clock = iter([0.0, 0.1, 0.3, 0.31, 0.6]).__next__
    printer = ProgressPrinter(lines.append, interval=0.25, clock=clock)
    for done in (0, 6000, 12000, 13000, 49560):
        printer("judgments", done, 49560)
    assert lines == ["judgments 0/49,560…", "judgments 12,000/49,560…", "judgments 49,560/49,560…"]


@pytest.mark.django_db(transaction=True)
def test_both_commands_report_every_table_to_the_end_and_print_a_few_lines_a_second(cast, tmp_path, archive_key):
    build_world(cast)
    archive = tmp_path / "matrix.zip"
    seen: list[tuple[str, int, int]] = []
    export_campaign(campaign_name="matrix", path=archive, key=archive_key.encode(), progress=lambda *a: seen.append(a))
    assert ("judgments", 1, 1) in seen and ("criterion revisions", 1, 1) in seen
    # The test world's expert is certified (it reaches the certificate pages), so one quality row travels.
    assert ("campaign experts", 3, 3) in seen and ("expert qualities", 1, 1) in seen
    assert all(done <= total for _, done, total in seen)

    err = io.StringIO()
    started = time.monotonic()
    call_command("export_campaign", "matrix", "-o", str(tmp_path / "again.zip"), stderr=err)
    elapsed = time.monotonic() - started
    lines = err.getvalue().splitlines()
    assert lines and lines[0] == "datasets 0/1…"
    assert len(lines) <= 1 + 4 * elapsed + 1

    call_command("flush", interactive=False, verbosity=0)
    seen.clear()
    import_campaign(source=archive, key=archive_key.encode(), progress=lambda *a: seen.append(a))
    assert ("judgments", 1, 1) in seen and ("criterion revisions", 1, 1) in seen
    call_command("flush", interactive=False, verbosity=0)
    err = io.StringIO()
    call_command("import_campaign", str(archive), stderr=err, stdout=io.StringIO())
    assert err.getvalue().splitlines()[0] == "datasets 0/1…"
