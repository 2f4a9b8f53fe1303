"""An importer's collected line errors reach pages, commands and the API as a ValidationError with the same messages."""

import pytest
from django.core.exceptions import ValidationError

from heartbench_core.jsonl import ErrorCollector, InputFileError
from heartbench_core.lib.jsonl import MAX_REPORTED_ERRORS, LineErrors


def test_the_collector_raises_an_input_file_error_with_the_pure_reader_s_messages():
    errors = ErrorCollector("items.jsonl")
    for line in range(1, MAX_REPORTED_ERRORS + 3):
        errors.add(line, "weight", "not a number")
    with pytest.raises(InputFileError) as caught:
        errors.raise_if_any()
    pure = LineErrors(errors.errors)
    assert isinstance(caught.value, ValidationError) and isinstance(caught.value.__cause__, LineErrors)
    assert caught.value.messages == pure.messages and str(caught.value) == str(pure)
    assert caught.value.messages[0] == "items.jsonl, line 1, field 'weight': not a number"
    assert caught.value.truncated == 2 and len(caught.value.errors) == MAX_REPORTED_ERRORS
    assert caught.value.errors[0].as_dict() == {"file": "items.jsonl", "line": 1, "field": "weight", "message": "not a number"}


def test_a_collector_with_nothing_recorded_raises_nothing():
    ErrorCollector("clean.jsonl").raise_if_any()
