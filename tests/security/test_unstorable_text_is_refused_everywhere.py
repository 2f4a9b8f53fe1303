"""A lone surrogate (or a NUL) in any input is a 400 naming where, never a 500: query strings, forms, JSON, file names, headers.

A lone surrogate ("\\ud800") is not a Unicode character: no database encodes it, and a page or a
JSON answer repeating it (a choice field's "… is not a valid choice") cannot be sent. A client
sends one as JSON's `\\ud800` escape, or by declaring a charset such as UTF-7, with which Django
decodes the query string and a multipart body. The walks below send one in every field of every
form a page shows and of every operation of the API schema, as an admin and as a plain expert.
"""

import json
from urllib.parse import quote

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import get_resolver

from annotation.models import ExpertProfile
from heartbench_core.api_parsers import CHECKED_PARSERS
from tests.security import permissions_table as table
from tests.security.test_permission_matrix import QUERIES, values_for
from tests.security.urlwalk import build_path, endpoints, forms_in
from tests.security.world import build_world

pytestmark = pytest.mark.django_db

SURROGATE = "\ud800"
SAID = "Must not contain a lone surrogate (\\ud800): it is not a Unicode character."
UTF7 = "utf-7"  # encodes a lone surrogate as "+2AA-"; Django decodes the query string and multipart bodies with it
REFUSED = (400, 401, 403, 404, 405)  # 400 when allowed to ask; the others when refused before the body is read
BOUNDARY = "hb-boundary"


def _query(names) -> str:
    return "&".join(f"{quote(name.encode(UTF7))}={quote(SURROGATE.encode(UTF7))}" for name in sorted(names))


def _multipart(fields, files=()) -> bytes:
    """A multipart body whose every field is a lone surrogate in UTF-7, and whose files' names hold one (RFC 2231 `filename*`)."""
    value = SURROGATE.encode(UTF7)
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value + b"\r\n" for name in sorted(fields)]
    parts += [
        f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename*={UTF7}''{quote(value)}.jsonl\r\n"
        f"Content-Type: application/octet-stream\r\n\r\n{{}}\n\r\n".encode()
        for name in sorted(files)
    ]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def _send(client, method: str, path: str, body: bytes | str = b"", content_type: str = ""):
    """One request, undone afterwards (probe's rollback); a query or multipart body is decoded as UTF-7."""
    if method == "GET":
        return probe_get(client, path)
    return probe_body(client, method, path, body, content_type)


def probe_get(client, path):
    return _rolled_back(lambda: client.get(path, CONTENT_TYPE=f"text/plain; charset={UTF7}"))


def probe_body(client, method, path, body, content_type):
    return _rolled_back(lambda: client.generic(method, path, body, content_type=content_type))


def _rolled_back(send):
    from django.db import transaction

    class Undo(Exception):
        pass

    holder = {}
    try:
        with transaction.atomic():
            holder["response"] = send()
            raise Undo
    except Undo:
        pass
    return holder["response"]


@pytest.fixture
def world(cast):
    built = build_world(cast)
    cache.clear()
    return built


