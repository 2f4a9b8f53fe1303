"""The campaign and assignment lists filter one way, page and API: one FilterSet each, applied in the read model.

A bad value is the same error on both sides: the page says it above the list (and ignores that
filter), the API answers 400 naming the parameter.
"""

import pytest

from annotation.models import Assignment, Campaign
from annotation.services.assignment import bulk_assign

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation/manage"


def test_the_campaign_list_filters_by_status_and_kind_on_the_page_and_in_the_api(cast, client_for):
    campaign = demo_campaign(cast, name="Blind test A")
    other = demo_campaign(cast, name="Blind test B")
    Campaign.objects.filter(pk=other.pk).update(status=Campaign.Status.CLOSED)
    c = client_for(cast.admin)
    page = c.get("/work/manage/campaigns/", {"status": "closed"}).content.decode()
    assert other.name in page and campaign.name not in page
    listed = c.get(f"{API}/campaigns/", {"status": "closed"}).json()
    assert [row["name"] for row in listed["results"]] == [other.name]
    assert c.get(f"{API}/campaigns/", {"kind": "calibration"}).json()["results"] == []


def test_a_bad_status_is_the_fields_error_on_the_page_and_a_400_naming_it_in_the_api(cast, client_for):
    campaign = demo_campaign(cast, name="Blind test A")
    c = client_for(cast.admin)
    page = c.get("/work/manage/campaigns/", {"status": "nonsense"})
    text = page.content.decode()
    assert page.status_code == 200 and campaign.name in text  # the filter is ignored, never a 500
    statuses = ", ".join(Campaign.Status.values)
    labels = ", ".join(map(str, Campaign.Status.labels))
    assert f"Status: invalid value “nonsense”; choose one of: {labels}." in text
    response = c.get(f"{API}/campaigns/", {"status": "nonsense"})
    assert response.status_code == 400
    assert response.json() == {"status": [f"'nonsense' is not one of: {statuses}."]}
    assignments = c.get(f"/work/manage/campaigns/{campaign.pk}/assignments/", {"status": "done"}).content.decode()
    assert f"Status: invalid value “done”; choose one of: {', '.join(map(str, Assignment.Status.labels))}." in assignments


def test_a_campaigns_assignments_page_and_the_api_give_the_same_rows_for_the_same_filters(cast, client_for):
    campaign = demo_campaign(cast, name="Blind test A")
    bulk_assign(campaign=campaign)
    first = Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk").first()
    Assignment.objects.filter(pk=first.pk).update(status="submitted")
    c = client_for(cast.admin)
    query = {"status": "submitted", "expert": first.expert.username}
    listed = c.get(f"{API}/assignments/", {**query, "campaign": campaign.pk}).json()["results"]
    assert [row["public_id"] for row in listed] == [str(first.public_id)]
    page = c.get(f"/work/manage/campaigns/{campaign.pk}/assignments/", query).content.decode()
    assert str(first.public_id)[:8] in page
