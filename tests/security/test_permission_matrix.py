"""Every URL of the project, each HTTP method (HEAD and OPTIONS too), for every role, against one declared table.

The table is tests/security/permissions_table.py. A URL that is not declared there fails
`test_every_url_is_declared` with its name, so no page or endpoint lands unreviewed; each
role's walk asserts the exact set of (URL, method) it may use and that nothing answers 5xx.
"""

import pytest
from django.core.cache import cache
from django.test import Client

from tests.security import permissions_table as table
from tests.security.urlwalk import METHODS, ROLES, allowed_roles, build_path, endpoints, outcome, probe
from tests.security.world import build_world

pytestmark = pytest.mark.django_db

# Arguments named alike in different URLs (pk, public_id) mean different objects.
ARG_SOURCES = {
    ("version-", "pk"): "version_pk",
    ("item-", "pk"): "item_pk",
    ("model-", "pk"): "model_pk",
    ("judge-run-", "pk"): "judge_run_pk",
    ("endpoint-run-", "pk"): "endpoint_run_pk",
    ("judging:run", "pk"): "endpoint_run_pk",
    ("endpoint-", "name"): "endpoint_name",
    ("judging:endpoint", "name"): "endpoint_name",
    ("judge-template-", "name"): "template_name",
    ("judging:template", "name"): "template_name",
    ("response-", "public_id"): "response_public_id",
    ("rubrics-revision-", "pk"): "revision_pk",
    ("rubrics:revision", "pk"): "revision_pk",
    ("rubrics:submit", "pk"): "revision_pk",
    ("rubrics:review-revision", "pk"): "revision_pk",
    ("rubrics:comment", "pk"): "revision_pk",
    ("rubrics-audit-", "pk"): "audit_pk",
    ("rubrics:resolve", "pk"): "flag_pk",
    ("validation-report", "pk"): "report_pk",
    ("validation-job", "pk"): "job_pk",
    ("annotation:discussion", "public_id"): "submitted_public_id",
    ("api-ws-discussion", "public_id"): "submitted_public_id",
    ("api-campaign-", "pk"): "campaign_id",
    ("api-calibration-result-", "pk"): "calibration_result_pk",
    ("api-alert-", "pk"): "alert_pk",
    ("annotation:faq", "pk"): "faq_pk",
    ("annotation:case", "pk"): "case_pk",
    ("api-library-faq", "pk"): "faq_pk",
    ("api-library-case", "pk"): "case_pk",
    ("annotation:report", "kind"): "report_kind",
    ("annotation:report", "report_id"): "problem_report_pk",
    ("api-report-resolve", "kind"): "report_kind",
    ("api-report-resolve", "report_id"): "problem_report_pk",
    ("tokens-revoke", "pk"): "api_token_pk",
    ("my-tokens-revoke", "pk"): "api_token_pk",
    ("api-token-", "pk"): "api_token_pk",
    ("api-my-token-", "pk"): "api_token_pk",
}

# Query strings some endpoints need to name their subject.
QUERIES = {
    "rubrics-api-stale": "?dataset=demo",
    "rubrics-api-quality": "?dataset=demo",
    "rubrics-api-worklist": "?dataset=demo",
    "api-library-search": "?q=%E5%85%B1%E6%83%85",
}


def values_for(endpoint, world) -> dict:
    values = {}
    for arg in endpoint.args:
        source = arg
        for (prefix, name), alias in ARG_SOURCES.items():
            if name == arg and (endpoint.name or "").startswith(prefix):
                source = alias
                break
        value = world.values.get(source)
        if value is None:
            raise LookupError(f"{endpoint.key}: the fixture world has no value for argument {arg!r} (looked up {source!r})")
        values[arg] = value
    return values


def user_for(role, cast):
    return {
        "admin": cast.admin,
        "author": cast.author,
        "reviewer": cast.reviewer,
        "expert": cast.expert,
        "other_expert": cast.experts[1],
        "outsider": cast.outsider,
        "anonymous": None,
    }[role]


def test_every_url_is_declared():
    undeclared = [e.key for e in endpoints(table.SKIP_PREFIXES) if e.key not in table.TABLE]
    assert not undeclared, (
        "These URLs are not declared in tests/security/permissions_table.py; add each with the roles "
        "allowed per method:\n  " + "\n  ".join(undeclared)
    )


def test_no_declared_url_is_stale():
    keys = {e.key for e in endpoints(table.SKIP_PREFIXES)}
    stale = sorted(set(table.TABLE) - keys)
    assert not stale, "Declared in permissions_table.py but no longer a URL of the project: " + ", ".join(stale)


def test_the_table_only_names_known_roles_and_methods_the_views_handle():
    handled = {e.key: e.methods for e in endpoints(table.SKIP_PREFIXES)}
    for key, rules in table.TABLE.items():
        for method, roles in rules.items():
            assert method in handled.get(key, METHODS), f"{key}: the view does not handle {method}"
            assert set(roles) <= set(ROLES), f"{key}: unknown role in {roles}"


@pytest.mark.parametrize("role", ROLES)
def test_each_role_reaches_exactly_the_declared_urls(role, cast):
    world = build_world(cast)
    cache.clear()
    client = Client()
    user = user_for(role, cast)
    if user is not None:
        client.force_login(user)
    wrong, errors, missing = [], [], []
    for endpoint in endpoints(table.SKIP_PREFIXES):
        rules = table.TABLE.get(endpoint.key)
        if rules is None:
            continue  # reported by test_every_url_is_declared
        try:
            path = build_path(endpoint.route, values_for(endpoint, world)) + QUERIES.get(endpoint.key, "")
        except LookupError as exc:
            missing.append(str(exc))
            continue
        # Methods the view does not handle answer 405 whoever asks: probed once, as the admin.
        methods = METHODS if role == "admin" else endpoint.methods
        for method in methods:
            response = probe(client, method, path)
            seen = outcome(response)
            expected = "allowed" if role in allowed_roles(rules, method) else "denied"
            if seen == "error":
                errors.append(f"{method} {path} ({endpoint.key}) answered {response.status_code}")
            elif seen != expected:
                wrong.append(f"{method} {path} ({endpoint.key}): expected {expected}, got {response.status_code}")
    assert not missing, "\n".join(missing)
    assert not errors, f"as {role}:\n" + "\n".join(errors)
    assert not wrong, f"as {role}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("role", ROLES)
def test_the_django_admin_is_for_superusers_and_staff_flagged_users_only(role, cast):
    client = Client()
    user = user_for(role, cast)
    if user is not None:
        client.force_login(user)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
