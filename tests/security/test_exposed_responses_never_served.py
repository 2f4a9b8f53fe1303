"""A response a staff view showed someone is never served to them blind, by pull or by bulk assignment.

TO RUN AFTER WIRING: the assignment service (annotation/services/assignment.py) must exclude
`heartbench_core.blindness.exposed_response_ids(expert.pk)` from the candidates of
`assign_next_response` and of `bulk_assign`; until then these tests fail, by design.
"""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import Assignment, CampaignResponse
from annotation.services.assignment import assign_next_response, bulk_assign
from annotation.services.campaigns import create_campaign
from heartbench_core.blindness import exposed_response_ids
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.security.dual_role_world import build_dual_role_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def looked(cast):
    """A senior reviewer (not yet an expert) opened an adjudication page of a campaign, then became one of its experts."""
    world = build_dual_role_world(cast)
    reviewer = make_user("ravi_reviewer", Role.SENIOR_REVIEWER)
    entry = world.c_entries[7]  # nobody holds it: a pull could serve it
    assert not entry.assignments.exists()
    criterion = entry.item.criteria.order_by("position").first()
    client = Client()
    client.force_login(reviewer)
    assert client.get(f"/validation/campaigns/{world.open_campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/").status_code == 200
    reviewer.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    reviewer = type(reviewer).objects.get(pk=reviewer.pk)  # roles are cached per user object
    world.open_campaign.experts.add(reviewer)
    assert entry.response_id in set(exposed_response_ids(reviewer.pk))
    return world, reviewer, entry


def test_next_never_serves_a_response_its_expert_saw_in_a_staff_view(looked):
    world, reviewer, seen = looked
    served = []
    while (a := assign_next_response(expert=reviewer, campaign=world.open_campaign)) is not None:
        served.append(a.campaign_response.response_id)
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED)
    assert served, "the reviewer was served nothing at all: the test proves nothing"
    assert seen.response_id not in served


def test_bulk_assignment_never_gives_a_response_to_an_expert_who_saw_it(cast):
    from tests.factories import demo_responses, demo_version

    demo_version()
    demo_responses()
    reviewer = make_user("rosa_reviewer", Role.SENIOR_REVIEWER)
    campaign = create_campaign(
        name="bulk",
        dataset_name="demo",
        model_names=["demo-model-aurora"],
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[cast.experts[0].username],
        requires_qualification=False,
    ).campaign
    client = Client()
    client.force_login(reviewer)
    question = CampaignResponse.objects.filter(campaign=campaign).first().item.question_id
    listed = client.get(f"/api/v1/responses/?question_id={question}&model=demo-model-aurora").json()["results"]
    assert len(listed) == 1
    reviewer.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    campaign.experts.set([reviewer])
    bulk_assign(campaign=campaign)
    given = set(Assignment.objects.filter(expert=reviewer).values_list("campaign_response__response__public_id", flat=True))
    assert given, "the reviewer was given nothing at all: the test proves nothing"
    assert listed[0]["public_id"] not in given
