"""The generated OpenAPI schema is valid OpenAPI and comes with no warning or error from its generator.

A warning means a contract the schema cannot state (an untyped response, a name used by two
components, a method field of unknown type): clients would be generated from a guess.
"""

import json

import pytest
from django.core.management import CommandError, call_command
from drf_spectacular.drainage import GENERATOR_STATS


def test_the_schema_validates_without_a_warning_or_an_error(tmp_path, capsys):
    # The generator counts warnings for the whole process: start from none, so only this run counts.
    GENERATOR_STATS.reset()
    target = tmp_path / "schema.json"
    try:
        call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(target))
    except CommandError as exc:
        pytest.fail(f"{exc}\n{capsys.readouterr().err}")
    schema = json.loads(target.read_text())
    assert schema["openapi"].startswith("3.") and len(schema["paths"]) > 20


def test_every_json_response_names_its_fields(tmp_path):
    """No response is a bare object: each JSON body is a component with properties (or a list of one)."""
    GENERATOR_STATS.reset()
    target = tmp_path / "schema.json"
    call_command("spectacular", "--format", "openapi-json", "--file", str(target))
    schema = json.loads(target.read_text())
    components = schema["components"]["schemas"]

    def names_its_fields(ref: str) -> bool:
        component = components.get(ref.rsplit("/", 1)[-1], {})
        if "oneOf" in component:  # one of several shapes (a profile as an admin or as its expert sees it)
            return all(names_its_fields(choice.get("$ref", "")) for choice in component["oneOf"])
        return bool(component.get("properties"))

    bare = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation.get("responses", {}).items():
                body = response.get("content", {}).get("application/json", {}).get("schema")
                if body is None:
                    continue
                body = body.get("items", body)
                if not names_its_fields(body.get("$ref", "")):
                    bare.append(f"{method.upper()} {path} {status}")
    assert not bare, "responses without named fields:\n" + "\n".join(bare)
