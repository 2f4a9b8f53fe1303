"""A campaign archive is signed with the operator's key; one that does not verify is refused unless restored as unverified on purpose."""

import hashlib
import hmac
import io
import json
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.conftest import ARCHIVE_KEY
from tests.reliability.crafted_archive import every_count, jsonl, read_members, records, rewrite, second_copy
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]
SIGNATURE = "manifest.json.hmac-sha256"


@pytest.fixture
def archive(cast, tmp_path):
    """A signed archive of a second campaign, restorable beside the one here."""
    build_world(cast)
    original = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(original), verbosity=0)
    return second_copy(original, tmp_path / "copy.zip")


def refused(archive, *options: str) -> str:
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), *options, verbosity=0)
    assert every_count() == before
    return str(caught.value)


def restore(archive, *options: str) -> str:
    out = io.StringIO()
    call_command("import_campaign", str(archive), *options, stdout=out, verbosity=0)
    return out.getvalue()


def test_export_signs_the_manifest_with_the_key(cast, tmp_path):
    build_world(cast)
    archive = tmp_path / "matrix.zip"
    out = io.StringIO()
    call_command("export_campaign", "matrix", "-o", str(archive), stdout=out, verbosity=0)
    members = read_members(archive)
    expected = hmac.new(ARCHIVE_KEY.encode(), members["manifest.json"], hashlib.sha256).hexdigest()
    assert members[SIGNATURE].decode() == expected
    assert "not signed" not in out.getvalue()


def test_a_signed_archive_restores_and_says_it_was_verified(archive):
    assert "Signature verified with the archive key." in restore(archive)


def test_a_member_changed_with_its_sha256_recomputed_is_refused(archive):
    """The SHA-256 sums are integrity, not authenticity: anyone can recompute them, nobody without the key can sign."""
    members = read_members(archive)
    judgments = records(members["annotation.Judgment.jsonl"])
    judgments[0]["hit"] = not judgments[0]["hit"]
    members["annotation.Judgment.jsonl"] = jsonl(judgments)
    signature = members[SIGNATURE]
    rewrite(archive, members, key=None)  # every hash true again …
    with zipfile.ZipFile(archive, "a") as z:
        z.writestr(SIGNATURE, signature)  # … under the old signature
    message = refused(archive)
    assert "copy.zip: its signature does not match the archive key" in message


def test_an_archive_signed_with_another_key_is_refused(archive):
    rewrite(archive, read_members(archive), key="another-installation-key-0123456789abcdef")
    assert "its signature does not match the archive key" in refused(archive)


def test_an_unsigned_archive_is_refused_unless_trusted_on_purpose(archive):
    rewrite(archive, read_members(archive), key=None)
    assert "the archive is not signed" in refused(archive) and "--trust-unsigned" in refused(archive)
    printed = restore(archive, "--trust-unsigned")
    assert "Not verified (--trust-unsigned)" in printed


def test_without_a_key_an_import_says_where_to_give_one(archive, settings):
    settings.CAMPAIGN_ARCHIVE_KEY = ""
    message = refused(archive)
    assert "no archive key" in message and "HEARTBENCH_ARCHIVE_KEY" in message and "--key-file" in message


def test_the_key_can_come_from_a_file(archive, settings, tmp_path):
    settings.CAMPAIGN_ARCHIVE_KEY = ""
    key_file = tmp_path / "archive.key"
    key_file.write_text(ARCHIVE_KEY + "\n")
    assert "Signature verified" in restore(archive, "--key-file", str(key_file))


def test_a_short_key_is_refused(archive, settings):
    settings.CAMPAIGN_ARCHIVE_KEY = "short"
    assert "HEARTBENCH_ARCHIVE_KEY: an archive key needs at least 32 characters (it has 5)" in refused(archive)


def test_export_without_a_key_is_refused_unless_asked_for_unsigned(cast, tmp_path, settings):
    build_world(cast)
    settings.CAMPAIGN_ARCHIVE_KEY = ""
    with pytest.raises(CommandError, match="no archive key"):
        call_command("export_campaign", "matrix", "-o", str(tmp_path / "a.zip"), verbosity=0)
    assert not (tmp_path / "a.zip").exists()
    out = io.StringIO()
    call_command("export_campaign", "matrix", "-o", str(tmp_path / "a.zip"), "--unsigned", stdout=out, verbosity=0)
    assert SIGNATURE not in read_members(tmp_path / "a.zip")
    assert "restoring it needs --trust-unsigned" in out.getvalue()
    assert json.loads(read_members(tmp_path / "a.zip")["manifest.json"])["campaign"] == "matrix"
