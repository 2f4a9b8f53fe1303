"""In Chromium, in Chinese, without a mail server: the invite page says no e-mail will go, and the admin copies the one-time link.

The admin invites someone, reads on the invite page and on the confirmation that no e-mail is sent,
and gets the link on the person's page with a copy button (the clipboard then holds it). Reloading
the page shows it no more; the invitee sets a password from it. No Content-Security-Policy
violation on the way; screenshots go to test-artifacts/.
"""

import re

import pytest
from django.core import mail
from django.utils import translation

from heartbench_core.models import User
from tests.browser.test_judging_flow import ARTIFACTS, browser  # noqa: F401 (fixture)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', e => window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));
"""
NEW_PASSWORD = "a-long-and-unusual-passphrase-42"


def zh(msgid: str, **values: object) -> str:
    with translation.override("zh-hans"):
        text = translation.gettext(msgid)
    assert text != msgid, f"no Chinese for {msgid!r}"
    return text % values if values else text


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"invite-without-mail-{name}.png"), full_page=True)
    assert page.evaluate("window.__cspViolations") == []


def chinese_page(browser, live_server, *, width=1366, height=900):  # noqa: F811
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="zh-CN", extra_http_headers={"Accept-Language": "zh-hans"}
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.add_init_script(WATCH)
    return page


def test_the_admin_is_told_no_mail_goes_and_copies_the_link_the_invitee_then_uses(browser, live_server, cast, settings):  # noqa: F811
    settings.EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"  # EMAIL_URL unset: no mail server
    admin = chinese_page(browser, live_server)
    admin.goto(live_server.url + "/accounts/login/")
    admin.fill("#id_username", cast.admin.username)
    admin.fill("#id_password", PASSWORD)
    admin.click("main button[type=submit]")
    admin.wait_for_load_state("networkidle")
    admin.goto(live_server.url + "/people/invite/")
    assert admin.get_attribute("html", "lang") == "zh-hans"
    assert zh("No mail server is configured, so no e-mail will be sent.") in admin.inner_text("main")
    admin.fill("#id_email", "nora@example.org")
    admin.fill("#id_username", "nora")
    shot(admin, "invite")
    admin.click("main button[type=submit].primary")
    confirm = admin.inner_text("main")
    assert (
        zh(
            "No mail server is configured, so no e-mail is sent: the next page shows the one-time link, once, "
            "for you to give them; it works for %(days)d days.",
            days=7,
        )
        in confirm
    )
    shot(admin, "confirm")
    admin.click(f"main button:text-is('{zh('Make the invitation')}')")
    admin.wait_for_load_state("networkidle")
    assert zh("No e-mail was sent: give them this link yourself") in admin.inner_text("main")
    assert "Invitation sent" not in admin.inner_text("main") and zh(
        "Invitation sent to %(email)s. %(username)s appears as invited until they set a password.",
        email="nora@example.org",
        username="nora",
    ) not in admin.inner_text("main")
    link = admin.input_value("#invite-link")
    assert re.fullmatch(rf"{re.escape(live_server.url)}/accounts/invite/[^/]+/[^/]+/", link)
    copy = admin.locator(f"main button:text-is('{zh('Copy')}')")
    copy.click()
    admin.wait_for_selector(f"main button:text-is('{zh('Copied')}')")
    assert admin.evaluate("navigator.clipboard.readText()") == link
    shot(admin, "link")
    assert mail.outbox == []

    admin.reload()  # a GET of the person's page: the link is gone for good
    admin.wait_for_load_state("networkidle")
    assert admin.locator("#invite-link").count() == 0 and link not in admin.content()
    shot(admin, "person-later")

    invitee = chinese_page(browser, live_server, width=390, height=844)
    invitee.goto(link)
    invitee.fill("#id_new_password1", NEW_PASSWORD)
    invitee.fill("#id_new_password2", NEW_PASSWORD)
    invitee.click("main button[type=submit]")
    invitee.wait_for_load_state("networkidle")
    assert "nora" in invitee.inner_text("header")
    shot(invitee, "accepted")
    assert User.objects.get(username="nora").check_password(NEW_PASSWORD)
