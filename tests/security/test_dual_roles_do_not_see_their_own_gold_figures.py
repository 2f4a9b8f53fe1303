"""An admin who is an expert of an open campaign does not see their own gold figures, nor which assignments are gold.

Their gold-check count and accuracy move when they submit a hidden gold check: watching them
would tell which of their responses were gold. The campaign's assignment overview names each
assignment's model and gold flag: it is closed to them while the campaign is open.
"""

import pytest
from django.test import Client
from django.utils import timezone

from annotation.models import Assignment, Campaign, ExpertProfile, ExpertQuality, Judgment
from annotation.services.campaigns import set_campaign_status
from tests.security.dual_role_world import build_dual_role_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(cast):
    world = build_dual_role_world(cast)
    me = world.users["expert+admin"]
    gold = world.c_entries[-1]  # the hidden gold check of C
    mine = Assignment.objects.create(campaign_response=gold, expert=me, expires_at=None)
    Judgment.objects.bulk_create(
        [Judgment(assignment=mine, criterion=c, rationale="mine, on the gold check", hit=True) for c in gold.item.criteria.all()]
    )
    Assignment.objects.filter(pk=mine.pk).update(status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())
    profile, _ = ExpertProfile.objects.get_or_create(user=me)
    ExpertQuality.objects.update_or_create(profile=profile, defaults={"gold_accuracy": 0.731, "gold_checks": 7, "gold_criteria": 19})
    world.gold_assignment = mine
    return world


def _client(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_campaign_page_and_progress_leave_out_their_own_gold_accuracy(world, cast):
    me, c = world.users["expert+admin"], world.open_campaign
    page = _client(me).get(f"/work/manage/campaigns/{c.pk}/").content.decode()
    table = page[page.index('id="gold-accuracy"') :]
    assert me.username not in table[: table.index("</table>")]
    progress = _client(me).get(f"/api/v1/annotation/manage/campaigns/{c.pk}/progress/").json()
    assert me.username not in {g["username"] for g in progress["gold_accuracy"]}
    # A plain admin sees it.
    progress = _client(cast.admin).get(f"/api/v1/annotation/manage/campaigns/{c.pk}/progress/").json()
    assert me.username in {g["username"] for g in progress["gold_accuracy"]}


def test_the_campaign_progress_is_withheld_from_its_own_experts(world, cast):
    """The totals leave gold checks out: a submission of theirs that did not move them would be a gold check."""
    me, c = world.users["expert+admin"], world.open_campaign
    mine = _client(me).get(f"/api/v1/annotation/manage/campaigns/{c.pk}/progress/").json()
    assert "expert in this campaign" in mine["withheld"]
    assert mine["responses"] is mine["submitted"] is mine["complete"] is mine["by_submitted_judgments"] is None
    assert mine["experts"] == mine["gold_accuracy"] == []
    theirs = _client(cast.admin).get(f"/api/v1/annotation/manage/campaigns/{c.pk}/progress/").json()
    assert theirs["withheld"] is None and theirs["submitted"] >= 1 and theirs["experts"]
    detail = _client(me).get(f"/work/manage/campaigns/{c.pk}/").content.decode()
    assert "withheld from you" in detail and 'class="progress big"' not in detail
    listing = _client(me).get("/work/manage/campaigns/").content.decode()
    row = listing[listing.index(f'href="/work/manage/campaigns/{c.pk}/"') :]
    assert "Withheld" in row[: row.index("</tr>")] and 'class="progress"' not in row[: row.index("</tr>")]
    page = _client(me).get(f"/work/manage/campaigns/{c.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert "withheld" in page and "hx-trigger" not in page
    assert 'class="progress big"' in _client(cast.admin).get(f"/work/manage/campaigns/{c.pk}/").content.decode()


def test_their_own_profile_hides_their_gold_figures(world, cast):
    me = world.users["expert+admin"]
    assert _client(me).get(f"/api/v1/annotation/profiles/{me.username}/").json()["quality"] is None
    assert _client(cast.admin).get(f"/api/v1/annotation/profiles/{me.username}/").json()["quality"]["gold_checks"] == 7
    for path in ("/work/manage/experts/", f"/work/manage/experts/{me.username}/"):
        assert "73.1" not in _client(me).get(path).content.decode(), path
        assert "73.1" in _client(cast.admin).get(path).content.decode(), path


def test_the_assignment_overview_of_their_campaign_is_closed_to_them(world, cast):
    me, c = world.users["expert+admin"], world.open_campaign
    client = _client(me)
    refused = client.get(f"/work/manage/campaigns/{c.pk}/assignments/")
    assert refused.status_code == 403 and "you are an expert in" in refused.content.decode().lower()
    listed = client.get(f"/api/v1/annotation/manage/assignments/?campaign={c.pk}").json()
    assert listed["count"] == 0
    detail = client.get(f"/api/v1/annotation/manage/assignments/{world.gold_assignment.public_id}/")
    assert detail.status_code == 403
    assert _client(cast.admin).get(f"/api/v1/annotation/manage/assignments/{world.gold_assignment.public_id}/").json()["is_gold"]


def test_everything_opens_once_the_campaign_closes(world):
    me, c = world.users["expert+admin"], world.open_campaign
    set_campaign_status(campaign=c, status=Campaign.Status.CLOSED)
    client = _client(me)
    assert client.get(f"/work/manage/campaigns/{c.pk}/assignments/").status_code == 200
    assert client.get(f"/api/v1/annotation/profiles/{me.username}/").json()["quality"]["gold_checks"] == 7
