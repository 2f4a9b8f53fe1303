"""Senior reviewers reach the adjudication queues from the navigation; a rater of an open campaign stays blind in it."""

import re

import pytest
from django.test import Client

from annotation.models import Assignment, UnclearCriterionReport
from tests.security.dual_role_world import OTHER_SECRET, build_dual_role_world
from tests.validation.builders import blind_test
from validation.selectors import adjudication_units, queue_counts

pytestmark = pytest.mark.django_db

INDEX = "/validation/adjudication/"


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_navigation_links_a_senior_reviewer_to_the_campaigns_to_adjudicate(cast, client_for):
    campaign = blind_test(cast, flip=0.3)
    assignment = Assignment.objects.filter(campaign_response__campaign=campaign).first()
    criterion = assignment.campaign_response.item.criteria.first()
    UnclearCriterionReport.objects.create(assignment=assignment, criterion=criterion, comment="unclear")
    client = client_for(cast.reviewer)
    home = client.get("/").content.decode()
    assert f'href="{INDEX}"' in home
    response = client.get(INDEX)
    assert response.status_code == 200
    counts = queue_counts(adjudication_units(campaign, reviewer=cast.reviewer))
    assert counts.needs_decision > 0
    page = response.content.decode()
    assert f'href="/validation/campaigns/{campaign.pk}/adjudication/"' in page
    assert f"{campaign.name} {campaign.version} " in text_of(response)
    assert f" {counts.needs_decision} {counts.compared} " in text_of(response)


def test_the_agreement_pages_stay_for_admins(cast, client_for):
    blind_test(cast)
    assert client_for(cast.reviewer).get("/validation/").status_code == 403
    admin = client_for(cast.admin)
    assert admin.get("/validation/").status_code == 200
    assert admin.get(INDEX).status_code == 200


@pytest.mark.parametrize("who", ["expert", "author", "outsider"])
def test_others_are_refused(cast, client_for, who):
    assert client_for(getattr(cast, who)).get(INDEX).status_code == 403
    assert 'href="/validation/adjudication/"' not in client_for(getattr(cast, who)).get("/").content.decode()


@pytest.mark.parametrize("combination", ["expert+reviewer", "expert+all"])
def test_a_reviewer_who_rates_in_an_open_campaign_sees_neither_its_queue_nor_its_figures(cast, combination):
    world = build_dual_role_world(cast)
    client = Client()
    client.force_login(world.users[combination])
    response = client.get(INDEX)
    page = response.content.decode()
    c, d, e = world.open_campaign, world.closed_campaign, world.elsewhere
    assert response.status_code == 200
    assert c.name in page and f"/validation/campaigns/{c.pk}/adjudication/" not in page
    # The closed campaign D is on C's dataset: closed whole, like C (never its counts without C's responses).
    assert d.name in page and f"/validation/campaigns/{d.pk}/adjudication/" not in page
    assert "Closed to you" in page and OTHER_SECRET not in page
    # E, on another dataset, keeps its queue and counts.
    assert f"/validation/campaigns/{e.pk}/adjudication/" in page
    plain = queue_counts(adjudication_units(e, reviewer=cast.reviewer))
    assert plain.compared > 0
    assert client.get(f"/validation/campaigns/{c.pk}/adjudication/").status_code == 403
