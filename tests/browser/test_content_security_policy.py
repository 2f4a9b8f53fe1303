"""Each role's pages run in a real browser under the Content-Security-Policy without a single violation.

Every page a role may open (the permission table's GET URLs that answer HTML, filled from the
fixture world) is loaded in Debian's Chromium; the page records each `securitypolicyviolation`
event and the console's CSP refusals. htmx is exercised too (autosave of the judging page,
the filters of the assignment overview), as is the Django admin and the API's Swagger page.
Screenshots of a few pages go to test-artifacts/.
"""

import re

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.models import Assignment, Judgment
from heartbench_core.models import User
from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD
from tests.security import permissions_table as table
from tests.security.test_permission_matrix import QUERIES, user_for, values_for
from tests.security.urlwalk import allowed_roles, build_path, endpoints
from tests.security.world import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' +
    (e.sourceFile || document.location.pathname) + ':' + e.lineNumber + ' ' + (e.sample || ''));
});
"""
SCREENSHOTS = {"/work/manage/campaigns/": "csp-campaigns.png"}
SCREENSHOT_PATTERNS = ((re.compile(r"^/validation/campaigns/\d+/reports/\d+/$"), "csp-report.png"),)


def html_pages(role: str, world) -> list[str]:
    """The GET URLs the role may open that answer an HTML page (downloads and API answers left out)."""
    client = Client()
    client.force_login(user_for(role, world.cast))
    pages = []
    for endpoint in endpoints(table.SKIP_PREFIXES):
        rules = table.TABLE.get(endpoint.key)
        if not rules or role not in allowed_roles(rules, "GET"):
            continue
        path = build_path(endpoint.route, values_for(endpoint, world)) + QUERIES.get(endpoint.key, "")
        if path.startswith("/api/") and path != "/api/docs/":
            continue
        response = client.get(path)
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            pages.append(path)
    return pages


def session_page(browser, live_server, user):  # noqa: F811
    """A browser page logged in as the user (through the login form) that records CSP violations."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH)
    page = context.new_page()
    page.console_messages = []
    page.on("console", lambda m: page.console_messages.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")  # the header holds the language and log-out buttons
    page.wait_for_load_state("networkidle")
    return page


def violations(page) -> list[str]:
    return list(page.evaluate("window.__cspViolations || []")) + page.console_messages


def visit_all(page, live_server, paths) -> list[str]:
    found = []
    for path in paths:
        page.console_messages.clear()
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        shot = SCREENSHOTS.get(path) or next((name for pattern, name in SCREENSHOT_PATTERNS if pattern.match(path)), None)
        if shot:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
        found += [f"{path}: {v}" for v in violations(page)]
    return found


@pytest.mark.parametrize("role", ["admin", "author", "reviewer", "expert"])
def test_every_page_of_the_role_loads_without_a_policy_violation(browser, live_server, cast, role):  # noqa: F811
    world = build_world(cast)
    cache.clear()
    paths = html_pages(role, world)
    assert len(paths) >= 3, paths
    page = session_page(browser, live_server, user_for(role, cast))
    found = visit_all(page, live_server, paths)
    assert not found, f"as {role}, {len(found)} violations on {len(paths)} pages:\n" + "\n".join(found)


def test_htmx_swaps_run_without_a_policy_violation(browser, live_server, cast):  # noqa: F811
    world = build_world(cast)
    cache.clear()
    reserved = Assignment.objects.filter(expert=cast.expert, status=Assignment.Status.RESERVED).first()
    page = session_page(browser, live_server, cast.expert)
    page.goto(f"{live_server.url}/work/a/{reserved.public_id}/")
    page.locator("textarea.rationale").first.fill("A rationale typed to trigger the autosave.")
    page.wait_for_selector("#save-status.state-saved", timeout=10000)  # htmx swapped in the server's answer
    page.wait_for_load_state("networkidle")
    assert Judgment.objects.filter(assignment=reserved, rationale__startswith="A rationale typed").exists()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "csp-judging-page.png"), full_page=True)
    found = violations(page)
    admin = session_page(browser, live_server, cast.admin)
    admin.goto(f"{live_server.url}/work/manage/campaigns/{world.values['campaign_id']}/assignments/")
    admin.select_option("select[name=status]", index=1)
    admin.wait_for_timeout(800)
    admin.wait_for_load_state("networkidle")
    found += violations(admin)
    # A search box whose trigger names an input by attribute (`from:input[name=q]`): a selector, not eval.
    admin.goto(live_server.url + world.objects["version"].get_absolute_url())
    admin.locator("input[name=q]").press_sequentially("dm0002")
    for _ in range(50):  # hx-push-url puts the query in the address once the swap happened
        if "q=dm0002" in admin.url:
            break
        admin.wait_for_timeout(200)
    assert "q=dm0002" in admin.url
    admin.wait_for_load_state("networkidle")
    found += violations(admin)
    assert not found, "\n".join(found)


def test_the_django_admin_and_the_api_docs_load_without_a_policy_violation(browser, live_server, cast):  # noqa: F811
    User.objects.create_superuser("sue_super", "sue@example.org", PASSWORD)
    page = session_page(browser, live_server, User.objects.get(username="sue_super"))
    found = visit_all(page, live_server, ["/admin/", "/admin/auth/user/", "/admin/auth/user/add/"])
    page.goto(live_server.url + "/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=15000)  # Swagger UI's own script ran: it was allowed
    page.wait_for_load_state("networkidle")
    found += [f"/api/docs/: {v}" for v in violations(page)]
    assert not found, "\n".join(found)
