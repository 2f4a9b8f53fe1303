"""A hostile or damaged line in a campaign archive is an error naming the member, line and field; nothing is written."""

import hashlib
import json
import zipfile

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.archive_file import signature
from tests.conftest import ARCHIVE_KEY
from tests.security.world import build_world

# The archive is restored into an emptied database: `flush` cannot run inside a test's transaction on PostgreSQL.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("archive_key")]


@pytest.fixture
def emptied_with_archive(cast, tmp_path):
    build_world(cast)
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    return archive


def rewrite(archive, member: str, change) -> None:
    """Replace one member's first line by change(line), keeping the manifest's hashes and signature true.

    As a forger holding the archive key would: the signature says who wrote an archive, not that
    its lines are sound, so every line is checked all the same.
    """
    with zipfile.ZipFile(archive) as src:
        contents = {i.filename: src.read(i.filename) for i in src.infolist()}
    lines = contents[member].decode().splitlines()
    lines[0] = change(lines[0])
    contents[member] = ("\n".join(lines) + "\n").encode()
    manifest = json.loads(contents["manifest.json"])
    manifest["files"][member]["sha256"] = hashlib.sha256(contents[member]).hexdigest()
    contents["manifest.json"] = json.dumps(manifest).encode()
    write_signed(archive, contents)


def write_signed(archive, contents: dict[str, bytes]) -> None:
    contents["manifest.json.hmac-sha256"] = signature(contents["manifest.json"], ARCHIVE_KEY.encode())
    with zipfile.ZipFile(archive, "w") as dst:
        for name, data in contents.items():
            dst.writestr(name, data)


def every_count() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()}


def restore_fails(archive, *needles: str) -> None:
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), verbosity=0)
    message = str(caught.value)
    assert "nothing was written" in message
    for needle in needles:
        assert needle in message
    assert every_count() == before  # users, datasets, judgments: not one row


def with_field(name, value):
    def change(line):
        record = json.loads(line)
        record[name] = value
        return json.dumps(record)

    return change


def test_a_nul_in_a_rationale_names_the_member_line_and_field(emptied_with_archive):
    rewrite(emptied_with_archive, "annotation.Judgment.jsonl", with_field("rationale", "fine\u0000then not"))
    restore_fails(emptied_with_archive, "matrix.zip/annotation.Judgment.jsonl, line 1, field 'rationale'", "NUL")


def test_a_deeply_nested_line_is_an_error_not_a_crash(emptied_with_archive):
    rewrite(emptied_with_archive, "validation.AgreementReport.jsonl", lambda line: "[" * 200000 + "]" * 200000)
    restore_fails(emptied_with_archive, "matrix.zip/validation.AgreementReport.jsonl, line 1", "nested more than")


def test_a_deeply_nested_field_is_named(emptied_with_archive):
    nested = {}
    for _ in range(100):
        nested = {"x": nested}
    rewrite(emptied_with_archive, "validation.AgreementReport.jsonl", with_field("result", nested))
    restore_fails(emptied_with_archive, "validation.AgreementReport.jsonl, line 1, field 'result.x.x", "nested more than")


def test_a_value_of_the_wrong_type_names_its_field(emptied_with_archive):
    rewrite(emptied_with_archive, "annotation.Judgment.jsonl", with_field("hit", "yes"))
    restore_fails(emptied_with_archive, "annotation.Judgment.jsonl, line 1, field 'hit': expected true or false")


def test_an_unknown_field_is_named(emptied_with_archive):
    rewrite(emptied_with_archive, "annotation.Assignment.jsonl", with_field("is_gold", True))
    restore_fails(emptied_with_archive, "annotation.Assignment.jsonl, line 1, field 'is_gold'", "no such field")


def test_a_link_to_a_row_the_archive_lacks_writes_nothing(emptied_with_archive):
    rewrite(emptied_with_archive, "validation.AgreementReport.jsonl", with_field("campaign_id", 987654))
    restore_fails(emptied_with_archive, "validation.AgreementReport.jsonl, line 1, field 'campaign_id'", "does not restore")


def test_a_nul_in_the_manifest_is_named(emptied_with_archive):
    with zipfile.ZipFile(emptied_with_archive) as src:
        contents = {i.filename: src.read(i.filename) for i in src.infolist()}
    manifest = json.loads(contents["manifest.json"])
    manifest["campaign"] = "matrix\u0000"
    contents["manifest.json"] = json.dumps(manifest).encode()
    write_signed(emptied_with_archive, contents)
    restore_fails(emptied_with_archive, "manifest.json, field 'campaign'", "NUL")


def test_a_row_count_that_is_not_a_number_is_named(emptied_with_archive):
    with zipfile.ZipFile(emptied_with_archive) as src:
        contents = {i.filename: src.read(i.filename) for i in src.infolist()}
    manifest = json.loads(contents["manifest.json"])
    member = next(name for name in manifest["files"] if "Judgment" in name)
    manifest["files"][member]["rows"] = "many"
    contents["manifest.json"] = json.dumps(manifest).encode()
    write_signed(emptied_with_archive, contents)
    restore_fails(emptied_with_archive, member, "row count")
