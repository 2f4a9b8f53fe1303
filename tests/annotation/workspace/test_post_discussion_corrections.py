"""Once an expert has seen a discussion thread, their blind verdict is frozen: a later correction is a revision beside it."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, CorrectionRequest, Judgment
from annotation.services.workspace import DraftEntry, decide_correction, request_correction

from .conftest import judge_fully


@pytest.fixture
def judged_by_all(workspace, cast):
    """dm0001's first response judged by all three experts (k = 3): its thread is open."""
    return [judge_fully(workspace.reserve(e, "dm0001", "demo-model-aurora")) for e in cast.experts]


def _seen_at(assignment):
    return Assignment.objects.values_list("discussion_seen_at", flat=True).get(pk=assignment.pk)


def _flip_all(assignment) -> list[DraftEntry]:
    return [
        DraftEntry(c.pk, f"After talking it over, a miss #{c.position}", False)
        for c in assignment.campaign_response.item.criteria.order_by("position")
    ]


def _hits(assignment) -> dict[int, bool]:
    return dict(Judgment.objects.filter(assignment=assignment).values_list("criterion_id", "hit"))


def test_opening_the_discussion_page_records_once_that_the_expert_has_seen_it(judged_by_all, cast, client_for):
    mine = judged_by_all[0]
    client = client_for(cast.experts[0])
    assert _seen_at(mine) is None
    client.get(reverse("annotation:judge", args=[mine.public_id]))  # the judging page shows no stance: not seen
    assert _seen_at(mine) is None
    assert client.get(reverse("annotation:discussion", args=[mine.public_id])).status_code == 200
    first = _seen_at(mine)
    assert first is not None
    client.get(reverse("annotation:discussion", args=[mine.public_id]))
    assert _seen_at(mine) == first  # once: the first sight is what counts
    assert _seen_at(judged_by_all[1]) is None  # the others have not looked yet


def test_the_htmx_partial_and_the_api_record_it_too(judged_by_all, cast, client_for):
    by_partial, by_api, _ = judged_by_all
    client_for(cast.experts[0]).get(reverse("annotation:discussion", args=[by_partial.public_id]), HTTP_HX_REQUEST="true")
    assert _seen_at(by_partial) is not None
    assert client_for(cast.experts[1]).get(reverse("api-ws-discussion", args=[by_api.public_id])).status_code == 200
    assert _seen_at(by_api) is not None


def test_writing_to_the_thread_through_the_api_without_reading_it_first_records_it(judged_by_all, cast, client_for):
    """The answer to a comment or a vote is the thread itself, so a client cannot skip the marker."""
    commenter, voter, _ = judged_by_all
    criterion = commenter.campaign_response.item.criteria.order_by("position").first()
    client_for(cast.experts[0]).post(
        reverse("api-ws-discussion", args=[commenter.public_id]), {"body": "A thought"}, content_type="application/json"
    )
    client_for(cast.experts[1]).post(
        reverse("api-ws-discussion-votes", args=[voter.public_id]),
        {"criterion": criterion.pk, "hit": False},
        content_type="application/json",
    )
    assert _seen_at(commenter) is not None and _seen_at(voter) is not None


def test_a_closed_thread_records_nothing(workspace, cast, client_for):
    first = judge_fully(workspace.reserve(cast.experts[0], "dm0001", "demo-model-aurora"))
    client = client_for(cast.experts[0])
    assert client.get(reverse("annotation:discussion", args=[first.public_id])).status_code == 404
    assert client.get(reverse("api-ws-discussion", args=[first.public_id])).status_code == 404
    assert _seen_at(first) is None


def test_a_correction_before_the_discussion_was_seen_still_replaces_the_blind_verdict(judged_by_all, cast):
    mine = judged_by_all[0]
    correction = request_correction(assignment=mine, expert=cast.experts[0], reason="I misread it", entries=_flip_all(mine))
    assert correction.after_discussion is False
    decide_correction(correction=correction, admin=cast.admin, accept=True)
    assert set(_hits(mine).values()) == {False}


def test_a_correction_after_seeing_the_discussion_is_kept_as_a_revision_and_the_blind_verdict_stays(judged_by_all, cast, client_for):
    mine = judged_by_all[0]
    blind = _hits(mine)
    client_for(cast.experts[0]).get(reverse("annotation:discussion", args=[mine.public_id]))
    mine.refresh_from_db()
    correction = request_correction(assignment=mine, expert=cast.experts[0], reason="The others convinced me", entries=_flip_all(mine))
    assert correction.after_discussion is True
    decided = decide_correction(correction=correction, admin=cast.admin, accept=True, note="Recorded")
    assert decided.status == CorrectionRequest.Status.ACCEPTED
    assert _hits(mine) == blind  # the Judgment rows are the blind verdict, untouched
    assert {r["hit"] for r in CorrectionRequest.objects.get(pk=correction.pk).proposed} == {False}  # the revision is on record


