"""Two tabs on one response no longer erase each other's rationales: a save based on an older draft version is refused (409).

Every save and the submission carry the draft version they were based on (the page's hidden
`version` field, the API's `version`); the draft moves to its next version on each. The tab
that saved second, from an older version, is told so and keeps its text; the API's 409 says
what the draft now holds, so a client can merge. Run on SQLite and PostgreSQL.
"""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.services.workspace import DraftConflict, DraftEntry, save_draft, submit_assignment

from .conftest import complete_entries

pytestmark = pytest.mark.django_db


def first_criterion(assignment):
    return assignment.campaign_response.item.criteria.order_by("position").first()


def form_of(criterion, rationale: str, version: int, **extra: str) -> dict[str, str]:
    return {f"rationale-{criterion.pk}": rationale, f"hit-{criterion.pk}": "hit", "version": str(version), **extra}


def saved_text(assignment, criterion) -> str:
    return Judgment.objects.get(assignment=assignment, criterion=criterion).rationale


def test_each_save_moves_the_draft_to_its_next_version_and_an_older_one_is_refused(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    first = save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Tab A's rationale")], based_on=0)
    assert first.draft_version == 1
    with pytest.raises(DraftConflict) as refused:
        save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Tab B's older rationale")], based_on=0)
    assert refused.value.current["version"] == 1
    assert refused.value.current["judgments"] == [{"criterion": c.pk, "rationale": "Tab A's rationale", "hit": None}]
    assert saved_text(assignment, c) == "Tab A's rationale"
    assert Assignment.objects.get(pk=assignment.pk).draft_version == 1


def test_a_retry_that_writes_what_the_draft_already_holds_goes_through(workspace, cast):
    # The first answer was lost (a dropped connection after the commit): sending the same text again overwrites nothing.
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Sent once", True)], based_on=0)
    again = save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Sent once", True)], based_on=0)
    assert again.draft_version == 2 and saved_text(assignment, c) == "Sent once"


def test_a_submission_based_on_an_older_version_is_refused_and_nothing_is_submitted(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    seen = save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment), based_on=0).draft_version
    save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment, text="Rewritten in another tab"))
    with pytest.raises(DraftConflict):
        submit_assignment(assignment=assignment, expert=cast.expert, based_on=seen)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED
    done = submit_assignment(assignment=assignment, expert=cast.expert, based_on=seen + 1)
    assert done.status == Assignment.Status.SUBMITTED and done.draft_version == seen + 2


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_stale_tabs_autosave_is_told_in_its_language_and_the_newer_text_stays(workspace, cast, language):
    cast.expert.language = language
    cast.expert.save(update_fields=["language"])
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    tab_a, tab_b = Client(), Client()
    tab_a.force_login(cast.expert)
    tab_b.force_login(cast.expert)
    url = reverse("annotation:judge_draft", args=[assignment.public_id])
    page = tab_b.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert 'name="version" value="0"' in page  # both tabs opened the response at version 0

    saved = tab_a.post(url, form_of(c, "Tab A: the response names the fatigue", 0), HTTP_HX_REQUEST="true")
    assert saved.status_code == 200 and saved["HB-Draft-Version"] == "1"
    stale = tab_b.post(url, form_of(c, "Tab B: an older thought", 0), HTTP_HX_REQUEST="true")

    assert stale.status_code == 409 and stale["HB-Draft-Conflict"] == "1" and "HB-Draft-Version" not in stale
    body = stale.content.decode()
    expected = "已在另一个标签页中更改" if language == "zh-hans" else "Changed in another tab"
    assert 'id="save-status"' in body and "state-conflict" in body and expected in body
    assert saved_text(assignment, c) == "Tab A: the response names the fatigue"


