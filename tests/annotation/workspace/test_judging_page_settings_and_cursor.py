"""The judging page returns to the criterion the expert was on, and shows the campaign's guidelines, deadline and settings."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.services.guidelines import publish_guidelines

pytestmark = pytest.mark.django_db


def test_the_autosave_keeps_the_cursor_and_the_page_returns_there(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0006")
    client = client_for(cast.expert)
    response = client.post(
        reverse("annotation:judge_draft", args=[assignment.public_id]), {"cursor": "7", "version": "0"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assignment.refresh_from_db()
    assert assignment.cursor == 7
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert 'data-cursor="7"' in page and 'name="cursor" value="7"' in page


def test_a_malformed_cursor_from_the_page_is_ignored_and_a_stale_one_is_clamped(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    client = client_for(cast.expert)
    client.post(reverse("annotation:judge_draft", args=[assignment.public_id]), {"cursor": "x", "version": "0"}, HTTP_HX_REQUEST="true")
    assignment.refresh_from_db()
    assert assignment.cursor is None
    Assignment.objects.filter(pk=assignment.pk).update(cursor=40)  # the item has 6 criteria
    assert 'data-cursor="6"' in client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()


def test_the_api_saves_the_cursor_and_names_the_field_when_it_is_wrong(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    client = client_for(cast.expert)
    url = reverse("api-ws-draft", args=[assignment.public_id])
    ok = client.post(url, {"cursor": 3, "version": 0}, content_type="application/json")
    assert ok.status_code == 200 and ok.json()["cursor"] == 3
    bad = client.post(url, {"cursor": 0, "version": 1}, content_type="application/json")
    assert bad.status_code == 400 and "cursor" in bad.content.decode()
    assert client.get(reverse("api-ws-assignment", args=[assignment.public_id])).json()["cursor"] == 3


def test_the_guidelines_show_rendered_with_their_revision_and_a_change_is_flagged(workspace, cast, client_for):
    publish_guidelines(campaign=workspace.campaign, body="## Hits\n\nA **hit** needs evidence.<script>x()</script>", author=cast.admin)
    assignment = workspace.reserve(cast.expert, "dm0001")
    client = client_for(cast.expert)
    url = reverse("annotation:judge", args=[assignment.public_id])
    # A prefetch of the page (the home page prefetches the next draft) does not count as a look.
    client.get(url, HTTP_SEC_PURPOSE="prefetch")
    first = client.get(url).content.decode()
    assert "<h2>Hits</h2>" in first and "<strong>hit</strong>" in first
    assert "x()" not in first.split('id="guidelines"')[1].split("</details>")[0]
    assert "revision 1" in first
    # Open the first time, without the "updated" mark; closed afterwards until the next revision.
    assert 'id="guidelines" open' in first and "updated since you last looked" not in first
    again = client.get(url).content.decode()
    assert 'id="guidelines" open' not in again and "updated since you last looked" not in again
    publish_guidelines(
        campaign=workspace.campaign, body="## Hits\n\nA hit needs evidence in the response.", change_note="Clearer", author=cast.admin
    )
    later = client.get(url).content.decode()
    assert "revision 2" in later and "updated since you last looked" in later and "Clearer" in later
    assert 'id="guidelines" open' in later
    assert "updated since you last looked" not in client.get(url).content.decode()
    api = client.get(reverse("api-ws-assignment", args=[assignment.public_id])).json()
    assert api["guidelines"]["revision"] == 2 and "<h2>Hits</h2>" in api["guidelines"]["html"]


def test_the_deadline_and_settings_drive_the_page(workspace, cast, client_for):
    due = timezone.now() + timedelta(days=3)
    Campaign.objects.filter(pk=workspace.campaign.pk).update(deadline=due, rationale_min_chars=25, show_weights=True)
    assignment = workspace.reserve(cast.expert, "dm0001")
    client = client_for(cast.expert)
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "Due " in page and 'data-min-chars="25"' in page and 'class="weight"' in page
    Campaign.objects.filter(pk=workspace.campaign.pk).update(deadline=timezone.now() - timedelta(hours=1))
    assert "Deadline passed" in client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert client.get(reverse("api-ws-assignment", args=[assignment.public_id])).json()["deadline"] is not None