def _client(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _who(cast, role):
    return {"admin": cast.admin, "expert": cast.expert}[role]


# --- the pages: every form, every route that takes a POST -----------------------------------------


def _page_forms(client, world) -> dict:
    forms: dict = {}
    for endpoint in endpoints(table.SKIP_PREFIXES):
        if endpoint.route.startswith(("api/", "^api/")) or "GET" not in endpoint.methods or endpoint.name == "logout":
            continue
        path = build_path(endpoint.route, values_for(endpoint, world)) + QUERIES.get(endpoint.key, "")
        response = client.get(path)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        for form in forms_in(path, response.content.decode()):
            found = forms.setdefault((form.action, form.method), (set(), set()))
            found[0].update(form.fields)
            found[1].update(form.files)
    return forms


@pytest.mark.parametrize("role", ["admin", "expert"])
def test_every_form_a_page_shows_answers_400_to_a_lone_surrogate_in_its_fields(world, cast, role):
    client = _client(_who(cast, role))
    forms = _page_forms(client, world)
    assert len(forms) >= (20 if role == "admin" else 5), sorted(forms)
    wrong = []
    for (action, method), (fields, files) in sorted(forms.items()):
        if action == "/accounts/logout/":
            continue
        if method == "get":
            response = probe_get(client, f"{action}?{_query(fields | {'x'})}")
        else:
            body = _multipart(fields | {"x"}, files)
            response = probe_body(client, "POST", action, body, f"multipart/form-data; boundary={BOUNDARY}; charset={UTF7}")
        if response.status_code != 400 or SAID not in response.content.decode():
            wrong.append(f"{method.upper()} {action} {sorted(fields)} {sorted(files)}: {response.status_code}")
    assert not wrong, f"as {role}, these did not refuse a lone surrogate with 400:\n" + "\n".join(wrong)


@pytest.mark.parametrize("role", ["admin", "expert"])
def test_every_page_route_that_takes_a_post_refuses_one_before_its_view(world, cast, role):
    client = _client(_who(cast, role))
    wrong = []
    for endpoint in endpoints(table.SKIP_PREFIXES):
        if endpoint.route.startswith(("api/", "^api/")) or "POST" not in endpoint.methods or endpoint.name == "logout":
            continue
        path = build_path(endpoint.route, values_for(endpoint, world))
        body = _multipart({"x"})
        response = probe_body(client, "POST", path, body, f"multipart/form-data; boundary={BOUNDARY}; charset={UTF7}")
        if response.status_code != 400:
            wrong.append(f"POST {path}: {response.status_code}")
    assert not wrong, "\n".join(wrong)


# --- the API: every operation of the schema, every field ------------------------------------------


def _schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _value(schema: dict, node: dict, depth: int = 0):
    """A value of the node's shape with a lone surrogate in every place that takes text (or anything else)."""
    node = _resolve(schema, node)
    for key in ("allOf", "oneOf", "anyOf"):
        if key in node and depth < 6:
            return _value(schema, node[key][0], depth + 1)
    if node.get("type") == "array" and depth < 6:
        return [_value(schema, node.get("items", {}), depth + 1)]
    if (node.get("type") == "object" or "properties" in node) and depth < 6:
        fields = {k: _value(schema, v, depth + 1) for k, v in node.get("properties", {}).items() if not v.get("readOnly")}
        return fields or {SURROGATE: SURROGATE}
    return SURROGATE


def _properties(schema: dict, node: dict) -> dict:
    node = _resolve(schema, node)
    found = dict(node.get("properties", {}))
    for part in node.get("allOf", []):
        found.update(_properties(schema, part))
    return found


def _operations(schema: dict, world):
    """(path, method, operation) of every operation of the schema, its path filled from the fixture world."""
    for endpoint in endpoints(table.SKIP_PREFIXES):
        if not endpoint.route.startswith(("api/", "^api/")):
            continue
        templated = build_path(endpoint.route, {a: f"{{{a}}}" for a in endpoint.args})
        operations = schema["paths"].get(templated) or schema["paths"].get(templated.replace("{pk}", "{id}"), {})
        if operations:
            path = build_path(endpoint.route, values_for(endpoint, world))
            for method, operation in operations.items():
                yield path, method.upper(), operation


@pytest.mark.parametrize("role", ["admin", "expert"])
def test_every_api_operation_answers_400_to_a_lone_surrogate_in_any_field(world, cast, role):
    schema = _schema()
    client = _client(_who(cast, role))
    wrong, sent = [], 0
    for path, method, operation in _operations(schema, world):
        names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"} | {"x"}
        requests = [("GET", f"{path}?{_query(names)}", b"", "")] if method == "GET" else []
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            body = json.dumps(_value(schema, content["application/json"]["schema"]))  # ensure_ascii: "\ud800" escapes
            requests.append((method, path, body, "application/json"))
        if "multipart/form-data" in content:
            shape = _value(schema, content["multipart/form-data"]["schema"])
            files = {k for k, v in _properties(schema, content["multipart/form-data"]["schema"]).items() if v.get("format") == "binary"}
            body = _multipart((set(shape) - files) | {"x"}, files)
            requests.append((method, path, body, f"multipart/form-data; boundary={BOUNDARY}; charset={UTF7}"))
        for sent_method, url, body, content_type in requests:
            sent += 1
            response = _send(client, sent_method, url, body, content_type)
            expected = (400,) if sent_method == "GET" else REFUSED
            if response.status_code not in expected or (response.status_code == 400 and SAID not in _messages(response)):
                wrong.append(f"{sent_method} {url} {str(body)[:120]}: {response.status_code}")
    assert sent > 100
    assert not wrong, f"as {role}, these did not refuse a lone surrogate with 400:\n" + "\n".join(wrong)


def _messages(response) -> list[str]:
    return [message for messages in response.json().values() for message in messages]


def test_every_api_view_parses_its_body_with_a_checking_parser():
    unchecked = []
    for pattern_callback in _api_views():
        for parser in getattr(pattern_callback.cls, "parser_classes", ()):
            if not issubclass(parser, CHECKED_PARSERS):
                unchecked.append(f"{pattern_callback.cls.__name__}: {parser.__name__}")
    assert not unchecked, "\n".join(sorted(set(unchecked)))


def _api_views():
    from tests.security.urlwalk import _walk

    return [callback for _route, _name, callback in _walk(get_resolver().url_patterns) if getattr(callback, "cls", None)]


# --- what the answer says -------------------------------------------------------------------------


def test_a_plain_expert_patching_their_own_profile_gets_a_400_naming_the_field_and_nothing_is_saved(cast, client_for):
    profile, _ = ExpertProfile.objects.get_or_create(user=cast.expert)
    response = client_for(cast.expert).patch(
        f"/api/v1/annotation/profiles/{cast.expert.username}/", json.dumps({"availability": SURROGATE}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"availability": [SAID]}
    assert ExpertProfile.objects.get(pk=profile.pk).availability == profile.availability


def test_a_nested_field_or_a_key_is_named_by_its_path(cast, client_for):
    client = client_for(cast.admin)
    url = "/api/v1/annotation/manage/pay-policy/"
    nested = client.patch(url, json.dumps({"pay_policy_text": "ok", "extra": [{"deep": SURROGATE}]}), content_type="application/json")
    assert nested.status_code == 400 and nested.json() == {"extra[0].deep": [SAID]}
    key = client.patch(url, json.dumps({SURROGATE: 1}), content_type="application/json")
    assert key.status_code == 400 and key.json() == {"\\ud800": [SAID]}


def test_the_same_layer_refuses_a_nul_in_a_json_body(cast, client_for):
    url = f"/api/v1/annotation/profiles/{cast.expert.username}/"
    ExpertProfile.objects.get_or_create(user=cast.expert)
    response = client_for(cast.expert).patch(url, {"availability_reason": "a\x00b"}, content_type="application/json")
    assert response.status_code == 400 and response.json() == {"availability_reason": ["Must not contain a NUL character."]}


def _post_utf7(client, path: str, body: bytes):
    # generic(), not post(): post() would encode the bytes again, into UTF-7.
    return client.generic("POST", path, body, content_type=f"multipart/form-data; boundary={BOUNDARY}; charset={UTF7}")


def test_a_page_says_which_field_in_plain_text(cast, client_for):
    ExpertProfile.objects.get_or_create(user=cast.expert)
    response = _post_utf7(client_for(cast.expert), "/work/profile/", _multipart({"availability"}))
    assert response.status_code == 400
    assert response.content.decode() == f"availability: {SAID}"


def test_a_query_parameter_is_named(cast, client_for):
    response = client_for(cast.admin).get(f"/people/?{_query({'role'})}", CONTENT_TYPE=f"text/plain; charset={UTF7}")
    assert response.status_code == 400 and response.content.decode() == f"role: {SAID}"
    api = client_for(cast.admin).get(f"/api/v1/people/?{_query({'role'})}", CONTENT_TYPE=f"text/plain; charset={UTF7}")
    assert api.status_code == 400 and api.json() == {"role": [SAID]}


def test_a_multipart_field_of_the_api_is_named(cast, client_for):
    response = _post_utf7(client_for(cast.admin), "/api/v1/import/heartbench/", _multipart({"dataset"}, files={"file"}))
    assert response.status_code == 400 and response.json() == {"dataset": [SAID]}


def test_an_uploaded_file_name_never_carries_one_to_a_view(cast, client_for):
    """Django's multipart parser drops unprintable characters (a lone surrogate, a NUL) from file names; the check stands behind it."""
    body = _multipart(set(), files={"file"}).replace(
        b"--hb-boundary--", b'--hb-boundary\r\nContent-Disposition: form-data; name="dataset"\r\n\r\ndemo\r\n--hb-boundary--'
    )
    response = _post_utf7(client_for(cast.admin), "/api/v1/import/heartbench/", body)
    assert response.status_code == 400 and "\\ud800" not in response.content.decode()


@pytest.mark.parametrize("value", [f"Token {SURROGATE}", "Token a\x00b"])
def test_a_header_is_named(cast, client, value):
    response = client.get("/api/v1/datasets/", HTTP_AUTHORIZATION=value)
    assert response.status_code == 400 and list(response.json()) == ["Authorization"]


def test_text_without_either_is_untouched(cast, client_for):
    client = client_for(cast.admin)
    assert client.get("/people/?role=admin").status_code == 200
    assert client.get("/api/v1/people/", {"role": "admin"}).status_code == 200
    response = client.patch("/api/v1/annotation/manage/pay-policy/", {"pay_policy_text": "按件计酬 — 😀"}, content_type="application/json")
    assert response.status_code == 200
