"""`Assignment.objects.of_campaign` finds a campaign's assignments from its responses: the same rows as the join, on either database.

On PostgreSQL a campaign with a small share of the installation's responses reads them by index,
a large one by the join; both ways are checked (the share is forced: a test database has no
planner statistics to decide by).
"""

import pytest

from annotation.models import Assignment, CampaignResponse

from .helpers import demo_campaign


@pytest.mark.parametrize("by_index", [True, False], ids=["small-share-by-index", "large-share-joined"])
@pytest.mark.parametrize("gold", [None, True, False])
def test_the_same_assignments_as_joining_the_campaign(cast, gold, by_index, monkeypatch):
    from annotation import models

    monkeypatch.setattr(models, "campaign_has_small_share", lambda campaign_id: by_index)
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


@pytest.mark.parametrize("by_index", [True, False], ids=["small-share-by-index", "large-share-joined"])
def test_it_works_inside_a_subquery(cast, by_index, monkeypatch):
    from annotation import models

    monkeypatch.setattr(models, "campaign_has_small_share", lambda campaign_id: by_index)
    north = demo_campaign(cast, name="North", overlap=2)
    for response in CampaignResponse.objects.filter(campaign=north).order_by("id")[:2]:
        Assignment.objects.create(campaign_response=response, expert=cast.expert)
    inner = Assignment.objects.of_campaign(north.pk, gold=False).values("id")
    assert set(Assignment.objects.filter(id__in=inner).values_list("pk", flat=True)) == set(
        Assignment.objects.filter(campaign_response__campaign=north).values_list("pk", flat=True)
    )
