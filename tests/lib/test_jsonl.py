"""Reading JSON Lines: one object per line, every problem recorded with its file, line and field."""

import io

import pytest

from heartbench_core.lib.jsonl import (
    MAX_NESTING_DEPTH,
    MAX_REPORTED_ERRORS,
    ErrorCollector,
    LineError,
    LineErrors,
    read_jsonl,
    source_name,
    type_name,
    unstorable_part,
)


def read(text: str | bytes) -> tuple[list, list[str]]:
    errors = ErrorCollector("in.jsonl")
    handle = io.BytesIO(text) if isinstance(text, bytes) else io.StringIO(text)
    return list(read_jsonl(handle, errors)), [str(e) for e in errors.errors]


def test_it_yields_each_object_with_its_line_number_and_skips_blank_lines():
    rows, errors = read('\ufeff{"a": 1}\n\n  \n{"b": [2]}\n')
    assert rows == [(1, {"a": 1}), (4, {"b": [2]})] and errors == []


def test_each_bad_line_is_recorded_with_its_number_and_not_yielded():
    rows, errors = read('{"a": 1\n[1]\n{"x": NaN}\n{"ok": true}\n')
    assert rows == [(4, {"ok": True})]
    assert errors[0].startswith("in.jsonl, line 1: malformed JSON: ")
    assert errors[1] == "in.jsonl, line 2: expected a JSON object, found a list"
    assert errors[2] == "in.jsonl, line 3: malformed JSON: NaN is not a JSON value"


def test_bytes_that_are_not_utf8_name_the_line_and_the_byte():
    rows, errors = read(b'{"a": 1}\n{"b": "\xff"}\n')
    assert rows == [(1, {"a": 1})] and errors == ["in.jsonl, line 2: not valid UTF-8 (byte 7)"]


def test_a_nul_character_or_a_lone_surrogate_names_its_field():
    _, errors = read('{"dialogue": [{"content": "a\\u0000"}]}\n{"k": "\\ud800"}\n')
    assert errors[0] == "in.jsonl, line 1, field 'dialogue[0].content': contains a NUL character (\\u0000), which cannot be stored"
    assert errors[1].startswith("in.jsonl, line 2, field 'k': contains a lone surrogate (\\ud800)")


def test_nesting_deeper_than_the_limit_is_refused_without_recursing():
    deep: dict = {}
    node = deep
    for _ in range(MAX_NESTING_DEPTH + 1):
        node["x"] = {}
        node = node["x"]
    field, message = unstorable_part(deep)
    assert field is not None and field.count("x") == MAX_NESTING_DEPTH + 1 and "nested more than" in message
    assert unstorable_part({"fine": [1, "two", {"three": None}]}) is None


def test_a_missing_file_is_one_error_for_the_whole_file(tmp_path):
    errors = ErrorCollector("gone.jsonl")
    assert list(read_jsonl(tmp_path / "gone.jsonl", errors)) == []
    assert [(e.line, e.field) for e in errors.errors] == [(None, None)] and "cannot open file" in errors.errors[0].message


def test_raise_if_any_raises_line_errors_keeping_the_first_fifty_and_counting_the_rest():
    errors = ErrorCollector("big.jsonl")
    errors.raise_if_any()  # nothing recorded: nothing raised
    for line in range(1, MAX_REPORTED_ERRORS + 4):
        errors.add(line, "question_id", "missing")
    with pytest.raises(LineErrors) as caught:
        errors.raise_if_any()
    assert len(caught.value.errors) == MAX_REPORTED_ERRORS and caught.value.truncated == 3
    assert caught.value.messages[0] == "big.jsonl, line 1, field 'question_id': missing"
    assert caught.value.messages[-1] == "… and 3 more errors" and str(caught.value).endswith("… and 3 more errors")


def test_a_line_error_says_where_and_what_in_words_and_as_a_dict():
    error = LineError("f.jsonl", 3, "weight", "not a number")
    assert str(error) == "f.jsonl, line 3, field 'weight': not a number"
    assert str(LineError("f.jsonl", None, None, "empty")) == "f.jsonl: empty"
    assert error.as_dict() == {"file": "f.jsonl", "line": 3, "field": "weight", "message": "not a number"}


def test_names_of_sources_and_json_types_read_as_words(tmp_path):
    assert source_name(tmp_path / "a.jsonl") == str(tmp_path / "a.jsonl")
    assert source_name(io.BytesIO()) == "<upload>"
    assert [type_name(v) for v in ({}, [], "", True, 1, 1.5, None)] == [
        "an object",
        "a list",
        "a string",
        "a boolean",
        "an integer",
        "a number",
        "null",
    ]
