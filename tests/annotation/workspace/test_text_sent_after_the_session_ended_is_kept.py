"""Text typed after the session ended is not lost: scripts get 401 (never the login page), a plain form's text survives the sign-in.

An autosave (htmx) or an API call without a session answers 401/403 with a sign-in link, not a
redirect the browser would follow to the login page. A plain form's draft or submission posted
after expiry is kept in the visitor's session, the sign-in returns to the same response, and the
text goes into that response's draft, only if it is the draft of whoever signed in, and only
over the version the page showed (else the page shows it again). Run on SQLite and PostgreSQL.
"""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.services.workspace import DraftEntry, save_draft
from heartbench_core.signed_out import STASH_KEY
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def judging_form(assignment, text: str, version: int = 0) -> dict[str, str]:
    data = {"version": str(version), "active_seconds": "40", "cursor": "2"}
    for c in assignment.campaign_response.item.criteria.order_by("position"):
        data.update({f"rationale-{c.pk}": f"{text} on criterion {c.position + 1}", f"hit-{c.pk}": "hit"})
    return data


def sign_in(browser: Client, user, next_path: str):
    return browser.post(reverse("login"), {"username": user.username, "password": PASSWORD, "next": next_path})


def texts(assignment) -> list[str]:
    return list(Judgment.objects.filter(assignment=assignment).order_by("criterion__position").values_list("rationale", flat=True))


@pytest.mark.parametrize("view", ["annotation:judge_draft", "annotation:judge_submit"])
def test_an_htmx_save_without_a_session_answers_401_with_a_sign_in_link_not_the_login_page(workspace, cast, view):
    assignment = workspace.reserve(cast.expert)
    page = reverse("annotation:judge", args=[assignment.public_id])
    response = Client().post(
        reverse(view, args=[assignment.public_id]),
        judging_form(assignment, "Typed after the session ended"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{page}",
    )
    assert response.status_code == 401
    body = response.content.decode()
    assert 'id="id_username"' not in body and "<form" not in body  # nothing a swap could put in the page's header
    assert "signed out" in body and f'href="/accounts/login/?next={page}"' in body
    assert not Judgment.objects.filter(assignment=assignment).exists()


def test_every_signed_in_page_answers_scripts_401_from_the_same_place(workspace, cast):
    # Not only the judging page: role_required answers every page's htmx or JSON request so.
    anonymous = Client()
    assert anonymous.get(reverse("annotation:home"), HTTP_HX_REQUEST="true").status_code == 401
    asked_json = anonymous.get(reverse("annotation:home"), HTTP_ACCEPT="application/json")
    assert asked_json.status_code == 401 and asked_json.json()["login_url"].startswith("/accounts/login/?next=")
    assert anonymous.get(reverse("annotation:home")).status_code == 302  # a person still goes to the sign-in page


@pytest.mark.parametrize("path", ["draft/", "submit/"])
def test_the_api_without_a_session_refuses_with_json_not_a_redirect(workspace, cast, path):
    assignment = workspace.reserve(cast.expert)
    response = Client().post(
        f"/api/v1/annotation/assignments/{assignment.public_id}/{path}",
        {"version": 0, "judgments": []},
        content_type="application/json",
    )
    assert response.status_code in (401, 403) and "detail" in response.json()
    assert not Judgment.objects.filter(assignment=assignment).exists()


@pytest.mark.parametrize("view", ["annotation:judge_draft", "annotation:judge_submit"])
def test_a_plain_form_posted_after_expiry_goes_into_the_draft_once_its_expert_signs_in(workspace, cast, view):
    assignment = workspace.reserve(cast.expert)
    page = reverse("annotation:judge", args=[assignment.public_id])
    browser = Client()  # the session has ended: the browser is anonymous now

    sent = browser.post(reverse(view, args=[assignment.public_id]), judging_form(assignment, "Typed after expiry"))

    assert sent.status_code == 302 and sent["Location"] == f"/accounts/login/?next={page}"
    assert not Judgment.objects.filter(assignment=assignment).exists()
    signed_in = sign_in(browser, cast.expert, page)
    assert signed_in.status_code == 302 and signed_in["Location"] == page  # back to the same response
    assert texts(assignment)[0] == "Typed after expiry on criterion 1"
    kept = Assignment.objects.get(pk=assignment.pk)
    assert kept.status == Assignment.Status.RESERVED and kept.cursor == 2 and kept.active_seconds == 40 and kept.draft_version == 1
    shown = browser.get(page).content.decode()
    assert "saved in your draft" in shown and ">Typed after expiry on criterion 1</textarea>" in shown
    assert STASH_KEY not in browser.session


def test_the_kept_text_goes_only_into_the_draft_of_whoever_signed_in(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    browser = Client()
    browser.post(reverse("annotation:judge_draft", args=[assignment.public_id]), judging_form(assignment, "Erin's text"))
    assert STASH_KEY in browser.session

    sign_in(browser, cast.experts[1], "/work/")

    assert not Judgment.objects.filter(assignment=assignment).exists()
    assert Assignment.objects.get(pk=assignment.pk).draft_version == 0
    assert STASH_KEY not in browser.session and "Erin's text" not in str(dict(browser.session))


def test_kept_text_based_on_an_older_draft_is_shown_again_not_saved_over_the_newer_one(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    first = assignment.campaign_response.item.criteria.order_by("position").first()
    page = reverse("annotation:judge", args=[assignment.public_id])
    browser = Client()
    browser.post(reverse("annotation:judge_draft", args=[assignment.public_id]), judging_form(assignment, "From the expired tab"))
    # Meanwhile the expert saved on another device.
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(first.pk, "From the laptop")], based_on=0)

    sign_in(browser, cast.expert, page)

    assert texts(assignment) == ["From the laptop"]
    shown = browser.get(page).content.decode()
    assert "changed elsewhere while you were signed out" in shown
    assert ">From the expired tab on criterion 1</textarea>" in shown and 'name="version" value="1"' in shown
    # Shown once: it is in the form now, and a reload shows the draft.
    assert ">From the laptop</textarea>" in browser.get(page).content.decode()