def test_a_correction_sent_through_the_api_after_seeing_the_thread_is_flagged_too(judged_by_all, cast, client_for):
    mine = judged_by_all[0]
    client = client_for(cast.experts[0])
    client.get(reverse("api-ws-discussion", args=[mine.public_id]))
    body = {
        "reason": "Changed my mind after the discussion",
        "judgments": [{"criterion": e.criterion_id, "rationale": e.rationale, "hit": e.hit} for e in _flip_all(mine)],
    }
    response = client.post(reverse("api-ws-corrections", args=[mine.public_id]), body, content_type="application/json")
    assert response.status_code == 201
    assert response.json()["after_discussion"] is True and response.json()["accept_effect"] == "records_revision"
    decided = client_for(cast.admin).post(
        reverse("api-ws-decide-correction", args=[response.json()["id"]]), {"accept": True}, content_type="application/json"
    )
    assert decided.status_code == 200 and decided.json()["status"] == "accepted"
    assert set(_hits(mine).values()) == {True}


def test_the_expert_is_told_before_and_after_asking_that_it_will_be_a_revision(judged_by_all, cast, client_for):
    mine = judged_by_all[0]
    client = client_for(cast.experts[0])
    url = reverse("annotation:judge_correction", args=[mine.public_id])
    assert "post-discussion revision" not in client.get(url).content.decode()
    client.get(reverse("annotation:discussion", args=[mine.public_id]))
    assert "post-discussion revision" in client.get(url).content.decode()
    form = {"reason": "Convinced by the thread"}
    for entry in _flip_all(mine):
        form[f"rationale-{entry.criterion_id}"] = entry.rationale
        form[f"hit-{entry.criterion_id}"] = "miss"
    page = client.post(url, form, follow=True).content.decode()
    assert "post-discussion revision" in page and "blind verdict stays" in page
    assert CorrectionRequest.objects.get().after_discussion is True


def test_the_admin_corrections_page_and_api_flag_a_post_discussion_request(judged_by_all, cast, client_for):
    before, after, _ = judged_by_all
    request_correction(assignment=before, expert=cast.experts[0], reason="Blind second thoughts", entries=_flip_all(before))
    client_for(cast.experts[1]).get(reverse("annotation:discussion", args=[after.public_id]))
    after.refresh_from_db()
    request_correction(assignment=after, expert=cast.experts[1], reason="Swayed by the thread", entries=_flip_all(after))

    client = client_for(cast.admin)
    page = client.get(reverse("annotation:corrections")).content.decode()
    assert page.count("data-post-discussion") == 1
    assert "does not change the blind verdict" in page and "Accept as a revision" in page
    flagged = page.split("Swayed by the thread")[0].rsplit("<section", 1)[1]
    assert "post-discussion" in flagged
    rows = {r["reason"]: r for r in client.get(reverse("api-ws-admin-corrections")).json()["results"]}
    assert rows["Swayed by the thread"]["after_discussion"] is True
    assert rows["Swayed by the thread"]["accept_effect"] == "records_revision"
    assert rows["Blind second thoughts"]["after_discussion"] is False
    assert rows["Blind second thoughts"]["accept_effect"] == "replaces_judgments"

    correction = CorrectionRequest.objects.get(reason="Swayed by the thread")
    done = client.post(reverse("annotation:decide_correction", args=[correction.pk]), {"decision": "accept"}, follow=True)
    assert "accepted as a post-discussion revision; the blind verdict is unchanged" in done.content.decode()
    assert set(_hits(after).values()) == {True}


def test_a_second_revision_starts_from_the_first_so_the_newest_holds_every_change(judged_by_all, cast, client_for):
    mine = judged_by_all[0]
    client = client_for(cast.experts[0])
    client.get(reverse("annotation:discussion", args=[mine.public_id]))
    mine.refresh_from_db()
    first, second = mine.campaign_response.item.criteria.order_by("position")[:2]
    one = request_correction(
        assignment=mine, expert=cast.experts[0], reason="First thought", entries=[DraftEntry(first.pk, "A miss after all, really", False)]
    )
    decide_correction(correction=one, admin=cast.admin, accept=True)
    assert (
        "The form starts from your last accepted revision"
        in client.get(reverse("annotation:judge_correction", args=[mine.public_id])).content.decode()
    )
    two = request_correction(
        assignment=mine, expert=cast.experts[0], reason="Second thought", entries=[DraftEntry(second.pk, "A miss as well, really", False)]
    )
    assert {r["criterion"]: r["hit"] for r in two.original}[first.pk] is False  # it starts from the standing revision
    assert {r["criterion"]: r["hit"] for r in two.proposed} == {**dict.fromkeys(_hits(mine), True), first.pk: False, second.pk: False}
    assert set(_hits(mine).values()) == {True}  # and the blind verdict never moved


def test_a_correction_after_a_staff_view_showed_the_response_is_a_revision_too(judged_by_all, cast):
    """A user who is also staff may see other raters' verdicts on staff pages once the campaign closed: no longer blind."""
    from heartbench_core.blindness import record_exposures

    mine = judged_by_all[0]
    record_exposures(user=cast.experts[0], response_ids=[mine.campaign_response.response_id], via="adjudication")
    correction = request_correction(assignment=mine, expert=cast.experts[0], reason="Saw the others", entries=_flip_all(mine))
    assert correction.after_discussion is True
    decide_correction(correction=correction, admin=cast.admin, accept=True)
    assert set(_hits(mine).values()) == {True}
