"""import_judgments takes several files in one call: one campaign, all or nothing, each error naming its file and line.

On PostgreSQL the rows are written with COPY, without triggers when the role may (the import
counts the tallies itself); the path that keeps them writes the same rows, the tallies count
every row either way, and the triggers are on again for whatever the transaction writes next.
"""

import json

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, Campaign, CampaignResponse, Judgment
from annotation.services import tallies
from heartbench_core import bulk
from heartbench_core.jsonl import InputFileError
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judgment_lines
from validation.services import imports
from validation.services.imports import import_judgments


@pytest.fixture
def demo(db):
    demo_version()
    demo_responses()


def halves(cast):
    lines = judgment_lines([e.username for e in cast.experts])
    return lines, [as_file(lines[: len(lines) // 2], "first.jsonl"), as_file(lines[len(lines) // 2 :], "second.jsonl")]


def stored():
    return sorted(
        Judgment.objects.values_list(
            "assignment__expert__username",
            "assignment__campaign_response__response_id",
            "assignment__status",
            "criterion_id",
            "hit",
            "rationale",
        )
    )


def test_several_files_make_one_campaign(cast, demo):
    lines, files = halves(cast)
    outcome = import_judgments(source=files, dataset_name="demo", campaign_name="two-files")
    assert outcome.campaign_created and outcome.assignments == len(lines)
    assert Assignment.objects.filter(status="submitted").count() == len(lines)
    assert Judgment.objects.count() == sum(len(line["detail"]) for line in lines)
    assert CampaignResponse.objects.filter(campaign=outcome.campaign).count() == len(lines) // 3


def test_a_bad_line_in_the_second_file_names_it_and_nothing_is_written(cast, demo):
    lines, _ = halves(cast)
    second = lines[len(lines) // 2 :]
    second[1]["detail"] = [1, 0]
    del second[1]["reasons"]
    files = [as_file(lines[: len(lines) // 2], "first.jsonl"), as_file(second, "second.jsonl")]
    with pytest.raises(InputFileError) as exc:
        import_judgments(source=files, dataset_name="demo", campaign_name="two-files")
    [error] = exc.value.errors
    assert (error.file, error.line, error.field) == ("second.jsonl", 2, "detail")
    assert not Campaign.objects.exists() and not Judgment.objects.exists()


def test_a_response_judged_twice_by_one_annotator_across_files_names_the_first_file(cast, demo):
    lines, _ = halves(cast)
    files = [as_file(lines[:3], "first.jsonl"), as_file([lines[1]], "second.jsonl")]
    with pytest.raises(InputFileError) as exc:
        import_judgments(source=files, dataset_name="demo", campaign_name="dup")
    [error] = exc.value.errors
    assert error.file == "second.jsonl" and "on line 2 of first.jsonl" in error.message
    assert not Campaign.objects.exists()


def test_values_are_checked_across_all_files_with_their_line(cast, demo):
    lines, _ = halves(cast)
    lines[0]["detail"][2] = 7
    lines[-1]["detail"][0] = True
    lines[-2]["reasons"][1] = 3
    files = [as_file(lines[: len(lines) // 2], "first.jsonl"), as_file(lines[len(lines) // 2 :], "second.jsonl")]
    with pytest.raises(InputFileError) as exc:
        import_judgments(source=files, dataset_name="demo", campaign_name="values")
    found = {(e.file, e.line, e.field) for e in exc.value.errors}
    n = len(lines) - len(lines) // 2
    assert found == {("first.jsonl", 1, "detail[2]"), ("second.jsonl", n, "detail[0]"), ("second.jsonl", n - 1, "reasons")}


def test_the_command_takes_several_files(cast, demo, tmp_path):
    lines, _ = halves(cast)
    paths = []
    for i, part in enumerate((lines[: len(lines) // 2], lines[len(lines) // 2 :])):
        path = tmp_path / f"part{i}.jsonl"
        path.write_text("\n".join(json.dumps(x) for x in part))
        paths.append(str(path))
    call_command("import_judgments", *paths, "--dataset", "demo", "--campaign", "c")
    assert Assignment.objects.count() == len(lines)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite caps the parameters of a statement: bulk inserts come in batches")
def test_the_number_of_queries_does_not_grow_with_the_file(cast, demo):
    def queries(experts, campaign):
        lines = judgment_lines([e.username for e in experts])
        with CaptureQueriesContext(connection) as captured:
            import_judgments(source=as_file(lines), dataset_name="demo", campaign_name=campaign)
        return len(captured)

    assert queries(cast.experts[:1], "one") == queries(cast.experts, "three")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY and per-row triggers are PostgreSQL's")
def test_with_per_row_triggers_kept_the_same_rows_are_written(cast, demo, monkeypatch):
    lines, _ = halves(cast)
    import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="fast")
    fast = stored()
    Judgment.objects.all().delete()
    Assignment.objects.all().delete()
    CampaignResponse.objects.all().delete()
    Campaign.objects.all().delete()
    monkeypatch.setattr(imports, "may_skip_row_triggers", lambda tables, replaced: False)
    import_judgments(source=as_file(lines), dataset_name="demo", campaign_name="kept")
    assert stored() == fast


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY and per-row triggers are PostgreSQL's")
def test_triggers_are_kept_when_a_table_has_one_the_importer_does_not_know(demo):
    assert bulk.may_skip_row_triggers(imports._WRITTEN_TABLES, imports._REPLACED_TRIGGERS)
    with connection.cursor() as cursor:
        cursor.execute("CREATE FUNCTION test_noop() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$ LANGUAGE plpgsql")
        cursor.execute("CREATE TRIGGER test_unknown BEFORE INSERT ON annotation_assignment FOR EACH ROW EXECUTE FUNCTION test_noop()")
    assert not bulk.may_skip_row_triggers(imports._WRITTEN_TABLES, imports._REPLACED_TRIGGERS)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY and per-row triggers are PostgreSQL's")
@pytest.mark.parametrize("without_row_triggers", [True, False], ids=["judgments-without-triggers", "every-trigger"])
def test_the_tallies_count_every_imported_row(cast, demo, monkeypatch, without_row_triggers):
    assert bulk.may_skip_row_triggers(imports._WRITTEN_TABLES, imports._REPLACED_TRIGGERS)  # the test database's role may
    if not without_row_triggers:
        monkeypatch.setattr(imports, "may_skip_row_triggers", lambda tables, replaced: False)
    lines, (first, second) = halves(cast)
    import_judgments(source=first, dataset_name="demo", campaign_name="counted")
    assert tallies.tallies_as_counted() == tallies.tallies_from_rows()
    # Into the campaign, with some of its responses in it already.
    outcome = import_judgments(source=second, dataset_name="demo", campaign_name="counted")
    assert tallies.tallies_as_counted() == tallies.tallies_from_rows()
    counted = tallies.tallies_as_counted()
    assert {(c, n) for c, n, _ in counted["campaigns"]} == {(outcome.campaign.pk, len(lines) // 3)}
    assert sum(row[4] for row in counted["experts"]) == len(lines)  # every assignment counted as submitted


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY and per-row triggers are PostgreSQL's")
def test_after_the_import_the_same_transaction_writes_through_every_trigger(cast, demo):
    _, files = halves(cast)
    with transaction.atomic():
        import_judgments(source=files, dataset_name="demo", campaign_name="guarded")
        with connection.cursor() as cursor:
            cursor.execute("SHOW session_replication_role")
            assert cursor.fetchone()[0] == "origin"
        submitted = Judgment.objects.first()
        with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():  # the guard on submitted work is back
            Judgment.objects.filter(pk=submitted.pk).update(hit=not submitted.hit)
