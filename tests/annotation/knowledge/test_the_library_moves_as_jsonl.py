"""The whole library moves as JSON Lines: exported, imported elsewhere (by criterion wording when the keys differ),
imported twice without duplicates, and a bad line names its file, line and field and writes nothing (whatever value
any field holds: never a crash)."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry
from annotation.knowledge.services.knowledge import review_faq_entry, revise_faq_entry, submit_faq_entry
from annotation.knowledge.services.knowledge_io import export_lines, import_library
from annotation.services.guidelines import publish_dataset_guidelines
from heartbench_core.jsonl import InputFileError
from heartbench_core.models import CriterionLineage
from tests.annotation.knowledge.conftest import published_faq, written_case
from tests.security.test_importer_fuzzing import json_values, row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def filled(cast, library):
    criterion = library.criterion()
    publish_dataset_guidelines(dataset=library.dataset, body="# 总则\n先写理由。", author=cast.admin)
    first = published_faq(
        cast, library.dataset, question="隐含的共情算吗？", criteria=[criterion.lineage_id], abilities=[criterion.ability]
    )
    revision = revise_faq_entry(entry=first, author=cast.author2)
    submit_faq_entry(entry=revision, author=cast.author2)
    review_faq_entry(entry=revision, reviewer=cast.reviewer, approve=True)
    entry = library.entry("dm0001")
    written_case(cast, criterion, title="从头写的案例")
    written_case(
        cast,
        entry.item.criteria.get(position=1),
        title="来自评测的案例",
        kind=Case.Source.ADJUDICATION,
        campaign=library.campaign,
        response=entry.response,
    )
    return library


def _empty_library():
    """As in another installation that has the dataset and the campaign, but no library yet."""
    FaqEntry.objects.filter(replaces__isnull=False).delete()
    FaqEntry.objects.all().delete()
    Case.objects.all().delete()
    DatasetGuidelines.objects.all().delete()


def _file(lines):
    return io.BytesIO("".join(lines).encode())


def test_an_export_holds_every_record_with_portable_criteria_and_reimports_as_nothing_new(cast, filled):
    lines = list(export_lines())
    records = [json.loads(line) for line in lines]
    assert [r["type"] for r in records] == ["guidelines", "faq", "faq", "case", "case"]
    faq = records[1]
    assert faq["criteria"][0]["question_id"] == "dm0001" and faq["criteria"][0]["number"] == 1 and faq["criteria"][0]["text"]
    assert records[2]["replaces"] == faq["uid"] and faq["status"] == "retired"
    assert records[4]["source_campaign"] == filled.campaign.name and records[4]["source_response"]
    assert "model" not in json.dumps(records[4]).replace("demo-model", "")  # no model identity; response ids are opaque
    outcome = import_library(source=_file(lines), name="library.jsonl")
    assert (outcome.guidelines, outcome.faq, outcome.cases, outcome.already_present) == (0, 0, 0, 5)


def test_a_file_from_elsewhere_finds_its_criteria_by_wording_and_keeps_its_history(cast, filled):
    records = [json.loads(line) for line in export_lines()]
    _empty_library()
    for r in records:  # another installation: other keys, the same wording
        for ref in r.get("criteria", []) + ([r["criterion"]] if "criterion" in r else []):
            ref["key"] = "00000000-0000-0000-0000-000000000000"
    outcome = import_library(source=_file(json.dumps(r, ensure_ascii=False) + "\n" for r in records), name="elsewhere.jsonl")
    assert (outcome.guidelines, outcome.faq, outcome.cases, outcome.to_review) == (1, 2, 2, 1)
    old, new = FaqEntry.objects.order_by("id")
    assert new.replaces == old and old.status == "retired"
    assert new.status == "in_review" and new.reviewer is None  # a review is not imported: someone here publishes it
    assert review_faq_entry(entry=new, reviewer=cast.reviewer, approve=True).status == "published"
    assert list(new.lineages.all()) == [filled.criterion().lineage]
    assert FaqEntry.objects.filter(search_text__contains="隐含的共情").count() == 2  # searchable at once
    assert old.created_at.isoformat() == records[1]["created_at"]


def test_a_bad_file_names_each_line_and_field_and_writes_nothing(cast, filled):
    records = [json.loads(line) for line in export_lines()]
    _empty_library()
    records[1]["author"] = "nobody_here"
    records[1]["criteria"] = [{"key": "x", "question_id": "zz9999", "number": 1, "text": "不存在"}]
    records[3]["hit"] = "yes"
    records.append({"type": "case", "dataset": "demo", "uid": "not-a-uuid"})
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records] + ["{not json\n"]
    before = (FaqEntry.objects.count(), Case.objects.count(), CriterionLineage.objects.count())
    with pytest.raises(InputFileError) as refused:
        import_library(source=_file(lines), name="bad.jsonl")
    text = "\n".join(refused.value.messages)
    assert "bad.jsonl, line 2, field 'author'" in text and "nobody_here" in text
    assert "bad.jsonl, line 2, field 'criteria[0]'" in text
    assert "bad.jsonl, line 4, field 'hit'" in text
    assert "bad.jsonl, line 6, field 'uid'" in text and "bad.jsonl, line 7" in text
    assert (FaqEntry.objects.count(), Case.objects.count(), CriterionLineage.objects.count()) == before


def test_a_case_from_a_campaign_this_installation_lacks_is_refused(cast, filled):
    records = [json.loads(line) for line in export_lines()]
    Case.objects.all().delete()
    records[4]["source_campaign"] = "A campaign from elsewhere"
    with pytest.raises(InputFileError) as refused:
        import_library(source=_file(json.dumps(r, ensure_ascii=False) + "\n" for r in records), name="x.jsonl")
    assert "line 5, field 'source_campaign'" in "\n".join(refused.value.messages)


def test_the_commands_export_and_import(cast, filled, tmp_path):
    path = tmp_path / "library.jsonl"
    out = io.StringIO()
    call_command("export_library", "--dataset", "demo", "-o", str(path), stdout=out)
    assert "5 records written" in out.getvalue()
    call_command("import_library", str(path), stdout=out)
    assert "5 already here" in out.getvalue()
    path.write_text('{"type": "poem"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="field 'type'"):
        call_command("import_library", str(path))


def test_the_api_and_the_page_export_what_the_viewer_may_read_and_admins_import(cast, filled, client_for):
    exported = client_for(cast.reviewer).get("/api/v1/annotation/library/export/", {"dataset": "demo"})
    assert exported.status_code == 200 and exported["Content-Type"].startswith("application/x-ndjson")
    assert len(exported.content.decode().splitlines()) == 5
    page = client_for(cast.reviewer).get("/work/library/export.jsonl")
    assert page.content == exported.content
    upload = io.BytesIO(exported.content)
    upload.name = "library.jsonl"
    answer = client_for(cast.admin).post("/api/v1/annotation/library/import/", {"file": upload})
    assert answer.status_code == 201 and answer.json()["already_present"] == 5
    bad = io.BytesIO(b'{"type": "faq", "dataset": "nope"}\n')
    bad.name = "bad.jsonl"
    refused = client_for(cast.admin).post("/work/library/import/", {"file": bad})
    assert refused.status_code == 400 and "bad.jsonl, line 1, field &#x27;dataset&#x27;" in refused.content.decode()


@pytest.fixture
def exported(filled):
    return [json.loads(line) for line in export_lines()]


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run: a failure is reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_value_in_any_field_is_imported_or_refused_naming_its_line_never_a_crash(exported, data):
    records = json.loads(json.dumps(exported))
    line = data.draw(st.integers(0, len(records) - 1))
    key = data.draw(st.sampled_from(sorted(records[line])))
    records[line][key] = data.draw(json_values)
    _empty_library()
    before = row_counts()
    try:
        import_library(source=_file(json.dumps(r, ensure_ascii=False) + "\n" for r in records), name="fuzz.jsonl")
    except InputFileError as refused:
        assert f"fuzz.jsonl, line {line + 1}" in "\n".join(refused.messages)
        assert row_counts() == before


def test_a_number_or_a_date_no_row_can_hold_is_refused_naming_its_field(cast, filled):
    records = [json.loads(line) for line in export_lines()]
    _empty_library()
    records[3]["criterion_revision"] = 2**70
    records[4]["criterion"] = {"question_id": "dm0001", "number": 2**70}
    records[4]["created_at"] = "2025-02-31T10:00:00+00:00"  # well formed, but no such day
    with pytest.raises(InputFileError) as refused:
        import_library(source=_file(json.dumps(r, ensure_ascii=False) + "\n" for r in records), name="big.jsonl")
    text = "\n".join(refused.value.messages)
    assert "big.jsonl, line 4, field 'criterion_revision'" in text and "big.jsonl, line 5, field 'criterion'" in text
    assert "big.jsonl, line 5, field 'created_at'" in text
