"""A campaign archive as a file: the members it may hold, how far each may unpack, and the manifest's signature.

Nothing in an archive is trusted before it is checked:

- its member names are an allow-list (`manifest.json`, its signature, `users.jsonl` and one
  member per table a campaign archive may carry), each present once, stored or deflated;
- every member is read in chunks of `CHUNK` bytes and counted as it unpacks: it is refused as
  soon as a line, the member or the whole archive crosses its bound (`Bounds`), whatever sizes
  the zip declares;
- the manifest, which holds every member's SHA-256, is signed with HMAC-SHA256 under a key the
  operator provides (`signature`): an archive whose signature verifies was written by someone
  holding the key and has not changed since. The SHA-256 sums alone prove nothing: anyone can
  compute them.
"""

from __future__ import annotations

import hashlib
import hmac
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.hmac-sha256"
CHUNK = 1 << 16
MIN_KEY_LENGTH = 32
MAX_MEMBERS = 500
_SMALL = 1 << 20  # the manifest, and far more than a signature needs


@dataclass(frozen=True)
class Bounds:
    """How far an archive may unpack, in bytes: one line, one member, all members together."""

    line: int
    member: int
    total: int

    @classmethod
    def from_settings(cls) -> Bounds:
        return cls(
            line=settings.CAMPAIGN_ARCHIVE_MAX_LINE_BYTES,
            member=settings.CAMPAIGN_ARCHIVE_MAX_MEMBER_BYTES,
            total=settings.CAMPAIGN_ARCHIVE_MAX_TOTAL_BYTES,
        )


def archive_key(text: str | bytes, *, origin: str) -> bytes:
    """The operator's archive key as bytes; refused when too short to sign with (`origin` says where it came from)."""
    key = text.encode() if isinstance(text, str) else text
    key = key.strip()
    if len(key) < MIN_KEY_LENGTH:
        raise ValidationError(
            {
                "key": _("%(origin)s: an archive key needs at least %(n)d characters (it has %(found)d)")
                % {"origin": origin, "n": MIN_KEY_LENGTH, "found": len(key)}
            }
        )
    return key


def operator_key(key_file: str | None) -> bytes | None:
    """The archive key the operator gave: the file's content, else HEARTBENCH_ARCHIVE_KEY; None when neither is given."""
    if key_file:
        try:
            with open(key_file, "rb") as handle:
                text = handle.read(64 * 1024)
        except OSError as exc:
            raise ValidationError({"key": f"{key_file}: {exc.strerror}"}) from None
        return archive_key(text, origin=key_file)
    if settings.CAMPAIGN_ARCHIVE_KEY:
        return archive_key(settings.CAMPAIGN_ARCHIVE_KEY, origin="HEARTBENCH_ARCHIVE_KEY")
    return None


def signature(manifest: bytes, key: bytes) -> bytes:
    """The manifest's HMAC-SHA256 under the key, as the hex digits the archive stores."""
    return hmac.new(key, manifest, hashlib.sha256).hexdigest().encode()


class ArchiveReader:
    """Reads an archive's members in chunks, within its bounds; every refusal names the archive."""

    def __init__(self, source: str | Path | IO[bytes], name: str, bounds: Bounds) -> None:
        self.name, self.bounds = name, bounds
        self.unpacked = 0  # bytes the SHA-256 pass has unpacked, against `bounds.total`
        try:
            self.archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            self.refuse(_("not a campaign archive (%(error)s)") % {"error": exc})

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.archive.close()

    def refuse(self, message: str) -> NoReturn:
        raise ValidationError({"archive": f"{self.name}: {message}"})

    def member_names(self, refusal: Callable[[str], str | None]) -> set[str]:
        """The members' names, each allowed (`refusal` says why a name is not), present once, stored or deflated."""
        infos = self.archive.infolist()
        if len(infos) > MAX_MEMBERS:
            self.refuse(_("%(n)d members; a campaign archive has at most %(max)d") % {"n": len(infos), "max": MAX_MEMBERS})
        names: set[str] = set()
        for info in infos:
            if info.filename in names:
                self.refuse(_("member %(member)r appears twice") % {"member": info.filename})
            names.add(info.filename)
            if (why := refusal(info.filename)) is not None:
                self.refuse(why)
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) or info.flag_bits & 0x1:
                self.refuse(_("%(member)s is encrypted or compressed in a way campaign archives never are") % {"member": info.filename})
            if info.file_size > self.bounds.member:
                self._too_big(info.filename)
        return names

    def read_small(self, member: str) -> bytes:
        """A small member whole (the manifest, its signature): refused past a megabyte."""
        data = bytearray()
        for chunk in self.chunks(member):
            data += chunk
            if len(data) > _SMALL:
                self.refuse(_("%(member)s is larger than %(n)s bytes") % {"member": member, "n": _SMALL})
        return bytes(data)

    def chunks(self, member: str) -> Iterator[bytes]:
        """The member's bytes, unpacked a chunk at a time; refused once past the member bound."""
        size = 0
        try:
            with self.archive.open(member) as handle:
                while chunk := handle.read(CHUNK):
                    size += len(chunk)
                    if size > self.bounds.member:
                        self._too_big(member)
                    yield chunk
        except KeyError:
            self.refuse(_("%(file)s is listed in the manifest but missing") % {"file": member})
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            self.refuse(_("%(member)s is damaged (%(error)s)") % {"member": member, "error": exc})

    def sha256(self, member: str) -> str:
        """The member's SHA-256, counting it against the archive's bound and checking every line's length on the way."""
        digest = hashlib.sha256()
        line, run = 1, 0  # the line being read, and its bytes so far
        for chunk in self.chunks(member):
            self.unpacked += len(chunk)
            if self.unpacked > self.bounds.total:
                self.refuse(_("unpacks to more than %(n)s bytes in all") % {"n": self.bounds.total})
            digest.update(chunk)
            pieces = chunk.split(b"\n")
            for piece in pieces[:-1]:
                self._check_line(member, line, run + len(piece))
                line, run = line + 1, 0
            run += len(pieces[-1])
            self._check_line(member, line, run)
        return digest.hexdigest()

    def lines(self, member: str) -> Iterator[tuple[int, bytes]]:
        """(line number, line) of the member, never holding more than one line's bound of a line."""
        number, partial = 0, bytearray()
        for chunk in self.chunks(member):
            pieces = chunk.split(b"\n")
            for piece in pieces[:-1]:
                number += 1
                if partial:
                    partial += piece
                    piece, partial = bytes(partial), bytearray()
                self._check_line(member, number, len(piece))
                yield number, piece
            partial += pieces[-1]
            self._check_line(member, number + 1, len(partial))
        if partial:
            yield number + 1, bytes(partial)

    def _check_line(self, member: str, line: int, length: int) -> None:
        if length > self.bounds.line:
            self.refuse(_("%(member)s, line %(line)d is longer than %(n)s bytes") % {"member": member, "line": line, "n": self.bounds.line})

    def _too_big(self, member: str) -> NoReturn:
        self.refuse(_("%(member)s unpacks to more than %(n)s bytes") % {"member": member, "n": self.bounds.member})
