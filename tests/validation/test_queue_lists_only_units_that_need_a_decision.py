"""The adjudication queue lists the units that need a decision, never a 2-of-3 majority; one definition for page, API and counts."""

import re

import pytest

from annotation.models import Assignment, UnclearCriterionReport
from tests.validation.builders import blind_test
from validation.selectors import adjudication_units, queue_counts
from validation.services.golden import adjudication_queue

pytestmark = pytest.mark.django_db


def report_unclear(campaign):
    """An expert reports one criterion unclear: its rated units need a decision (the project's ambiguity rule)."""
    assignment = Assignment.objects.filter(campaign_response__campaign=campaign).order_by("pk").first()
    criterion = assignment.campaign_response.item.criteria.order_by("position").first()
    UnclearCriterionReport.objects.create(assignment=assignment, criterion=criterion, comment="哪一种情绪？")
    return criterion


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast, flip=0.3)
    report_unclear(campaign)
    return campaign


def page_url(campaign):
    return f"/validation/campaigns/{campaign.pk}/adjudication/"


def api_url(campaign):
    return f"/api/v1/validation/campaigns/{campaign.pk}/queue/"


def test_splits_with_a_majority_and_contradicted_unanimous_verdicts_have_their_label_and_are_not_queued(cast, campaign):
    units = adjudication_units(campaign, reviewer=cast.reviewer)
    majorities = [e for e in units if e.triggers == ("split",)]
    contradicted = [e for e in units if e.triggers == ("judge_contradicts",)]
    assert majorities and contradicted, "the noisy blind test should have 2-of-3 splits and judge contradictions"
    assert not any(e.needs_decision for e in majorities + contradicted)
    queued = adjudication_queue(campaign, reviewer=cast.reviewer)
    assert queued and all(e.needs_decision for e in queued)
    # With k = 3 and three raters nobody ties: what is queued is the reported criterion's units.
    assert all("ambiguous" in e.triggers for e in queued)


def test_a_k3_blind_test_without_flags_has_nothing_to_decide(cast):
    campaign = blind_test(cast, campaign="blind-quiet", flip=0.3)
    assert adjudication_queue(campaign) == []
    assert queue_counts(adjudication_units(campaign)).compared > 0


def test_a_tie_is_queued(cast, campaign):
    campaign.overlap = 2
    campaign.save(update_fields=["overlap"])
    Assignment.objects.filter(campaign_response__campaign=campaign, expert=cast.experts[2]).update(status=Assignment.Status.RELEASED)
    queued = adjudication_queue(campaign, reviewer=cast.reviewer)
    ties = [e for e in queued if "tie" in e.triggers]
    assert ties and all(e.expert_ratings == 2 and e.expert_hits == 1 for e in ties)


def test_the_page_says_how_many_need_a_decision_of_how_many_compared(cast, campaign, client_for):
    counts = queue_counts(adjudication_units(campaign, reviewer=cast.reviewer))
    assert 0 < counts.needs_decision < counts.compared
    page = client_for(cast.reviewer).get(page_url(campaign)).content.decode()
    text = re.sub(r"<[^>]+>", "", page)
    assert f"{counts.needs_decision} units need a decision (of {counts.compared} units compared)" in text
    assert f"{counts.needs_decision} units listed" in text
    assert "has a majority" not in page


def test_the_reviewer_can_see_every_compared_unit(cast, campaign, client_for):
    counts = queue_counts(adjudication_units(campaign, reviewer=cast.reviewer))
    client = client_for(cast.reviewer)
    page = client.get(page_url(campaign), {"show": "all"}).content.decode()
    assert f"{counts.compared} units listed" in re.sub(r"<[^>]+>", "", page)
    assert "has a majority" in page
    # The filters stay in the pager's links, so the URL keeps the state.
    assert "?show=all&amp;page=2" in page
    splits = client.get(page_url(campaign), {"show": "all", "trigger": "split"}).content.decode()
    assert "judge_contradicts" not in re.sub(r'<option value="judge_contradicts".*?</option>', "", splits)


def test_an_htmx_filter_change_answers_the_rows_only(cast, campaign, client_for):
    response = client_for(cast.reviewer).get(page_url(campaign), {"show": "all"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body and 'id="queue-rows"' in body


def test_the_api_uses_the_same_definition_and_counts(cast, campaign, client_for):
    units = adjudication_units(campaign, reviewer=cast.reviewer)
    counts = queue_counts(units)
    client = client_for(cast.reviewer)
    default = client.get(api_url(campaign)).json()
    assert default["count"] == counts.needs_decision == len(adjudication_queue(campaign, reviewer=cast.reviewer))
    assert (default["needs_decision"], default["compared"]) == counts
    assert all(r["needs_decision"] and not r["decided"] for r in default["results"])
    everything = client.get(api_url(campaign), {"show": "all"}).json()
    assert everything["count"] == counts.compared and (everything["needs_decision"], everything["compared"]) == counts
    assert all({"tie", "ambiguous"} & set(r["triggers"]) for r in default["results"])
    assert (
        client.get(api_url(campaign), {"trigger": "judge_contradicts"}).json()["count"]
        < (client.get(api_url(campaign), {"show": "all", "trigger": "judge_contradicts"}).json()["count"])
    )


def test_a_bad_show_value_is_a_400_naming_it(cast, campaign, client_for):
    response = client_for(cast.reviewer).get(api_url(campaign), {"show": "some"})
    assert response.status_code == 400 and "show" in response.json()


def test_the_admin_dashboard_counts_the_same_queue(cast, campaign, client_for):
    page = client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/").content.decode()
    assert str(len(adjudication_queue(campaign))) in page


def test_the_queue_page_runs_a_fixed_number_of_queries(cast, campaign, client_for, django_assert_max_num_queries):
    client = client_for(cast.reviewer)
    with django_assert_max_num_queries(36):  # the first view computes the queue and stores its units
        assert client.get(page_url(campaign), {"show": "all"}).status_code == 200
    with django_assert_max_num_queries(14):  # then a page of the stored units
        assert client.get(page_url(campaign), {"show": "all", "page": 2}).status_code == 200


def test_a_bad_show_value_on_the_page_is_the_fields_error_and_the_default_list(cast, campaign, client_for):
    client = client_for(cast.reviewer)
    response = client.get(page_url(campaign), {"show": "some", "trigger": "split"})
    assert response.status_code == 200 and response.context["show"] == "needs_decision" and response.context["trigger"] == "split"
    assert "Show: invalid value “some”; choose one of: units that need a decision, all compared units." in response.content.decode()
    assert response.context["query"] == "trigger=split"
