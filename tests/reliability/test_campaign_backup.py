"""A campaign exports to one archive and restores into an empty installation with identical results."""

import json
import zipfile

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reliability.backup_world import snapshot
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]


@pytest.fixture
def campaign_world(cast):
    world = build_world(cast)  # a campaign with responses, judgments, gold labels, a correction, a report
    from annotation.models import GoldLabel

    entry = world.objects["entry"]
    GoldLabel.objects.create(campaign_response=entry, criterion=world.objects["criterion"], hit=True, explanation="named")
    from validation.services.release import change_release_policy

    change_release_policy(dataset=world.objects["version"].dataset, admin=cast.admin, reason="pilot", min_pairs_per_ability=2)
    # A skipped response travels with its skip (and the draft kept on the released assignment).
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import Assignment
    from annotation.services.workspace import skip_assignment

    skipper = next(e for e in cast.experts if not Assignment.objects.filter(campaign_response=entry, expert=e).exists())
    skipped = Assignment.objects.create(campaign_response=entry, expert=skipper, expires_at=timezone.now() + timedelta(hours=1))
    skip_assignment(assignment=skipped, expert=skipper, reason="other", note="I wrote part of this dialogue")
    return world


# `flush` truncates tables: on PostgreSQL that cannot happen inside the test's transaction.
@pytest.mark.django_db(transaction=True)
def test_export_flush_import_gives_back_identical_rows_and_the_same_agreement(campaign_world, tmp_path):
    from validation.models import AgreementReport
    from validation.services.agreement_reports import create_agreement_report

    computed_before = create_agreement_report(campaign=campaign_world.objects["campaign"], resamples=50)
    before = snapshot("matrix")
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive))
    assert before["annotation.Judgment"] and before["annotation.GoldLabel"] and before["validation.AgreementReport"]
    assert before["validation.ReleasePolicy"] and before["validation.ReleasePolicyChange"] and before["annotation.Skip"]

    call_command("flush", interactive=False, verbosity=0)
    assert not apps.get_model("annotation", "Campaign").objects.exists()

    call_command("import_campaign", str(archive))
    after = snapshot("matrix")
    assert after == before
    assert AgreementReport.objects.filter(campaign__name="matrix").count() == 2
    # The restored installation computes exactly the statistics the original computed.
    computed_after = create_agreement_report(campaign=apps.get_model("annotation", "Campaign").objects.get(name="matrix"), resamples=50)
    assert computed_after.result == computed_before.result
    assert {**computed_after.inputs, "computed_at": None} == {**computed_before.inputs, "computed_at": None}
    assert computed_after.parameters == computed_before.parameters


def test_the_archive_is_one_zip_with_a_manifest_of_hashes(campaign_world, tmp_path):
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive))
    with zipfile.ZipFile(archive) as z:
        manifest = json.loads(z.read("manifest.json"))
        assert manifest["campaign"] == "matrix"
        assert "users.jsonl" in manifest["files"]
        users = z.read("users.jsonl").decode()
    assert "password" not in users and "md5$" not in users and "pbkdf2" not in users


def test_restoring_over_existing_data_is_refused_and_writes_nothing(campaign_world, tmp_path):
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive))
    counts = {m._meta.label: m.objects.count() for m in apps.get_models()}
    with pytest.raises(CommandError, match="already exist here"):
        call_command("import_campaign", str(archive))
    assert counts == {m._meta.label: m.objects.count() for m in apps.get_models()}


@pytest.mark.django_db(transaction=True)
def test_a_tampered_archive_is_refused(campaign_world, tmp_path):
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive))
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(tampered, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "annotation.Judgment.jsonl":
                data = data.replace(b'"hit": true', b'"hit": false')
            dst.writestr(info.filename, data)
    call_command("flush", interactive=False, verbosity=0)
    with pytest.raises(CommandError, match="does not match its SHA-256"):
        call_command("import_campaign", str(tampered))


def test_an_unknown_campaign_is_named_in_the_error(db, tmp_path):
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        call_command("export_campaign", "nope", "-o", str(tmp_path / "x.zip"))
    assert not (tmp_path / "x.zip").exists()


@pytest.mark.django_db(transaction=True)
def test_rows_whose_ids_are_taken_are_refused_even_under_other_names(campaign_world, tmp_path):
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive), verbosity=0)
    apps.get_model("heartbench_core", "Dataset").objects.update(name="renamed")
    apps.get_model("annotation", "Campaign").objects.update(name="renamed")
    counts = {m._meta.label: m.objects.count() for m in apps.get_models()}
    with zipfile.ZipFile(archive) as z:
        same_people = [f"--map-user={u['username']}={u['username']}" for u in map(json.loads, z.read("users.jsonl").splitlines())]
    with pytest.raises(CommandError, match=r"heartbench_core.Dataset: 1 of the archive's rows already exist here \(e.g. id \d+\)"):
        call_command("import_campaign", str(archive), *same_people, verbosity=0)
    assert counts == {m._meta.label: m.objects.count() for m in apps.get_models()}
