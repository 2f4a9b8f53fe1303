from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, ExpertProfile
from annotation.services.assignment import assign_next_response, expire_reservations, release_assignment

from .helpers import demo_campaign, more_experts, qualify

pytestmark = pytest.mark.django_db


def submit(a):
    a.status = Assignment.Status.SUBMITTED
    a.submitted_at = timezone.now()
    a.save()


def test_it_reserves_a_response_with_an_expiry_from_the_campaign_timeout(cast):
    campaign = demo_campaign(cast)
    a = assign_next_response(expert=cast.expert, campaign=campaign)
    assert a.status == Assignment.Status.RESERVED
    assert a.expires_at - a.reserved_at == pytest.approx(campaign.reservation_timeout, abs=timedelta(seconds=5))


def test_asking_again_returns_the_experts_open_reservation(cast):
    campaign = demo_campaign(cast)
    first = assign_next_response(expert=cast.expert, campaign=campaign)
    assert assign_next_response(expert=cast.expert, campaign=campaign) == first
    assert Assignment.objects.count() == 1


def test_each_response_gets_exactly_k_distinct_experts_and_no_expert_twice(cast):
    campaign = demo_campaign(cast, overlap=2)
    for _ in range(30):
        for expert in cast.experts:
            a = assign_next_response(expert=expert, campaign=campaign)
            if a:
                submit(a)
    per_response = {}
    for cr_id, expert_id in Assignment.objects.values_list("campaign_response_id", "expert_id"):
        per_response.setdefault(cr_id, []).append(expert_id)
    assert len(per_response) == 18
    assert all(len(v) == 2 and len(set(v)) == 2 for v in per_response.values())
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None


def test_nearer_complete_responses_are_served_first(cast):
    campaign = demo_campaign(cast)
    a1 = assign_next_response(expert=cast.experts[0], campaign=campaign)
    submit(a1)
    a2 = assign_next_response(expert=cast.experts[1], campaign=campaign)
    assert a2.campaign_response_id == a1.campaign_response_id


def test_a_response_past_k_live_reservations_is_not_given_out(cast):
    others = more_experts(2)
    qualify(*others)
    campaign = demo_campaign(cast, overlap=2, experts=[*cast.experts, *others])
    taken = set()
    for expert in [*cast.experts, *others]:
        a = assign_next_response(expert=expert, campaign=campaign)
        taken.add(a.campaign_response_id)
    counts = [Assignment.objects.filter(campaign_response_id=c).count() for c in taken]
    assert max(counts) == 2


def test_an_expert_at_capacity_gets_nothing(cast):
    campaign = demo_campaign(cast)
    other = demo_campaign(cast, name="Blind test 2")
    ExpertProfile.objects.filter(user=cast.expert).update(capacity=1)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is not None
    assert assign_next_response(expert=cast.expert, campaign=other) is None


@pytest.mark.parametrize("availability", ["paused", "away"])
def test_a_paused_or_away_expert_gets_nothing(cast, availability):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.filter(user=cast.expert).update(availability=availability)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None


def test_an_unqualified_expert_gets_nothing(cast):
    campaign = demo_campaign(cast, overlap=2)
    newcomer = more_experts(1)[0]
    campaign.experts.add(newcomer)
    assert assign_next_response(expert=newcomer, campaign=campaign) is None
    qualify(newcomer)
    assert assign_next_response(expert=newcomer, campaign=campaign) is not None


def test_an_expert_outside_the_campaign_or_without_the_role_gets_nothing(cast):
    campaign = demo_campaign(cast)
    outsider_expert = more_experts(1)[0]
    qualify(outsider_expert)
    assert assign_next_response(expert=outsider_expert, campaign=campaign) is None
    assert assign_next_response(expert=cast.outsider, campaign=campaign) is None


def test_per_dimension_qualification_limits_work_to_rubrics_inside_the_qualified_dimensions(cast):
    campaign = demo_campaign(cast, qualified=False, overlap=1, qualification_per_dimension=True, requires_qualification=False)
    campaign.settings.requires_qualification = True
    campaign.settings.save()
    qualify(cast.expert, dimension="Emotion")
    # Every demo rubric has abilities outside Emotion, so nothing is eligible yet.
    assert assign_next_response(expert=cast.expert, campaign=campaign) is None
    for dim in ("Personality", "Social", "Motivation", "Morality"):
        qualify(cast.expert, dimension=dim)
    assert assign_next_response(expert=cast.expert, campaign=campaign) is not None


