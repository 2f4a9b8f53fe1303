"""`Assignment.objects.of_campaign` finds a campaign's assignments from its responses: the same rows as the join, on either database."""

import pytest

from annotation.models import Assignment, CampaignResponse

from .helpers import demo_campaign


@pytest.mark.parametrize("gold", [None, True, False])
def test_the_same_assignments_as_joining_the_campaign(cast, gold):
    north = demo_campaign(cast, name="North", overlap=2)
    south = demo_campaign(cast, name="South", overlap=2)
    for campaign in (north, south):
        for expert in cast.experts[:2]:
            for response in CampaignResponse.objects.filter(campaign=campaign).order_by("id")[:3]:
                Assignment.objects.create(campaign_response=response, expert=expert)
    gold_check = CampaignResponse.objects.filter(campaign=north).order_by("id").first()
    CampaignResponse.objects.filter(pk=gold_check.pk).update(is_gold=True)
    joined = Assignment.objects.filter(campaign_response__campaign=north)
    if gold is not None:
        joined = joined.filter(campaign_response__is_gold=gold)
    found = set(Assignment.objects.of_campaign(north.pk, gold=gold).values_list("pk", flat=True))
    assert found == set(joined.values_list("pk", flat=True)) and found
    assert not found & set(Assignment.objects.filter(campaign_response__campaign=south).values_list("pk", flat=True))
