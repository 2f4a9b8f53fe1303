# ruff: noqa: F811  (the workspace fixture is imported, then named by the tests)
"""Admins see a campaign's skips, per reason and per expert, on its page and in the API, and the skipped responses that
can no longer reach k; experts never learn of others' skips."""

import pytest
from django.urls import reverse

from annotation.models import CampaignResponse
from annotation.services.assignment import stuck_responses
from annotation.services.workspace import skip_assignment
from heartbench_core.roles import Role
from tests.annotation.workspace.conftest import MODELS, workspace  # noqa: F401  (the fixture)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def skipped(workspace, cast):
    """Three skips among four experts (k=3): two on one response (two experts left: it cannot finish), one on another (three left)."""
    workspace.campaign.experts.add(make_user("fay_expert4", Role.EXPERT))
    first = workspace.reserve(cast.experts[0], "dm0001", model=MODELS[0])
    skip_assignment(assignment=first, expert=cast.experts[0], reason="distressing")
    second = workspace.reserve(cast.experts[1], "dm0001", model=MODELS[0])
    skip_assignment(assignment=second, expert=cast.experts[1], reason="other", note="I know this patient")
    third = workspace.reserve(cast.experts[0], "dm0002", model=MODELS[1])
    skip_assignment(assignment=third, expert=cast.experts[0], reason="distressing")
    return first.campaign_response, third.campaign_response


def test_the_campaign_page_counts_skips_per_reason_and_per_expert(workspace, cast, client_for, skipped):
    page = client_for(cast.admin).get(reverse("annotation:campaign", args=[workspace.campaign.pk])).content.decode()
    by_reason = page.split('id="skips-by-reason"')[1].split("</table>")[0]
    assert 'Distressing content</td><td class="num">2' in by_reason and 'Other (say why)</td><td class="num">1' in by_reason
    by_expert = page.split('id="skips-by-expert"')[1].split("</table>")[0]
    assert '>erin_expert1</a></td><td class="num">2' in by_expert and '>erin_expert2</a></td><td class="num">1' in by_expert
    assert "I know this patient" in page.split('id="skips-latest"')[1]


def test_a_response_too_few_experts_are_left_for_is_surfaced(workspace, cast, client_for, skipped):
    stuck_one, fine_one = skipped
    stuck = stuck_responses(campaign=workspace.campaign, campaign_response_ids=[stuck_one.pk, fine_one.pk])
    assert [(s.campaign_response_id, s.need, s.left) for s in stuck] == [(stuck_one.pk, 3, 2)]
    page = client_for(cast.admin).get(reverse("annotation:campaign", args=[workspace.campaign.pk])).content.decode()
    warning = page.split('id="skips-stuck"')[1].split("</div>")[0]
    assert "1 skipped response cannot reach k" in warning and f"#{stuck_one.pk}" in warning and f"#{fine_one.pk}" not in warning


def test_the_api_gives_the_same_skips(workspace, cast, client_for, skipped):
    stuck_one, _fine = skipped
    body = client_for(cast.admin).get(f"/api/v1/annotation/manage/campaigns/{workspace.campaign.pk}/skips/").json()
    assert body["withheld"] is None and body["total"] == 3
    assert [(c["key"], c["count"]) for c in body["by_reason"]] == [("distressing", 2), ("other", 1)]
    assert [(c["key"], c["count"]) for c in body["by_expert"]] == [("erin_expert1", 2), ("erin_expert2", 1)]
    assert {r["note"] for r in body["latest"]} == {"", "I know this patient"}
    assert [(s["campaign_response"], s["need"], s["left"]) for s in body["stuck"]] == [(stuck_one.pk, 3, 2)]


def test_a_campaign_without_skips_says_so(workspace, cast, client_for):
    page = client_for(cast.admin).get(reverse("annotation:campaign", args=[workspace.campaign.pk])).content.decode()
    assert "No response was skipped." in page
    body = client_for(cast.admin).get(f"/api/v1/annotation/manage/campaigns/{workspace.campaign.pk}/skips/").json()
    assert body["total"] == 0 and body["stuck"] == []


def test_experts_never_see_others_skips(workspace, cast, client_for, skipped):
    expert = client_for(cast.experts[2])
    assert expert.get(f"/api/v1/annotation/manage/campaigns/{workspace.campaign.pk}/skips/").status_code == 403
    assert "skip" not in str(expert.get("/api/v1/annotation/assignments/").json()).lower()
    # An admin who is also an expert of the open campaign is told the skips are withheld.
    both = make_user("dana_both", Role.ADMIN, Role.EXPERT)
    workspace.campaign.experts.add(both)
    client = client_for(both)
    body = client.get(f"/api/v1/annotation/manage/campaigns/{workspace.campaign.pk}/skips/").json()
    assert body["withheld"] and body["total"] is None and body["latest"] == []
    page = client.get(reverse("annotation:campaign", args=[workspace.campaign.pk])).content.decode()
    assert "I know this patient" not in page and "skips-by-reason" not in page


def test_a_gold_checks_skip_is_listed_as_gold_for_admins_only(workspace, cast, client_for, skipped):
    stuck_one, _fine = skipped
    CampaignResponse.objects.filter(pk=stuck_one.pk).update(is_gold=True)
    body = client_for(cast.admin).get(f"/api/v1/annotation/manage/campaigns/{workspace.campaign.pk}/skips/").json()
    assert sorted(r["is_gold"] for r in body["latest"]) == [False, True, True]


def test_the_assignment_overview_marks_skipped_work_with_its_reason(workspace, cast, client_for, skipped):
    page = client_for(cast.admin).get(reverse("annotation:campaign_assignments", args=[workspace.campaign.pk])).content.decode()
    assert page.count("skipped: Distressing content") == 2 and page.count("skipped: Other (say why)") == 1
