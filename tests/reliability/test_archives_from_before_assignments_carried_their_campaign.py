"""A campaign archive written before assignments carried their campaign restores: each takes its response's campaign."""

import hashlib
import json
import zipfile

import pytest
from django.core.management import call_command
from django.db.models import F

from annotation.models import Assignment
from tests.reliability.test_campaign_archive_hostile_lines import write_signed
from tests.security.world import build_world

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("archive_key")]

MEMBER = "annotation.Assignment.jsonl"


def test_assignments_without_the_column_take_their_responses_campaign(cast, tmp_path):
    build_world(cast)
    before = sorted(Assignment.objects.values_list("public_id", "campaign_response__campaign__name"))
    archive = tmp_path / "matrix.zip"
    call_command("export_campaign", "matrix", "-o", str(archive), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    with zipfile.ZipFile(archive) as src:
        contents = {i.filename: src.read(i.filename) for i in src.infolist()}
    lines = [json.loads(line) for line in contents[MEMBER].decode().splitlines()]
    assert lines and all("campaign_id" in line for line in lines)
    contents[MEMBER] = "".join(json.dumps({k: v for k, v in line.items() if k != "campaign_id"}) + "\n" for line in lines).encode()
    manifest = json.loads(contents["manifest.json"])
    entry = manifest["files"][MEMBER]
    entry["sha256"] = hashlib.sha256(contents[MEMBER]).hexdigest()
    if "columns" in entry:
        entry["columns"] = [c for c in entry["columns"] if c != "campaign_id"]
    contents["manifest.json"] = json.dumps(manifest).encode()
    write_signed(archive, contents)
    call_command("import_campaign", str(archive), verbosity=0)
    restored = sorted(Assignment.objects.values_list("public_id", "campaign__name"))
    campaign_of = dict(before)
    assert restored and all(campaign_of[public_id] == name for public_id, name in restored)
    assert not Assignment.objects.exclude(campaign_id=F("campaign_response__campaign_id")).exists()
