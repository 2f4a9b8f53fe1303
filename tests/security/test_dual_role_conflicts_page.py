"""Admins see who is expert and staff, the open campaigns they are experts of, and how much of those they were shown."""

import pytest
from django.test import Client

from heartbench_core.blindness import record_exposures
from tests.security.dual_role_world import build_dual_role_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(cast):
    world = build_dual_role_world(cast)
    # Before the rule existed, the reviewer-expert looked at two responses of C and one of D's own.
    c_ids = sorted(world.c_response_ids())
    record_exposures(user=world.users["expert+reviewer"], response_ids=[*c_ids[:2], world.d_queued_open.response_id], via="adjudication")
    return world


def _client(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_page_lists_each_dual_role_user_with_their_open_campaigns_and_exposures(world, cast):
    html = _client(cast.admin).get("/work/manage/dual-roles/").content.decode()
    table = html[html.index("<table") :]
    for user in world.users.values():
        assert user.username in table
    assert "C open" in table and "D closed" not in table
    for plain in (cast.admin, cast.author, cast.reviewer, cast.expert):
        assert plain.username not in table


def test_the_api_counts_the_responses_of_each_open_campaign_a_user_was_shown(world, cast):
    body = _client(cast.admin).get("/api/v1/annotation/manage/dual-roles/").json()
    rows = {r["username"]: r for r in body["results"]}
    assert set(rows) == {u.username for u in world.users.values()}
    reviewer = rows[world.users["expert+reviewer"].username]
    assert reviewer["staff_roles"] == ["senior_reviewer"] and not reviewer["superuser"]
    assert [(c["name"], c["exposed"]) for c in reviewer["campaigns"]] == [("C open", 2)]
    assert reviewer["exposures"] == 3
    assert rows["dual_superuser"]["superuser"] and rows["dual_superuser"]["staff_roles"] == ["admin", "rubric_author", "senior_reviewer"]


def test_the_api_filters_by_campaign(world, cast):
    client = _client(cast.admin)
    assert client.get(f"/api/v1/annotation/manage/dual-roles/?campaign={world.closed_campaign.pk}").json()["count"] == 0
    assert client.get(f"/api/v1/annotation/manage/dual-roles/?campaign={world.open_campaign.pk}").json()["count"] == len(world.users)
    assert client.get("/api/v1/annotation/manage/dual-roles/?campaign=x").status_code == 400


def test_the_campaigns_page_links_to_the_conflicts(world, cast):
    assert "/work/manage/dual-roles/" in _client(cast.admin).get("/work/manage/campaigns/").content.decode()


def test_only_admins_see_the_conflicts(world, cast):
    for user in (cast.author, cast.reviewer, cast.expert, world.users["expert+reviewer"]):
        assert _client(user).get("/work/manage/dual-roles/").status_code == 403
        assert _client(user).get("/api/v1/annotation/manage/dual-roles/").status_code == 403


def test_an_expert_who_imported_the_campaigns_gold_source_is_marked_as_knowing_its_gold_checks(world, cast):
    from annotation.models import Campaign, CampaignSettings

    importer = world.users["expert+admin"]
    gold_set = Campaign.objects.create(name="gold pool", kind=Campaign.Kind.GOLD_SET, version=world.version, created_by=importer)
    CampaignSettings.objects.update_or_create(campaign=world.open_campaign, defaults={"gold_source": gold_set})
    rows = {r["username"]: r for r in _client(cast.admin).get("/api/v1/annotation/manage/dual-roles/").json()["results"]}
    assert [c["created_gold_source"] for c in rows[importer.username]["campaigns"]] == [True]
    assert [c["created_gold_source"] for c in rows[world.users["expert+reviewer"].username]["campaigns"]] == [False]
    assert "knows its gold checks" in _client(cast.admin).get("/work/manage/dual-roles/").content.decode()
