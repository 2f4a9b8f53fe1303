"""The API's lists of profiles and campaigns cost the same number of queries however many rows they give.

Their read models (annotation/manage/read_models.py) read what the serializers write, each
profile's quality and qualifications, each campaign's responses and hidden seed, with the rows: no row
costs a query of its own.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import ExpertQuality
from annotation.services.experts import ensure_profile

from .helpers import demo_campaign, more_experts, qualify

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def queries(client, url):
    client.get(url)  # what a first request computes and keeps
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def profiled(users):
    qualify(*users)
    for user in users:
        ExpertQuality.objects.get_or_create(profile=ensure_profile(user), defaults={"gold_accuracy": 0.9, "gold_checks": 4})


def test_one_profile_or_four_the_same_queries(cast, client_for):
    profiled(cast.experts[:1])
    admin = client_for(cast.admin)
    few = queries(admin, f"{API}/profiles/")
    profiled([*cast.experts, *more_experts(3)])
    body = admin.get(f"{API}/profiles/").json()
    assert len([p for p in body["results"] if p["quality"] is not None]) >= 4
    assert all(p["qualifications"] for p in body["results"] if p["quality"] is not None)
    assert queries(admin, f"{API}/profiles/") == few


def test_one_campaign_or_three_the_same_queries(cast, client_for):
    demo_campaign(cast, name="Blind test 1")
    admin = client_for(cast.admin)
    few = queries(admin, f"{API}/manage/campaigns/")
    demo_campaign(cast, name="Blind test 2")
    demo_campaign(cast, name="Blind test 3")
    listed = admin.get(f"{API}/manage/campaigns/").json()
    assert listed["count"] == 3 and [c["responses"] for c in listed["results"]] == [18, 18, 18]
    assert queries(admin, f"{API}/manage/campaigns/") == few
