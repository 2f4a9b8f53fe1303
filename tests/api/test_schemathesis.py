"""Schemathesis against the generated OpenAPI schema: no 5xx and no response that breaks the schema.

Stateless, a bounded number of generated requests per operation, sent in-process through
Django's test client as a superuser (who holds every role, so requests reach every view's
code, not only its permission check) inside the test's transaction.
"""

import json

import pytest
import requests
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import Response
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

MAX_EXAMPLES = 8
BASE_URL = "http://testserver"


def generated_schema() -> dict:
    # Round-trip through JSON: the schema as the API serves it (no lazy strings, no enums as objects).
    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))


schema = schemathesis.openapi.from_dict(generated_schema())


@pytest.fixture
def superuser_client(db, client):
    demo_version()
    demo_responses()
    user = make_user("root_admin", is_superuser=True)
    client.force_login(user)
    return client


def send(client, case) -> Response:
    """Send the case through Django's test client; return it as Schemathesis sees responses."""
    kwargs = case.as_transport_kwargs(base_url=BASE_URL)
    kwargs.pop("timeout", None)
    kwargs.pop("allow_redirects", None)
    kwargs.pop("verify", None)
    prepared = requests.Request(
        **{k: v for k, v in kwargs.items() if k in {"method", "url", "headers", "params", "data", "json", "files", "cookies"}}
    ).prepare()
    path = prepared.url[len(BASE_URL) :]
    body = prepared.body or b""
    if isinstance(body, str):
        body = body.encode()
    headers = {k: v for k, v in prepared.headers.items() if k.lower() not in {"content-type", "content-length", "cookie"}}
    response = client.generic(
        prepared.method,
        path,
        data=body,
        content_type=prepared.headers.get("Content-Type", "application/octet-stream"),
        headers=headers,
    )
    return Response(
        status_code=response.status_code,
        headers={k.lower(): [v] for k, v in response.items()},
        content=response.content,
        request=prepared,
        elapsed=0.0,
        verify=True,
    )


def summary(exc: BaseException) -> str:
    """The lines of a Schemathesis failure that say what broke and how to reproduce it."""
    text = str(exc) if not isinstance(exc, BaseExceptionGroup) else "\n".join(str(e) for e in exc.exceptions)
    keep = [
        line.strip()
        for line in text.splitlines()
        if line.strip().startswith(("- ST", "curl", "Schema at", "[5"))
        or any(w in line for w in ("required property", "is not of type", "is not one of", "Server error", "Error:"))
    ]
    return "    " + "\n    ".join(dict.fromkeys(keep[:12])) if keep else f"    {type(exc).__name__}: {str(exc)[:400]}"


FUZZ = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,  # the same requests on every run: stable and reproducible
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
    database=None,
)


def test_the_api_answers_generated_requests_without_5xx_or_schema_violations(superuser_client):
    # One loop over the operations (not one test each) so the fixture data is built once.
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 20, "the schema lost its operations"
    failures = []
    for operation in operations:

        @FUZZ
        @given(case=operation.as_strategy())
        def exercise(case):
            case.validate_response(send(superuser_client, case), checks=[not_a_server_error, response_schema_conformance])

        try:
            exercise()
        except (Exception, BaseExceptionGroup) as exc:  # collect every operation's failure, report them together
            failures.append(f"{operation.label}:\n" + summary(exc))
    assert not failures, f"{len(failures)} of {len(operations)} operations failed:\n\n" + "\n\n".join(failures)