def test_hard_items_go_only_to_experts_at_the_campaigns_tier(cast):
    campaign = demo_campaign(cast, overlap=1, min_tier_for_hard=2)
    seen = []
    for _ in range(18):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        if a is None:
            break
        seen.append(a.campaign_response.item.difficulty)
        submit(a)
    assert seen and "hard" not in seen
    assert campaign.responses.filter(item__difficulty="hard").exists()
    ExpertProfile.objects.filter(user=cast.expert).update(tier_override=2, tier_override_reason="senior clinician")
    a = assign_next_response(expert=cast.expert, campaign=campaign)
    assert a is not None and a.campaign_response.item.difficulty == "hard"


def test_responses_of_one_item_are_spread_across_experts(cast):
    campaign = demo_campaign(cast, overlap=1)
    items = []
    for _ in range(6):
        a = assign_next_response(expert=cast.expert, campaign=campaign)
        items.append(a.campaign_response.item_id)
        submit(a)
    assert len(set(items)) == 6


def test_specialty_coverage_is_preferred(cast):
    campaign = demo_campaign(cast, overlap=1)
    ExpertProfile.objects.filter(user=cast.expert).update(specialties=["道德"])
    a = assign_next_response(expert=cast.expert, campaign=campaign)
    assert a.campaign_response.item.criteria.filter(ability="道德").exists()


def pull_all(expert, campaign):
    """Take and submit work until none is left for this expert; return the responses taken."""
    taken = []
    while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
        submit(a)
        taken.append(a.campaign_response_id)
    return taken


def test_expired_reservations_go_back_to_the_pool(cast):
    campaign = demo_campaign(cast, overlap=1)
    a = assign_next_response(expert=cast.experts[0], campaign=campaign)
    Assignment.objects.filter(pk=a.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    taken = pull_all(cast.experts[1], campaign)
    a.refresh_from_db()
    assert a.status == Assignment.Status.EXPIRED
    assert a.campaign_response_id in taken and len(taken) == 18
    assert expire_reservations() == 0


def test_release_gives_the_response_back_and_refuses_submitted_work(cast):
    from django.core.exceptions import PermissionDenied, ValidationError

    campaign = demo_campaign(cast, overlap=1)
    a = assign_next_response(expert=cast.experts[0], campaign=campaign)
    with pytest.raises(PermissionDenied):
        release_assignment(assignment=a, by=cast.experts[1])
    release_assignment(assignment=a, by=cast.admin)
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.RELEASED
    b = assign_next_response(expert=cast.experts[2], campaign=campaign)
    submit(b)
    assert a.campaign_response_id in [*pull_all(cast.experts[1], campaign), b.campaign_response_id]
    with pytest.raises(ValidationError):
        release_assignment(assignment=b, by=cast.admin)


def test_asking_for_work_takes_the_same_bounded_number_of_queries_whatever_the_campaign_size(cast, django_assert_max_num_queries):
    small = demo_campaign(cast, sample=0.5, name="small")
    big = demo_campaign(cast, sample=1.0, name="big")
    assert small.responses.count() < big.responses.count()
    for campaign in (small, big):
        for expert in cast.experts:
            campaign = type(campaign).objects.get(pk=campaign.pk)
            with django_assert_max_num_queries(16):
                assert assign_next_response(expert=expert, campaign=campaign) is not None


def test_an_expert_sees_the_active_campaigns_they_take_part_in_with_their_own_counts(cast):
    from annotation.manage.selectors import expert_campaigns

    campaign = demo_campaign(cast, overlap=2, experts=cast.experts[:2])
    closed = demo_campaign(cast, name="closed", overlap=2, experts=cast.experts[:2])
    closed.status = "closed"
    closed.save()
    submit(assign_next_response(expert=cast.experts[0], campaign=campaign))
    assign_next_response(expert=cast.experts[0], campaign=campaign)
    mine = list(expert_campaigns(cast.experts[0]))
    assert [(c.name, c.my_open, c.my_submitted) for c in mine] == [(campaign.name, 1, 1)]
    assert list(expert_campaigns(cast.experts[2])) == []


@pytest.mark.parametrize("sample", [0.34, 1.0])
def test_the_api_pull_runs_the_same_number_of_queries_whatever_the_campaign_size(cast, client_for, django_assert_num_queries, sample):
    from django.urls import reverse

    campaign = demo_campaign(cast, sample=sample)
    client = client_for(cast.expert)
    url = reverse("api-ws-next")
    # The expert's first pull also creates their profile; measured is a pull after a submission.
    first = client.post(url, {"campaign": campaign.pk}, content_type="application/json").json()
    submit(Assignment.objects.get(public_id=first["id"]))
    # 26: the answer carries the campaign's current guidelines (one query; it was 25).
    with django_assert_num_queries(26):
        response = client.post(url, {"campaign": campaign.pk}, content_type="application/json")
    assert response.status_code == 200 and response.json()["id"] != first["id"]
