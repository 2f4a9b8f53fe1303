"""Who takes part in a campaign (`Campaign.objects.taking_part`) and who may be given new work in it (`admitting`).

Taking part: the campaign lists the expert, or they hold work in it, or it lists nobody. New work
goes only to those it lists, or to anyone when it lists nobody: work held once does not admit an
expert an admin has since taken off the list. (The superuser's case is in tests/security.)
"""

import pytest
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.services.assignment import assign_next_response
from annotation.workspace.selectors import campaigns_for_expert

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


def _submit(assignment: Assignment) -> None:
    assignment.status = Assignment.Status.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.save()


def test_an_expert_taken_off_the_list_keeps_their_campaign_but_is_given_no_new_work(cast):
    first, second, third = cast.experts
    campaign = demo_campaign(cast, overlap=2, experts=[first, second])
    _submit(assign_next_response(expert=first, campaign=campaign))
    campaign.experts.set([second])

    assert campaign in Campaign.objects.taking_part(first)
    assert campaign in campaigns_for_expert(first)  # their submitted work stays on their home page
    assert campaign not in Campaign.objects.admitting(first)
    assert assign_next_response(expert=first, campaign=campaign) is None
    assert campaign not in Campaign.objects.taking_part(third)
    assert assign_next_response(expert=third, campaign=campaign) is None


def test_a_campaign_listing_nobody_admits_every_expert(cast):
    campaign = demo_campaign(cast, overlap=2)
    campaign.experts.clear()
    for expert in cast.experts:
        assert campaign in Campaign.objects.taking_part(expert)
        assert campaign in Campaign.objects.admitting(expert)
        assert campaign not in Campaign.objects.taking_part(expert, unrestricted=False)
    assert assign_next_response(expert=cast.experts[2], campaign=campaign) is not None


def test_a_campaign_is_listed_once_however_many_experts_it_lists_and_work_the_expert_holds(cast):
    campaign = demo_campaign(cast, overlap=3)
    expert = cast.experts[0]
    for _ in range(3):
        _submit(assign_next_response(expert=expert, campaign=campaign))
    assert list(Campaign.objects.taking_part(expert)) == [campaign]
    assert list(Campaign.objects.admitting(expert)) == [campaign]
