"""Hidden gold checks are reported on their own: per-expert gold accuracy, with its counts, on the admin's campaign page and API."""

import pytest

from annotation.manage.selectors import campaign_gold_accuracy
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_campaign
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, gold_set, judge, qualify

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(cast):
    version = demo_version()
    demo_responses()
    qualify(*cast.experts)
    pool = gold_set(version, picks=[("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-aurora")])
    return create_campaign(
        name="Blind with gold",
        dataset_name="demo",
        model_names=MODELS[1:],
        sample_fraction=1.0,
        overlap=2,
        gold_source=pool,
        gold_rate=0.9,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign


def work(expert, campaign, *, wrong_on_gold=0):
    """Submit every pull until nothing is left (the gold checks come among the rest); return (gold checks, their criteria) submitted."""
    checks = criteria = 0
    while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
        judged = judge(a, wrong=wrong_on_gold if a.campaign_response.is_gold else 0)
        if a.campaign_response.is_gold:
            checks += 1
            criteria += judged
    return checks, criteria


def test_each_expert_has_gold_accuracy_with_checks_criteria_and_agreement(cast, campaign):
    good = work(cast.experts[0], campaign)
    poor = work(cast.experts[1], campaign, wrong_on_gold=2)
    assert good[0] == poor[0] == 2, "each met both gold checks"
    rows = {g.username: g for g in campaign_gold_accuracy(campaign)}
    assert set(rows) == {cast.experts[0].username, cast.experts[1].username}
    first, second = rows[cast.experts[0].username], rows[cast.experts[1].username]
    assert (first.checks, first.compared, first.agreed, first.accuracy) == (good[0], good[1], good[1], 1.0)
    assert (second.checks, second.compared) == poor
    assert second.agreed == poor[1] - 2 * poor[0]
    assert second.accuracy == pytest.approx(second.agreed / second.compared)


def test_the_campaign_page_and_its_api_show_gold_accuracy_to_admins(cast, client_for, campaign):
    checks, criteria = work(cast.expert, campaign)
    c = client_for(cast.admin)
    html = c.get(f"/work/manage/campaigns/{campaign.pk}/").content.decode()
    assert "Accuracy on hidden gold checks" in html and cast.expert.username in html
    body = c.get(f"/api/v1/annotation/manage/campaigns/{campaign.pk}/progress/").json()
    assert body["gold_accuracy"] == [
        {"username": cast.expert.username, "checks": checks, "compared": criteria, "agreed": criteria, "accuracy": 1.0, "reason": None}
    ]


def test_before_any_gold_check_the_accuracy_is_absent_not_zero(cast, client_for, campaign):
    assert campaign_gold_accuracy(campaign) == []
    html = client_for(cast.admin).get(f"/work/manage/campaigns/{campaign.pk}/").content.decode()
    assert "No gold check submitted yet." in html
