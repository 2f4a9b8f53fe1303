"""Staff views that show responses with their model, the judge's verdicts or other raters' judgments record exposures.

A senior reviewer or admin who is in no open campaign as an expert may look; what they were
shown is recorded (user, response, via), cheaply, so that if they become an expert of a campaign
holding those responses later, they are never served them blind.
"""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import CampaignResponse
from annotation.services.campaigns import create_campaign
from heartbench_core.blindness import exposed_response_ids, record_exposures
from heartbench_core.models import JudgeRun, ModelResponse, StaffExposure
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.security.dual_role_world import build_dual_role_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(cast):
    return build_dual_role_world(cast)


@pytest.fixture
def looker(world):
    """Admin, author and reviewer, and an expert of no open campaign yet (C lists its experts; they are not among them)."""
    return make_user("lena_looker", Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER)


def _client(user):
    client = Client()
    client.force_login(user)
    return client


def _exposed(user, via=None) -> set[int]:
    qs = StaffExposure.objects.filter(user=user)
    if via:
        qs = qs.filter(via=via)
    return set(qs.values_list("response_id", flat=True))


def test_opening_an_adjudication_page_records_that_response(world, looker):
    entry = world.queued
    criterion = entry.item.criteria.order_by("position").first()
    response = _client(looker).get(f"/validation/campaigns/{world.open_campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/")
    assert response.status_code == 200
    assert entry.response_id in _exposed(looker, "adjudication")


def test_the_adjudication_queue_records_the_responses_it_lists(world, looker):
    _client(looker).get(f"/validation/campaigns/{world.open_campaign.pk}/adjudication/")
    assert world.queued.response_id in _exposed(looker, "adjudication-queue")


def test_the_responses_api_records_the_page_it_answered_and_the_detail(world, looker):
    client = _client(looker)
    question = world.c_entries[0].item.question_id
    listed = client.get(f"/api/v1/responses/?question_id={question}&dataset=demo").json()["results"]
    ids = set(ModelResponse.objects.filter(public_id__in=[r["public_id"] for r in listed]).values_list("pk", flat=True))
    assert len(ids) == 3 and ids <= _exposed(looker, "api-response-list")
    other = ModelResponse.objects.exclude(question_id=question).first()
    client.get(f"/api/v1/responses/{other.public_id}/")
    assert other.pk in _exposed(looker, "api-response")


def test_exports_of_judgments_and_golden_labels_record_every_response_of_the_campaign(world, looker):
    client = _client(looker)
    c = world.open_campaign
    b"".join(client.get(f"/validation/campaigns/{c.pk}/export/judgments.csv").streaming_content)
    assert _exposed(looker, "export-judgments") == world.c_response_ids()


def test_the_golden_labels_api_records_the_responses_it_lists(world, looker):
    labels = _client(looker).get(f"/api/v1/validation/campaigns/{world.open_campaign.pk}/golden-labels/").json()["results"]
    assert labels
    shown = set(ModelResponse.objects.filter(public_id__in={g["response"] for g in labels}).values_list("pk", flat=True))
    assert shown == _exposed(looker, "api-golden-labels")


def test_a_judge_runs_verdicts_record_the_runs_responses(world, looker):
    run = JudgeRun.objects.filter(version=world.version).first()
    _client(looker).get(f"/api/v1/judge-runs/{run.pk}/verdicts/")
    assert _exposed(looker, "api-judge-verdicts") == set(run.verdicts.values_list("response_id", flat=True))


def test_a_user_who_looked_before_becoming_an_expert_keeps_the_exposure(world, looker):
    entry = world.queued
    criterion = entry.item.criteria.order_by("position").first()
    _client(looker).get(f"/validation/campaigns/{world.open_campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/")
    looker.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    world.open_campaign.experts.add(looker)
    assert entry.response_id in set(exposed_response_ids(looker.pk))


def test_a_second_look_keeps_the_first_exposure_and_recording_is_one_insert(world, looker, django_assert_max_num_queries):
    ids = list(CampaignResponse.objects.filter(campaign=world.closed_campaign).values_list("response_id", flat=True))
    record_exposures(user=looker, response_ids=ids[:3], via="first")
    with django_assert_max_num_queries(1):
        record_exposures(user=looker, response_ids=ids, via="second")
    assert StaffExposure.objects.filter(user=looker, response_id__in=ids[:3], via="first").count() == 3
    assert _exposed(looker) == set(ids)


def test_an_expert_of_the_campaign_is_refused_and_so_records_nothing_of_it(world):
    user = world.users["expert+reviewer"]
    entry = world.queued
    criterion = entry.item.criteria.order_by("position").first()
    assert _client(user).get(f"/validation/campaigns/{world.open_campaign.pk}/adjudication/{entry.pk}/{criterion.pk}/").status_code == 403
    assert not _exposed(user) & world.c_response_ids()


def test_plain_staff_without_the_expert_role_are_recorded_too(cast):
    from tests.factories import demo_responses, demo_version

    demo_version()
    demo_responses()
    create_campaign(
        name="any", dataset_name="demo", model_names=["demo-model-aurora"], sample_fraction=1.0, overlap=1, requires_qualification=False
    )
    body = _client(cast.author).get("/api/v1/responses/?model=demo-model-aurora").json()
    assert body["count"] and len(_exposed(cast.author, "api-response-list")) == len(body["results"])
