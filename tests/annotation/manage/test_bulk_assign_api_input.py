"""The bulk-assignment endpoint's `experts` is a list of usernames; anything else is a 400 naming it, never a 500."""

import pytest

from annotation.models import Assignment

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "experts",
    [["erin_expert1\x00"], "erin_expert1", [["nested"]], 7],
    ids=["nul", "a bare string", "nested list", "a number"],
)
def test_a_bad_experts_value_is_a_400_naming_it_and_assigns_nothing(cast, client_for, experts):
    campaign = demo_campaign(cast)
    response = client_for(cast.admin).post(
        f"/api/v1/annotation/manage/campaigns/{campaign.pk}/bulk-assign/", {"experts": experts}, content_type="application/json"
    )
    assert response.status_code == 400 and "experts" in str(response.json())
    assert not Assignment.objects.exists()


def test_a_list_of_usernames_limits_the_assignment_to_them(cast, client_for):
    campaign = demo_campaign(cast, overlap=1)
    response = client_for(cast.admin).post(
        f"/api/v1/annotation/manage/campaigns/{campaign.pk}/bulk-assign/",
        {"experts": [cast.experts[1].username]},
        content_type="application/json",
    )
    assert response.status_code == 200 and response.json()["assigned"] > 0
    assert set(Assignment.objects.values_list("expert_id", flat=True)) == {cast.experts[1].pk}
