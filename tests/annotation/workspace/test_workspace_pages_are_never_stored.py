"""The workspace's pages are never kept by a cache, and the judging page tells its state, so Back never shows an old form.

Every answer under /work/ shows or changes an expert's own work: each carries `Cache-Control:
no-store`, so Back after a submission asks the server again. A page the browser restored from its
back/forward cache as it was asks (a HEAD) for `HB-Work-State` (editable, submitted, lapsed) and
`HB-Page-Draft-Version`, and reloads when either moved on. Run on SQLite and PostgreSQL.
"""

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
from annotation.workspace.held_text import HELD_KEY

from .conftest import complete_entries, judge_fully

pytestmark = pytest.mark.django_db


def never_stored(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def test_every_workspace_page_an_expert_opens_is_sent_with_no_store(workspace, cast, client_for):
    open_work = workspace.reserve(cast.expert)
    done = judge_fully(workspace.reserve(cast.expert, "dm0002"))
    client = client_for(cast.expert)
    for path in (
        reverse("annotation:home"),
        reverse("annotation:completed"),
        reverse("annotation:judge", args=[open_work.public_id]),
        reverse("annotation:judge", args=[done.public_id]),
        reverse("annotation:judge_correction", args=[done.public_id]),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert never_stored(response), f"{path}: {response.get('Cache-Control')!r}"


def test_an_autosave_and_a_submission_are_answered_with_no_store(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    client = client_for(cast.expert)
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    saved = client.post(
        reverse("annotation:judge_draft", args=[assignment.public_id]),
        {f"rationale-{criterion.pk}": "A first rationale", "version": "0"},
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200 and never_stored(saved)
    submitted = client.post(reverse("annotation:judge_submit", args=[assignment.public_id]), {"version": "1"})
    assert never_stored(submitted)


def test_the_judging_page_tells_a_restored_page_its_state_and_draft_version(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    client = client_for(cast.expert)
    url = reverse("annotation:judge", args=[assignment.public_id])
    fresh = client.head(url)
    assert (fresh["HB-Work-State"], fresh["HB-Page-Draft-Version"]) == ("editable", "0")
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(criterion.pk, "Saved in another tab")], based_on=0)
    assert client.head(url)["HB-Page-Draft-Version"] == "1"
    save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment), based_on=1)
    submit_assignment(assignment=assignment, expert=cast.expert, based_on=2)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED
    after = client.head(url)
    assert after.status_code == 200 and after["HB-Work-State"] == "submitted"
    # The page it reloads to is the read-only view: no form to post, nothing to autosave.
    page = client.get(url).content.decode()
    assert 'data-submitted="1"' in page and "hx-post" not in page.split('id="judging-form"')[1].split(">")[0]


def test_asking_for_the_state_leaves_text_held_over_a_sign_in_for_the_page(workspace, cast, client_for):
    # Text posted while signed out that could not be saved is shown once, on the page; a HEAD does not use it up.
    assignment = workspace.reserve(cast.expert)
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    client = client_for(cast.expert)
    session = client.session
    session[HELD_KEY] = {assignment.public_id: {"fields": {f"rationale-{criterion.pk}": ["Typed while signed out"]}, "reason": "Kept."}}
    session.save()
    url = reverse("annotation:judge", args=[assignment.public_id])
    assert client.head(url)["HB-Work-State"] == "editable"
    assert "Typed while signed out" in client.get(url).content.decode()
