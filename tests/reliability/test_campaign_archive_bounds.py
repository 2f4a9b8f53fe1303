"""An archive is read a chunk at a time and refused as soon as a line, a member or the whole crosses its bound, holding little memory."""

import tracemalloc
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.reliability.crafted_archive import every_count, read_members, rewrite, second_copy
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("archive_key")]
MB = 1024 * 1024


@pytest.fixture
def archive(cast, tmp_path):
    """A signed archive of a second campaign, restorable beside the one here."""
    build_world(cast)
    original = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(original), verbosity=0)
    return second_copy(original, tmp_path / "copy.zip")


def refused(archive, *needles: str) -> str:
    before = every_count()
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(archive), verbosity=0)
    assert every_count() == before
    for needle in needles:
        assert needle in str(caught.value)
    return str(caught.value)


def one_long_line(megabytes: int):
    """A line of `megabytes` MB that deflates to a few hundred KB: a JSON string that never ends."""

    def chunks():
        yield b'{"username": "'
        for _ in range(megabytes):
            yield b"a" * MB

    return chunks


@pytest.mark.parametrize("member", ["users.jsonl", "annotation.Judgment.jsonl"])
def test_a_line_of_a_hundred_megabytes_is_refused_at_the_line_bound_with_little_memory(archive, member):
    members = read_members(archive)
    members[member] = one_long_line(100)
    rewrite(archive, members)
    assert archive.stat().st_size < 2 * MB  # small on disk, 100 MB unpacked
    tracemalloc.start()
    try:
        refused(archive, f"copy.zip: {member}, line 1 is longer than {MB} bytes")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 * MB, f"peak {peak / MB:.0f} MB"


def test_a_member_past_its_bound_is_refused_before_anything_is_restored(archive, settings):
    settings.CAMPAIGN_ARCHIVE_MAX_MEMBER_BYTES = 4 * MB
    members = read_members(archive)
    users = members["users.jsonl"]
    members["users.jsonl"] = lambda: [users, b"\n" * (8 * MB)]  # valid: blank lines, read as nothing
    rewrite(archive, members)
    refused(archive, f"copy.zip: users.jsonl unpacks to more than {4 * MB} bytes")


def test_an_archive_past_its_total_bound_is_refused(archive, settings):
    total = sum(len(data) for name, data in read_members(archive).items() if name.endswith(".jsonl"))
    settings.CAMPAIGN_ARCHIVE_MAX_TOTAL_BYTES = total - 1
    refused(archive, f"copy.zip: unpacks to more than {total - 1} bytes in all")


@pytest.mark.parametrize("name", ["../../etc/cron.d/heartbench", "/etc/passwd", "annotation/Judgment.jsonl", "notes.txt", "..\\x.jsonl"])
def test_a_member_outside_the_allow_list_is_refused_by_name(archive, name):
    with zipfile.ZipFile(archive, "a") as z:
        z.writestr(name, b"{}\n")
    refused(archive, f"copy.zip: unexpected member {name!r}")


def test_a_member_of_a_table_no_app_declares_is_refused_by_its_label(archive):
    with zipfile.ZipFile(archive, "a") as z:
        z.writestr("django_q.Schedule.jsonl", b"{}\n")
    refused(archive, "copy.zip: django_q.Schedule: a campaign archive may not carry this table")


def test_a_member_present_twice_is_refused(archive):
    users = read_members(archive)["users.jsonl"]
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(archive, "a") as z:
        z.writestr("users.jsonl", users)
    refused(archive, "copy.zip: member 'users.jsonl' appears twice")


def test_a_member_compressed_otherwise_than_deflate_is_refused(archive):
    """bzip2 and LZMA unpack a whole block at once, whatever the reader asks for: a campaign archive never uses them."""
    members = read_members(archive)
    rewrite(archive, members)
    with zipfile.ZipFile(archive) as src:
        contents = [(info.filename, src.read(info.filename)) for info in src.infolist()]
    with zipfile.ZipFile(archive, "w") as dst:
        for name, data in contents:
            dst.writestr(name, data, compress_type=zipfile.ZIP_BZIP2 if name == "users.jsonl" else zipfile.ZIP_DEFLATED)
    refused(archive, "copy.zip: users.jsonl is encrypted or compressed in a way campaign archives never are")
