"""Campaign archives written by hand, as an attacker would write them: any member, any manifest, signed or not."""

import hashlib
import json
import uuid
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model

from heartbench_core.archive_file import SIGNATURE, signature
from tests.conftest import ARCHIVE_KEY

FORMAT = "heartbench-campaign/2"


def jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


def read_members(archive: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(archive) as z:
        return {name: z.read(name) for name in z.namelist()}


def records(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


# A member's content: its bytes, or a function giving them a chunk at a time (for members too big to hold).
Content = bytes | Callable[[], Iterable[bytes]]


def _chunks(content: Content) -> Iterable[bytes]:
    return [content] if isinstance(content, bytes) else content()


def _sha256(content: Content) -> str:
    digest = hashlib.sha256()
    for chunk in _chunks(content):
        digest.update(chunk)
    return digest.hexdigest()


def write(
    archive: Path,
    members: dict[str, Content],
    *,
    campaign: str = "crafted",
    dataset: str = "crafted",
    order: list[str] | None = None,
    key: str | None = ARCHIVE_KEY,
) -> Path:
    """Write the members with a manifest whose SHA-256 sums are true, signed with `key` (None: unsigned)."""
    tables = {n: d for n, d in members.items() if n not in ("manifest.json", SIGNATURE)}
    manifest = {
        "format": FORMAT,
        "campaign": campaign,
        "dataset": dataset,
        "order": order if order is not None else [n.removesuffix(".jsonl") for n in tables if n != "users.jsonl"],
        "files": {n: {"sha256": _sha256(d), "rows": d.count(b"\n") if isinstance(d, bytes) else 0} for n, d in tables.items()},
    }
    manifest_bytes = json.dumps(manifest, indent=2).encode()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, content in tables.items():
            with z.open(name, "w", force_zip64=True) as member:
                for chunk in _chunks(content):
                    member.write(chunk)
        z.writestr("manifest.json", manifest_bytes)
        if key is not None:
            z.writestr(SIGNATURE, signature(manifest_bytes, key.encode()))
    return archive


def rewrite(archive: Path, members: dict[str, Content], *, key: str | None = ARCHIVE_KEY) -> Path:
    """Write changed members back, keeping the manifest's campaign, dataset and order, re-hashed and re-signed."""
    manifest = json.loads(members["manifest.json"])
    return write(archive, members, campaign=manifest["campaign"], dataset=manifest["dataset"], order=manifest["order"], key=key)


def second_copy(archive: Path, dest: Path, *, suffix: str = "-2", offset: int = 1_000_000, same_people: bool = False) -> Path:
    """A signed archive of the same campaign under other names and ids, that restores beside the original.

    Every id (and link) moves by `offset` (UUIDs are mapped to new ones), every unique name and
    public id gains `suffix`, and so does every username unless `same_people`: an honest archive
    of another campaign, which the tests then turn against the rows already here.
    """
    people = "" if same_people else suffix
    members = read_members(archive)
    User = get_user_model()
    new_uuid = {}

    def moved(value):
        if isinstance(value, int):
            return value + offset
        if isinstance(value, str):
            return new_uuid.setdefault(value, str(uuid.uuid5(uuid.NAMESPACE_URL, value)))
        return value

    out = {}
    for name, data in members.items():
        if name in ("manifest.json", SIGNATURE):
            continue
        if name == "users.jsonl":
            out[name] = jsonl([{**u, "username": u["username"] + people} for u in records(data)])
            continue
        model = _model_of(name.removesuffix(".jsonl"))
        fields = {f.attname: f for f in model._meta.concrete_fields}
        rows = []
        for row in records(data):
            for column, value in row.items():
                f = fields[column]
                if value is None:
                    continue
                if f.is_relation and f.related_model is User:
                    row[column] = value + people
                elif f.primary_key or f.is_relation or column == "criterion_key":
                    row[column] = moved(value)
                elif f.unique:
                    row[column] = value + suffix
            rows.append(row)
        out[name] = jsonl(rows)
    manifest = json.loads(members["manifest.json"])
    return write(dest, out, campaign=manifest["campaign"] + suffix, dataset=manifest["dataset"] + suffix, order=manifest["order"])


def _model_of(label: str):
    parts = label.split(".")
    model = apps.get_model(".".join(parts[:2]))
    if len(parts) == 3:
        return model._meta.get_field(parts[2]).remote_field.through
    return model


def every_count() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()}