def test_the_save_draft_button_of_a_stale_tab_shows_its_text_again_and_saving_again_keeps_it(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, "Saved by tab A")], based_on=0)
    client = client_for(cast.expert)
    url = reverse("annotation:judge_draft", args=[assignment.public_id])

    refused = client.post(url, form_of(c, "Typed in tab B, without JavaScript", 0))
    assert refused.status_code == 409
    body = refused.content.decode()
    assert "Changed in another tab" in body and ">Typed in tab B, without JavaScript</textarea>" in body
    assert 'name="version" value="1"' in body  # the form now stands on the current version
    assert saved_text(assignment, c) == "Saved by tab A"

    # Saving again from that page is a choice made knowing: it keeps tab B's text.
    assert client.post(url, form_of(c, "Typed in tab B, without JavaScript", 1)).status_code == 302
    assert saved_text(assignment, c) == "Typed in tab B, without JavaScript"


def test_a_stale_tab_cannot_submit_over_a_newer_draft(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    criteria = list(assignment.campaign_response.item.criteria.order_by("position"))
    save_draft(assignment=assignment, expert=cast.expert, entries=complete_entries(assignment, text="Tab A's reasoning"), based_on=0)
    data = {"version": "0"}
    for c in criteria:
        data.update({f"rationale-{c.pk}": f"Tab B's reasoning on {c.position}", f"hit-{c.pk}": "miss"})

    response = client_for(cast.expert).post(reverse("annotation:judge_submit", args=[assignment.public_id]), data)

    assert response.status_code == 409
    assert f">Tab B&#x27;s reasoning on {criteria[0].position}</textarea>" in response.content.decode()
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED
    assert saved_text(assignment, criteria[0]).startswith("Tab A's reasoning")


def test_the_api_answers_409_with_the_current_draft_to_merge_with(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    client = client_for(cast.expert)
    url = reverse("api-ws-draft", args=[assignment.public_id])
    version = client.get(reverse("api-ws-assignment", args=[assignment.public_id])).json()["version"]
    first = client.post(url, {"version": version, "judgments": [{"criterion": c.pk, "rationale": "Client one"}]}, "application/json")
    assert first.status_code == 200 and first.json()["version"] == version + 1

    second = client.post(url, {"version": version, "judgments": [{"criterion": c.pk, "rationale": "Client two"}]}, "application/json")

    assert second.status_code == 409
    current = second.json()["current"]
    assert current["version"] == version + 1 and current["saved_at"]
    assert current["judgments"] == [{"criterion": c.pk, "rationale": "Client one", "hit": None}]
    assert saved_text(assignment, c) == "Client one"
    submit = client.post(reverse("api-ws-submit", args=[assignment.public_id]), {"version": version}, "application/json")
    assert submit.status_code == 409 and Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.RESERVED


def test_the_api_and_the_page_refuse_a_save_that_names_no_version(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    client = client_for(cast.expert)
    api = client.post(
        reverse("api-ws-draft", args=[assignment.public_id]), {"judgments": [{"criterion": c.pk, "rationale": "x"}]}, "application/json"
    )
    assert api.status_code == 400 and "version" in api.json()
    page = client.post(reverse("annotation:judge_draft", args=[assignment.public_id]), {f"rationale-{c.pk}": "x"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 409 and "reload" in page.content.decode() and "HB-Draft-Version" not in page
    assert not Judgment.objects.filter(assignment=assignment).exists()


@pytest.mark.django_db(transaction=True)
def test_two_saves_based_on_the_same_version_at_the_same_moment_cannot_both_win(workspace, cast):
    assignment = workspace.reserve(cast.expert)
    c = first_criterion(assignment)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def tab(text: str) -> None:
        try:
            start.wait()
            save_draft(assignment=assignment, expert=cast.expert, entries=[DraftEntry(c.pk, text)], based_on=0)
            outcomes.append("saved")
        except DraftConflict:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=tab, args=(f"Tab {name}",)) for name in "AB"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused", "saved"]
    assert Assignment.objects.get(pk=assignment.pk).draft_version == 1
    assert Judgment.objects.filter(assignment=assignment).count() == 1
