"""Endpoints whose checks used to build their own 400 now raise, and still answer exactly as before."""

import pytest

from annotation.models import Campaign
from rubrics.models import CriterionRevision
from tests.annotation.manage.helpers import demo_campaign
from tests.factories import demo_responses, demo_version

pytestmark = pytest.mark.django_db
API = "/api/v1"


def test_scores_a_source_cannot_give_are_no_score_naming_the_field(cast, client_for):
    response = client_for(cast.admin).get(f"{API}/scores/", {"dataset": "nope", "model": "m"})
    assert response.status_code == 400
    assert response.json() == {"detail": "no score", "errors": {"dataset": ["no dataset named 'nope'"]}}


def test_adding_a_criterion_without_its_item_names_the_dataset_field(cast, client_for):
    response = client_for(cast.author).post(f"{API}/rubrics/revisions/", {"action": "add", "text": "x"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "nothing was written", "errors": {"dataset": ["'add' needs dataset and question_id"]}}
    assert not CriterionRevision.objects.exists()


def test_editing_without_a_key_names_the_key_field(cast, client_for):
    response = client_for(cast.author).post(f"{API}/rubrics/revisions/", {"action": "edit", "text": "x"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "nothing was written", "errors": {"key": ["name the criterion (its key)"]}}


def test_publishing_an_unknown_dataset_names_it(cast, client_for):
    response = client_for(cast.author).post(f"{API}/rubrics/publish/", {"dataset": "nope"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "nothing was written", "errors": {"dataset": ["no dataset named 'nope'"]}}


def test_a_campaign_with_an_unknown_gold_source_names_it_and_is_not_created(cast, client_for):
    demo_version()
    demo_responses()
    body = {"name": "c", "dataset": "demo", "models": ["demo-model-aurora"], "gold_source": "nope"}
    response = client_for(cast.admin).post(f"{API}/annotation/manage/campaigns/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "nothing was written", "errors": {"gold_source": ["no campaign named 'nope'"]}}
    assert not Campaign.objects.exists()


def test_releasing_work_twice_names_the_assignment_and_keeps_it_released(cast, client_for):
    campaign = demo_campaign(cast, overlap=1)
    client = client_for(cast.admin)
    client.post(f"{API}/annotation/manage/campaigns/{campaign.pk}/bulk-assign/")
    public_id = client.get(f"{API}/annotation/manage/assignments/", {"campaign": campaign.pk}).json()["results"][0]["public_id"]
    assert client.post(f"{API}/annotation/manage/assignments/{public_id}/release/").json()["status"] == "released"
    again = client.post(f"{API}/annotation/manage/assignments/{public_id}/release/")
    assert again.status_code == 400
    assert again.json() == {
        "detail": "nothing was written",
        "errors": {"assignment": ["only open work can be released; this assignment is released"]},
    }
