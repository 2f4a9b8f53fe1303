"""Every row an archive restores belongs to its own campaign: a link to a row that was already here is refused, naming member, line and field."""

import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reliability.crafted_archive import every_count, jsonl, read_members, records, rewrite, second_copy
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]


@pytest.fixture
def copy(cast, tmp_path):
    """A signed archive of a second campaign (new names, ids and users), and the first campaign still here."""
    world = build_world(cast)
    from annotation.models import GoldLabel

    GoldLabel.objects.create(campaign_response=world.objects["entry"], criterion=world.objects["criterion"], hit=True, explanation="x")
    original = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(original), verbosity=0)
    return second_copy(original, tmp_path / "copy.zip"), world


def turned(archive, member: str, change) -> None:
    """Change the member's first row by change(row), re-hashed and re-signed: only the rule can refuse it."""
    members = read_members(archive)
    rows = records(members[member])
    change(rows[0])
    members[member] = jsonl(rows)
    rewrite(archive, members)


def refused(archive, *needles: str) -> str:
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), verbosity=0)
    assert every_count() == before  # atomic: not one row, not one user
    for needle in needles:
        assert needle in str(caught.value)
    return str(caught.value)


def test_an_honest_copy_restores_beside_the_campaign_already_here(copy):
    archive, _world = copy
    call_command("import_campaign", str(archive), verbosity=0)
    Campaign = apps.get_model("annotation", "Campaign")
    assert set(Campaign.objects.values_list("name", flat=True)) == {"matrix", "matrix-2"}
    restored = Campaign.objects.get(name="matrix-2")
    assert restored.version.dataset.name == "demo-2"
    assert restored.responses.count() == Campaign.objects.get(name="matrix").responses.count()


def test_a_report_on_a_campaign_already_here_is_refused(copy):
    archive, world = copy
    turned(archive, "validation.AgreementReport.jsonl", lambda row: row.update(campaign_id=world.objects["campaign"].pk))
    refused(archive, "copy.zip/validation.AgreementReport.jsonl, line 1, field 'campaign_id'", "does not restore")


def test_a_gold_label_on_a_response_of_another_campaign_is_refused(copy):
    archive, world = copy
    turned(archive, "annotation.GoldLabel.jsonl", lambda row: row.update(campaign_response_id=world.objects["entry"].pk))
    refused(archive, "annotation.GoldLabel.jsonl, line 1, field 'campaign_response_id'")


def test_a_judgment_in_an_assignment_already_here_is_refused(copy):
    archive, world = copy
    turned(archive, "annotation.Judgment.jsonl", lambda row: row.update(assignment_id=world.objects["assignment"].pk))
    refused(archive, "annotation.Judgment.jsonl, line 1, field 'assignment_id'")


def test_experts_added_to_a_campaign_already_here_are_refused(copy):
    archive, world = copy
    turned(archive, "annotation.Campaign.experts.jsonl", lambda row: row.update(campaign_id=world.objects["campaign"].pk))
    refused(archive, "annotation.Campaign.experts.jsonl, line 1, field 'campaign_id'")
    assert world.objects["campaign"].experts.count() == 3


def test_an_audit_entry_about_a_criterion_of_another_dataset_is_refused(copy):
    archive, world = copy
    lineage = str(world.objects["criterion"].lineage_id)
    members = read_members(archive)
    entries = records(members["rubrics.AuditEntry.jsonl"])
    assert entries, "the world's rubric history travels"
    turned(archive, "rubrics.AuditEntry.jsonl", lambda row: row.update(criterion_key=lineage))
    refused(archive, "rubrics.AuditEntry.jsonl, line 1, field 'criterion_key'")


def test_a_second_dataset_in_the_archive_is_refused(copy):
    archive, _world = copy
    members = read_members(archive)
    datasets = records(members["heartbench_core.Dataset.jsonl"])
    datasets.append({**datasets[0], "id": 777777, "name": "planted"})
    members["heartbench_core.Dataset.jsonl"] = jsonl(datasets)
    rewrite(archive, members)
    refused(archive, "holds 2 datasets")


def test_a_table_out_of_order_cannot_point_ahead(copy):
    """The manifest's order is not the restore's: a parent named after its children changes nothing."""
    archive, _world = copy
    members = read_members(archive)
    manifest = json.loads(members["manifest.json"])
    manifest["order"] = list(reversed(manifest["order"]))
    members["manifest.json"] = json.dumps(manifest).encode()
    rewrite(archive, members)
    call_command("import_campaign", str(archive), verbosity=0)
    assert apps.get_model("annotation", "Campaign").objects.filter(name="matrix-2").exists()


def test_an_assignment_filed_under_another_campaign_than_its_responses_is_refused(copy):
    """The assignment's campaign is a copy of its response's: the archive's own value is checked, never taken on its word."""
    archive, _world = copy
    campaigns = [row["id"] for row in records(read_members(archive)["annotation.Campaign.jsonl"])]
    assignment = records(read_members(archive)["annotation.Assignment.jsonl"])[0]
    other = next((pk for pk in campaigns if pk != assignment["campaign_id"]), assignment["campaign_id"] + 1)
    turned(archive, "annotation.Assignment.jsonl", lambda row: row.update(campaign_id=other))
    refused(archive, "annotation.Assignment.jsonl, line 1, field 'campaign_id'", "campaign_response_id points to")
