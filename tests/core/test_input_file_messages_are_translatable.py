"""Every problem the JSONL reader and the record check can report reaches a person through the catalogue.

The reader (heartbench_core.lib.jsonl) is pure and says its problems in English; the Django side
(heartbench_core.jsonl) says them again in the reader's language. A reader message no pattern
knows would stay English in a Chinese page: this feeds the reader every kind of bad line.
"""

import io

import pytest
from django.utils import translation

from heartbench_core.jsonl import _READER_MESSAGES, InputFileError, localized, say, type_name
from heartbench_core.lib import jsonl

BAD_LINES = [
    b'{"a": 1',  # malformed, with a column
    b"[1, 2]",  # not an object
    b'{"a": NaN}',  # a constant JSON does not have
    b"\xff\xfe",  # not UTF-8
    b'{"a": "\\u0000"}',  # a NUL no database stores
    b'{"\\ud800": 1}',  # a lone surrogate in a key
    b"[" * 100_000 + b"]" * 100_000,  # deeper than the decoder goes
]


def _reader_messages(lines: list[bytes]) -> list[str]:
    errors = jsonl.ErrorCollector("bad.jsonl")
    list(jsonl.read_jsonl(io.BytesIO(b"\n".join(lines) + b"\n"), errors))
    missing = jsonl.ErrorCollector("/no/such/file.jsonl")
    list(jsonl.read_jsonl("/no/such/file.jsonl", missing))
    return [e.message for e in errors.errors + missing.errors]


def test_every_message_of_the_reader_has_a_translatable_pattern():
    messages = _reader_messages(BAD_LINES)
    assert len(messages) >= len(BAD_LINES)
    unknown = [m for m in messages if not any(pattern.fullmatch(m) for pattern, _template in _READER_MESSAGES)]
    assert not unknown


def test_in_english_the_messages_read_as_the_reader_wrote_them():
    with translation.override("en"):
        for message in _reader_messages(BAD_LINES):
            assert localized(message) == message
        assert type_name([]) == "a list"
        error = jsonl.LineError("f.jsonl", 3, "rubric[0].score", "must be an integer or null, found a string")
        assert say(error) == str(error)
        assert say(jsonl.LineError("f.jsonl", None, None, "cannot open file: gone")) == "f.jsonl: cannot open file: gone"


def test_an_input_file_error_counts_the_problems_it_leaves_out():
    errors = [jsonl.LineError("f.jsonl", n, None, "expected a JSON object, found a list") for n in range(1, jsonl.MAX_REPORTED_ERRORS + 4)]
    with translation.override("en"):
        problem = InputFileError(errors)
    assert problem.messages[-1] == "… and 3 more errors"
    assert problem.messages[0] == "f.jsonl, line 1: expected a JSON object, found a list"


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_messages_are_built_in_the_active_language_without_failing(language):
    with translation.override(language):
        for message in _reader_messages(BAD_LINES):
            assert localized(message)
