"""The rule deciding whose staff views of a campaign are closed: an expert of it, while it is open.

An expert of campaign C is a user holding the expert role whom C lists, or who holds work in C,
or any expert when C lists nobody (an unrestricted campaign admits every expert). A superuser is
one only when C lists them or they hold work in it. Closed campaigns and gold sets close nothing.
"""

import pytest

from annotation.blindness import open_campaign_ids_as_expert
from annotation.models import Assignment, Campaign, CampaignResponse
from annotation.services.campaigns import create_campaign, set_campaign_status
from heartbench_core.blindness import blind_scope
from heartbench_core.models import LanguageModel, ModelResponse
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaigns(cast):
    demo_version()
    demo_responses()

    def make(name, experts=None):
        return create_campaign(
            name=name,
            dataset_name="demo",
            model_names=["demo-model-aurora"],
            sample_fraction=1.0,
            overlap=1,
            expert_usernames=experts,
            requires_qualification=False,
        ).campaign

    return make


def test_a_listed_expert_with_a_staff_role_is_an_expert_of_the_campaign(campaigns):
    user = make_user("dual", Role.EXPERT, Role.SENIOR_REVIEWER)
    listed = campaigns("listed", [user.username])
    assert open_campaign_ids_as_expert(user) == {listed.pk}


def test_an_unrestricted_campaign_admits_every_expert_so_they_are_in_it(campaigns):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    unrestricted = campaigns("everyone")
    assert open_campaign_ids_as_expert(user) == {unrestricted.pk}


def test_an_expert_a_restricted_campaign_does_not_list_is_not_in_it(campaigns, cast):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    campaigns("others", [cast.expert.username])
    assert open_campaign_ids_as_expert(user) == frozenset()


def test_holding_work_in_a_campaign_makes_an_expert_of_it_even_when_no_longer_listed(campaigns, cast):
    user = make_user("dual", Role.EXPERT, Role.RUBRIC_AUTHOR)
    restricted = campaigns("others", [cast.expert.username])
    Assignment.objects.create(campaign_response=CampaignResponse.objects.filter(campaign=restricted).first(), expert=user)
    assert open_campaign_ids_as_expert(user) == {restricted.pk}


def test_staff_without_the_expert_role_are_experts_of_nothing(campaigns, cast):
    campaigns("everyone")
    for user in (cast.admin, cast.author, cast.reviewer):
        assert not blind_scope(user)


def test_a_superuser_is_an_expert_only_where_listed_or_holding_work(campaigns, cast):
    root = make_user("root", is_superuser=True)
    campaigns("everyone")
    listed = campaigns("listed", [root.username])
    worked = campaigns("worked", [cast.expert.username])
    Assignment.objects.create(campaign_response=CampaignResponse.objects.filter(campaign=worked).first(), expert=root)
    assert open_campaign_ids_as_expert(root) == {listed.pk, worked.pk}


@pytest.mark.parametrize("status", [Campaign.Status.DRAFT, Campaign.Status.ACTIVE, Campaign.Status.PAUSED])
def test_draft_active_and_paused_campaigns_are_open(campaigns, status):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    c = campaigns("c", [user.username])
    Campaign.objects.filter(pk=c.pk).update(status=status)
    assert open_campaign_ids_as_expert(user) == {c.pk}


def test_a_closed_campaign_closes_nothing(campaigns):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    c = campaigns("c", [user.username])
    set_campaign_status(campaign=c, status=Campaign.Status.CLOSED)
    assert open_campaign_ids_as_expert(user) == frozenset()


def test_a_gold_set_is_a_pool_nobody_judges_so_it_closes_nothing(campaigns):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    c = campaigns("c", [user.username])
    Campaign.objects.filter(pk=c.pk).update(kind=Campaign.Kind.GOLD_SET)
    assert open_campaign_ids_as_expert(user) == frozenset()


def test_the_scope_hides_the_whole_dataset_of_the_campaign_every_model_and_every_campaign_on_it(campaigns):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    c = campaigns("c", [user.username])
    other = campaigns("other on the same dataset", [])
    set_campaign_status(campaign=other, status=Campaign.Status.CLOSED)
    scope = blind_scope(user)
    sampled = set(CampaignResponse.objects.filter(campaign=c).values_list("response_id", flat=True))
    everything = set(ModelResponse.objects.filter(dataset=c.version.dataset).values_list("pk", flat=True))
    assert sampled < everything  # C holds aurora's answers; borealis' and cirrus' are hidden alike
    assert set(scope.response_ids) == everything and scope.hidden_among(everything) == everything
    assert set(scope.sampled_response_ids) == sampled
    for model in LanguageModel.objects.all():
        assert scope.hides_model_on(c.version.dataset_id, model.pk)
    assert scope.hides_campaign(c.pk) and scope.hides_campaign(other.pk)


def test_the_scope_costs_one_query_per_request_for_staff_and_none_for_plain_staff(campaigns, cast, django_assert_num_queries):
    user = make_user("dual", Role.EXPERT, Role.ADMIN)
    campaigns("c", [user.username])
    from heartbench_core.roles import roles_of

    roles_of(user), roles_of(cast.admin)  # as role_required has already done in a request
    with django_assert_num_queries(1):
        blind_scope(user)
        blind_scope(user)
    with django_assert_num_queries(2):  # its datasets, and the campaigns on them, once
        blind_scope(user).hides_campaign(1)
        blind_scope(user).hides_campaign(2)
    with django_assert_num_queries(0):
        blind_scope(cast.admin)
