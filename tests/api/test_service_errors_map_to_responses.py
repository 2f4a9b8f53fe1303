"""The API's exception handler: a view lets a service's Django exception propagate and gets its response."""

import json

import pytest
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied, ValidationError
from django.http import Http404
from rest_framework.permissions import AllowAny
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from heartbench_core.jsonl import InputFileError
from heartbench_core.lib.jsonl import MAX_REPORTED_ERRORS, LineError


class Raising(APIView):
    """Raises whatever it is given, as a service called by the view would."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes: list = []
    exc: Exception

    def post(self, request):
        raise self.exc


class Conflict(ValidationError):
    def __init__(self, message: str, *, head: int):
        super().__init__(message, code="conflict")
        self.head = head


def answer(exc: Exception, **attrs) -> tuple[int, dict]:
    """The status and JSON body of a view whose service raised `exc`."""
    view = type("View", (Raising,), {"exc": exc, **attrs}).as_view()
    response = view(APIRequestFactory().post("/api/v1/anything/", {}, format="json"))
    response.render()
    return response.status_code, json.loads(response.content)


def test_a_validation_error_by_field_is_a_400_naming_each_field():
    status, body = answer(ValidationError({"dataset": "no dataset named 'x'", "version": ["a", "b"]}))
    assert status == 400
    assert body == {"detail": "nothing was written", "errors": {"dataset": ["no dataset named 'x'"], "version": ["a", "b"]}}


def test_a_validation_error_without_fields_is_a_400_listing_its_messages():
    status, body = answer(ValidationError(["first problem", "second problem"]))
    assert status == 400
    assert body == {"detail": "nothing was written", "errors": ["first problem", "second problem"]}


def test_an_input_file_error_names_file_line_and_field_and_counts_what_it_left_out():
    errors = [LineError("bad.jsonl", n, "score", "not a number") for n in range(1, MAX_REPORTED_ERRORS + 4)]
    status, body = answer(InputFileError(errors))
    assert status == 400 and body["detail"] == "nothing was written"
    assert body["errors"][0] == {"file": "bad.jsonl", "line": 1, "field": "score", "message": "not a number"}
    assert len(body["errors"]) == MAX_REPORTED_ERRORS and body["more_errors"] == 3


def test_a_view_that_writes_nothing_names_its_own_outcome():
    status, body = answer(ValidationError({"model": "no model named 'x'"}), validation_error_detail="no score")
    assert status == 400 and body == {"detail": "no score", "errors": {"model": ["no model named 'x'"]}}


def test_a_conflict_is_a_409_with_its_message_and_the_current_head():
    status, body = answer(Conflict("Conflict: changed by someone else (now revision 4).", head=4))
    assert status == 409
    assert body == {"detail": "Conflict: changed by someone else (now revision 4).", "head": 4}


def test_permission_denied_is_a_403_with_its_message():
    status, body = answer(PermissionDenied("Only admins override tiers."))
    assert status == 403 and body == {"detail": "Only admins override tiers."}


@pytest.mark.parametrize("exc", [ObjectDoesNotExist("Campaign matching query does not exist."), Http404()])
def test_a_missing_object_is_a_404(exc):
    status, body = answer(exc)
    assert status == 404 and body == {"detail": "Not found."}
