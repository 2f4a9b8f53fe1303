"""An archive member is read a chunk at a time: its lines come out whole across chunk boundaries, and a long one is refused where it starts."""

import io
import random
import zipfile

import pytest
from django.core.exceptions import ValidationError

from heartbench_core.archive_file import CHUNK, ArchiveReader, Bounds

LARGE = Bounds(line=10**9, member=10**9, total=10**9)


def reader(data: bytes, bounds: Bounds = LARGE) -> ArchiveReader:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("m.jsonl", data)
    buffer.seek(0)
    return ArchiveReader(buffer, "a.zip", bounds)


def test_lines_come_out_whole_and_numbered_across_chunk_boundaries():
    rng = random.Random(7)
    for _ in range(100):
        lengths = [rng.choice([0, 1, 5, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]) for _ in range(rng.randint(0, 8))]
        data = b"\n".join(b"x" * n for n in lengths) + rng.choice([b"", b"\n"])
        expected = data.split(b"\n")
        if expected[-1] == b"":
            expected.pop()
        assert list(reader(data).lines("m.jsonl")) == list(enumerate(expected, start=1))


def test_a_line_past_the_bound_is_refused_naming_its_number_in_either_pass():
    data = b"short\n" + b"x" * (3 * CHUNK) + b"\nshort\n"
    bounds = Bounds(line=CHUNK, member=10**9, total=10**9)
    for read in (lambda r: list(r.lines("m.jsonl")), lambda r: r.sha256("m.jsonl")):
        with pytest.raises(ValidationError, match=f"a.zip: m.jsonl, line 2 is longer than {CHUNK} bytes"):
            read(reader(data, bounds))


def test_a_member_is_counted_as_it_unpacks_and_refused_past_its_bound():
    data = b"\n" * (5 * CHUNK)
    with pytest.raises(ValidationError, match=f"a.zip: m.jsonl unpacks to more than {2 * CHUNK} bytes"):
        list(reader(data, Bounds(line=CHUNK, member=2 * CHUNK, total=10**9)).lines("m.jsonl"))
