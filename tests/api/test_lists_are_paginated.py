"""Every list in the API is paginated and filterable, except the few declared here with a reason.

The lists are read from the generated OpenAPI schema: a GET whose path does not end in an
id. A new list that is neither paginated nor declared below fails this test, naming it.
"""

import json

from drf_spectacular.generators import SchemaGenerator

# Not paginated on purpose (bounded by construction, or one document rather than a list).
NOT_PAGINATED = {
    "/api/v1/validation/campaigns/{campaign_id}/export/judgments.{fmt}": "a file (CSV or JSON Lines) streamed in chunks, narrowed by since, until and model",
    "/api/v1/annotation/manage/campaigns/{id}/skips/": "one campaign's skips: counts per reason and expert, the latest 50, one document",
    "/api/v1/validation/gold-builder/candidates/": "one page of the builder's candidates (50 a page, its own page parameter) with the filters' choices, one document",
    "/api/v1/annotation/assignments/{public_id}/corrections/": "the corrections of one assignment (a handful)",
    "/api/v1/annotation/assignments/{public_id}/discussion/": "one response's discussion thread, not a list resource",
    "/api/v1/annotation/manage/campaigns/{id}/payment-lines/": "one campaign's payment lines (one per expert) with their total, one document",
    "/api/v1/annotation/manage/campaigns/{id}/payments/": "a CSV export",
    "/api/v1/annotation/manage/campaigns/{id}/settings-history/": "one campaign's guidelines revisions and recorded changes, one document",
    "/api/v1/annotation/manage/pay-policy/": "the one pay policy, not a list",
    "/api/v1/annotation/library/search/": "the best hits of each kind with their totals, one document",
    "/api/v1/annotation/library/export/": "a JSONL download",
    "/api/v1/annotation/assignments/{public_id}/library/": "the library beside one assignment (the best entries on one criterion), one document",
    "/api/v1/annotation/manage/campaigns/{id}/progress/": "one campaign's progress summary",
    "/api/v1/annotation/manage/needs-action/": "the counts of the admins' needs-action home, one document",
    "/api/v1/annotation/profiles/certificates/": "the caller's own certificates, one per blind test they earned one in (a few)",
    "/api/v1/annotation/profiles/me/": "the caller's own profile",
    "/api/v1/judge-runs/{id}/verdicts/": "one judge run's verdicts as a single document",
    "/api/v1/endpoint-runs/{id}/questions/": "one run's questions (at most its version's items) as a single document",
    "/api/v1/validation/datasets/{name}/alignment/": "one dataset's judge versions against its blind tests, one document",
    "/api/v1/rubrics/quality/": "quality signals of one dataset (or one question), one document",
    "/api/v1/rubrics/revisions/{id}/comments/": "the review discussion of one revision",
    "/api/v1/scores/": "a computed leaderboard, one document",
    "/api/v1/scores/leaderboard/": "every model's scores on one version, ranked: one document holding a page of them (50 a page, its own page parameter, count, next and previous)",
    "/api/v1/versions/{id}/diff/": "a changelog document",
    "/api/v1/versions/{id}/export/": "a JSONL download",
    "/api/v1/validation/datasets/{name}/release-policy/": "one dataset's release policy (its history inside, a few changes)",
    "/api/v1/validation/campaigns/{campaign_id}/units/{entry_id}/{criterion_id}/discussion/": "one unit's discussion, one document",
    "/api/v1/validation/versions/{version_id}/gate/": "one version's release decision, one document",
}


def list_operations() -> dict[str, dict]:
    schema = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    found = {}
    for path, ops in schema["paths"].items():
        get = ops.get("get")
        if not get or path.rstrip("/").split("/")[-1].startswith("{"):
            continue
        content = get.get("responses", {}).get("200", {}).get("content", {})
        body = next(iter(content.values()), {}).get("schema", {}) if content else {}
        params = {p["name"] for p in get.get("parameters", []) if p.get("in") == "query"}
        found[path] = {"paginated": "/Paginated" in body.get("$ref", ""), "params": params}
    return found


def test_every_list_is_paginated_or_declared():
    lists = list_operations()
    undeclared = sorted(p for p, op in lists.items() if not op["paginated"] and p not in NOT_PAGINATED)
    assert not undeclared, "lists without pagination (paginate them, or declare why in NOT_PAGINATED): " + ", ".join(undeclared)


def test_no_declared_exception_is_stale():
    lists = list_operations()
    stale = sorted(p for p in NOT_PAGINATED if p not in lists or lists[p]["paginated"])
    assert not stale, "no longer an unpaginated list, remove from NOT_PAGINATED: " + ", ".join(stale)


def test_every_paginated_list_can_be_ordered_or_filtered():
    lists = list_operations()
    bare = sorted(p for p, op in lists.items() if op["paginated"] and not (op["params"] - {"page"}))
    assert not bare, "paginated lists with no ordering or filter parameter: " + ", ".join(bare)
