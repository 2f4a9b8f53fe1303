"""In Chromium: an admin invites someone from the People page, confirms, and the invitee sets a password from the e-mail's link.

No Content-Security-Policy violation on the way; screenshots of each step go to test-artifacts/.
"""

import pytest
from django.core import mail

from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

from .helpers import last_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""
NEW_PASSWORD = "a-long-and-unusual-passphrase-42"


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"people-{name}.png"), full_page=True)
    assert page.evaluate("window.__cspViolations") == []


def test_an_admin_invites_an_expert_who_then_sets_a_password(browser, live_server, cast):  # noqa: F811
    admin = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    admin.add_init_script(WATCH)
    admin.goto(live_server.url + "/accounts/login/")
    admin.fill("#id_username", cast.admin.username)
    admin.fill("#id_password", PASSWORD)
    admin.click("main button[type=submit]")
    admin.wait_for_load_state("networkidle")
    admin.click("header summary:text-is('People')")  # an admin's links are grouped: People is in the People menu
    admin.click("header a:text-is('People')")
    admin.wait_for_load_state("networkidle")
    assert "erin_expert1" in admin.inner_text("main")
    shot(admin, "list")

    admin.select_option("#id_role", "expert")  # htmx swaps the table
    admin.wait_for_load_state("networkidle")
    admin.wait_for_function("() => !document.querySelector('#people-table').innerText.includes('rita_author')")
    assert "/people/?role=expert" in admin.url
    shot(admin, "list-experts")

    admin.click("main a:text-is('Invite someone')")
    admin.fill("#id_email", "nora@example.org")
    admin.fill("#id_first_name", "Nora")
    admin.select_option("#id_language", "zh-hans")
    shot(admin, "invite")
    admin.click("main button[type=submit].primary")
    assert "Invite nora@example.org?" in admin.inner_text("main")
    shot(admin, "invite-confirm")
    admin.click("main button[type=submit].primary")
    admin.wait_for_load_state("networkidle")
    assert "Invitation sent to nora@example.org" in admin.inner_text("main")
    shot(admin, "person-invited")
    assert len(mail.outbox) == 1

    invitee = browser.new_page(viewport={"width": 390, "height": 844}, locale="en-US")
    invitee.add_init_script(WATCH)
    invitee.goto(live_server.url + last_link())
    shot(invitee, "accept")
    invitee.fill("#id_new_password1", NEW_PASSWORD)
    invitee.fill("#id_new_password2", NEW_PASSWORD)
    invitee.click("main button[type=submit]")
    invitee.wait_for_load_state("networkidle")
    assert "nora@example.org" in invitee.inner_text("header")
    shot(invitee, "accepted")

    admin.goto(live_server.url + f"/people/{cast.expert.pk}/")
    admin.click("main button:text-is('Deactivate')")
    shot(admin, "deactivate-confirm")
    admin.click("main button[type=submit].primary")
    admin.wait_for_load_state("networkidle")
    assert "erin_expert1 is deactivated" in admin.inner_text("main")
    shot(admin, "person-deactivated")
