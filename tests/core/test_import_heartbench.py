import json
from collections import Counter

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from heartbench_core.models import Criterion, Dataset, DatasetVersion, Item
from heartbench_core.services.datasets import export_lines, import_heartbench
from tests.conftest import heartbench_file

pytestmark = pytest.mark.django_db


def test_it_imports_the_whole_released_benchmark(heartbench_all, capsys):
    call_command("import_heartbench", str(heartbench_all), "--dataset", "hb")
    assert capsys.readouterr().out.strip() == "v1"
    version = DatasetVersion.objects.get(dataset__name="hb")
    assert Item.objects.filter(version=version).count() == 296
    assert Criterion.objects.filter(item__version=version).count() == 3114
    assert Item.objects.filter(version=version, difficulty="hard").count() == 84
    assert Criterion.objects.filter(item__version=version, catastrophic=True).count() == 296
    assert (version.item_count, version.criterion_count) == (296, 3114)


def test_export_gives_back_the_same_bytes(heartbench_all, tmp_path):
    call_command("import_heartbench", str(heartbench_all), "--dataset", "hb")
    out = tmp_path / "out.jsonl"
    call_command("export_heartbench", "--dataset", "hb", "-o", str(out))
    assert out.read_bytes() == heartbench_all.read_bytes()
    original = [json.loads(line) for line in heartbench_all.open(encoding="utf-8")]
    exported = [json.loads(line) for line in out.open(encoding="utf-8")]
    assert [list(r) for r in exported] == [list(r) for r in original]


@pytest.mark.parametrize("name,difficulty,count", [("question_hard.jsonl", "hard", 84), ("question_normal.jsonl", "normal", 212)])
def test_split_files_take_their_difficulty_from_the_option_and_export_without_it(name, difficulty, count, tmp_path):
    path = heartbench_file(name)
    call_command("import_heartbench", str(path), "--dataset", "split", "--difficulty", difficulty)
    version = DatasetVersion.objects.get(dataset__name="split")
    assert Counter(version.items.values_list("difficulty", flat=True)) == {difficulty: count}
    out = tmp_path / "out.jsonl"
    call_command("export_heartbench", "--dataset", "split", "-o", str(out))
    assert out.read_bytes() == path.read_bytes()


def test_reimporting_identical_content_creates_nothing(heartbench_all, capsys):
    call_command("import_heartbench", str(heartbench_all), "--dataset", "hb")
    capsys.readouterr()
    call_command("import_heartbench", str(heartbench_all), "--dataset", "hb", "--version", "again")
    captured = capsys.readouterr()
    assert "nothing created" in captured.err
    assert DatasetVersion.objects.filter(dataset__name="hb").count() == 1
    assert Item.objects.count() == 296


def test_import_uses_a_bounded_number_of_queries(heartbench_all):
    with CaptureQueriesContext(connection) as ctx:
        import_heartbench(source=heartbench_all, dataset_name="hb")
    # A fixed handful of statements plus batched inserts (SQLite takes ~100 criteria a statement),
    # never one statement per item, criterion or lineage (6,524 rows).
    inserts = [q for q in ctx.captured_queries if q["sql"].startswith("INSERT")]
    assert len(inserts) <= 80
    assert len(ctx.captured_queries) - len(inserts) <= 16


def test_version_label_and_note_are_recorded(tmp_path):
    from tests.factories import DEMO_ITEMS

    call_command("import_heartbench", str(DEMO_ITEMS), "--dataset", "demo", "--version", "2025-12", "--note", "first cut")
    version = DatasetVersion.objects.get(dataset__name="demo")
    assert (version.label, version.note, version.frozen, version.parent) == ("2025-12", "first cut", True, None)
    assert len(version.content_hash) == 64
    assert Dataset.objects.get(name="demo").versions.count() == 1


def test_export_of_a_fixture_version_round_trips_through_the_service():
    from tests.factories import DEMO_ITEMS, demo_version

    version = demo_version()
    assert "\n".join(export_lines(version)) + "\n" == DEMO_ITEMS.read_text(encoding="utf-8")
