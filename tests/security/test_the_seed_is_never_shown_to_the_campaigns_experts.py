"""A blind test's stored seed is shown only to staff who are not its experts: never to an admin who judges in it.

The seed alone no longer recomputes the sample (that takes the server's sampling key), but an
expert has no use for it, and one who read it and had the key's derivation (a leaked SECRET_KEY)
could. The campaign page, the API's campaign answers and the Django admin are checked.
"""

import pytest
from django.contrib.auth.models import Group

from annotation.models import Campaign
from heartbench_core.roles import Role
from tests.annotation.manage.helpers import demo_campaign
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

SEED = 1234567891  # distinctive: found in a page only where it is printed
API = "/api/v1/annotation/manage/campaigns"


@pytest.fixture
def campaign(cast) -> Campaign:
    campaign = demo_campaign(cast, seed=SEED)
    # An admin who is also one of its experts.
    cast.admin.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    campaign.experts.add(cast.admin)
    return campaign


@pytest.fixture
def outside_admin(db):
    """An admin who is no expert of the campaign."""
    return make_user("oscar_admin", Role.ADMIN)


def test_the_campaign_page_shows_the_seed_only_to_staff_outside_the_campaign(cast, client_for, campaign, outside_admin):
    page = client_for(cast.admin).get(f"/work/manage/campaigns/{campaign.pk}/")
    assert page.status_code == 200 and str(SEED) not in page.content.decode()
    assert str(SEED) in client_for(outside_admin).get(f"/work/manage/campaigns/{campaign.pk}/").content.decode()


def test_the_api_gives_the_seed_only_to_staff_outside_the_campaign(cast, client_for, campaign, outside_admin):
    client = client_for(cast.admin)
    assert client.get(f"{API}/{campaign.pk}/").json()["seed"] is None
    assert [c["seed"] for c in client.get(f"{API}/").json()["results"] if c["id"] == campaign.pk] == [None]
    answer = client.post(f"{API}/{campaign.pk}/status/", {"status": "active"}, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["seed"] is None
    assert str(SEED) not in client.get(f"{API}/").content.decode()
    other = client_for(outside_admin)
    assert other.get(f"{API}/{campaign.pk}/").json()["seed"] == SEED


def test_the_seed_stays_hidden_from_its_experts_once_the_campaign_is_closed(cast, client_for, campaign):
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)
    client = client_for(cast.admin)
    assert str(SEED) not in client.get(f"/work/manage/campaigns/{campaign.pk}/").content.decode()
    assert client.get(f"{API}/{campaign.pk}/").json()["seed"] is None


def test_the_django_admin_does_not_show_the_seed(client_for, campaign):
    root = make_user("rooty", is_superuser=True, is_staff=True)
    page = client_for(root).get(f"/admin/annotation/campaign/{campaign.pk}/change/")
    assert page.status_code == 200
    assert str(SEED) not in page.content.decode() and 'name="seed"' not in page.content.decode()
