"""The admins' "needs action" home: a section and a count for each kind of work, and one total in the navigation."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.manage.needs_action_selectors import queue_counts, unfillable_slots
from annotation.models import AdminAlert, Campaign, ExpertProfile, ItemProblemReport
from annotation.services.assignment import assign_next_response
from annotation.services.workspace import report_item_problem, report_unclear_criterion

from .helpers import demo_campaign, judge, more_experts, qualify

pytestmark = pytest.mark.django_db

URL = "/work/manage/"


def test_only_admins_reach_it(cast, client_for):
    for user in (cast.expert, cast.reviewer, cast.author, cast.outsider):
        assert client_for(user).get(URL).status_code == 403
    assert client_for(cast.admin).get(URL).status_code == 200


def test_an_admin_lands_on_it(cast, client_for):
    response = client_for(cast.admin).get("/")
    assert response.status_code == 302 and response["Location"] == URL


def test_each_section_counts_what_waits(cast, client_for):
    campaign = demo_campaign(cast)
    mine = assign_next_response(expert=cast.expert, campaign=campaign)
    report_item_problem(assignment=mine, expert=cast.expert, comment="The response is cut off.")
    criterion = mine.campaign_response.item.criteria.order_by("position").first()
    report_unclear_criterion(assignment=mine, expert=cast.expert, criterion_id=criterion.pk, comment="Which reply counts?")
    ExpertProfile.objects.filter(user=cast.experts[2]).update(availability="away", availability_reason="on leave until May")
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, expert=cast.experts[1], message="scored 40% on calibration")

    c = queue_counts(cast.admin)
    assert (c.corrections, c.problem_reports, c.unclear_reports, c.alerts, c.unavailable_experts, c.total) == (0, 1, 1, 1, 1, 4)

    page = client_for(cast.admin).get(URL).content.decode()
    assert "The response is cut off." in page and "Which reply counts?" in page
    assert "on leave until May" in page and "scored 40% on calibration" in page
    assert reverse("annotation:corrections") in page  # the decide page is linked from here now
    assert reverse("annotation:report", args=["problem", ItemProblemReport.objects.get().pk]) in page
    # The badge in the navigation carries the same total.
    assert f'{reverse("annotation:needs_action")}">Needs action <span class="tag warn"' in page


def test_the_navigation_count_costs_a_fixed_number_of_queries(cast, django_assert_num_queries):
    campaign = demo_campaign(cast)
    for expert in cast.experts:
        mine = assign_next_response(expert=expert, campaign=campaign)
        report_item_problem(assignment=mine, expert=expert, comment="Cut off.")
    AdminAlert.objects.create(kind=AdminAlert.Kind.CALIBRATION_FAILED, expert=cast.expert, message="x")
    cast.admin.refresh_from_db()
    # The admin's roles (whether they are an expert of anything), then the five counts in one query, whatever the data.
    with django_assert_num_queries(2):
        assert queue_counts(cast.admin).problem_reports == 3


def test_an_unfillable_slot_names_its_reason(cast, client_for):
    # k = 3 but one of the three experts is paused: every response lacks one rater, whatever their capacity.
    campaign = demo_campaign(cast)
    ExpertProfile.objects.filter(user=cast.experts[2]).update(availability="paused", availability_reason="gold accuracy")
    slots = unfillable_slots(campaign)
    assert len(slots) == campaign.responses.filter(is_gold=False).count()
    assert {s.need for s in slots} == {1} and {s.reason for s in slots} == {"too_few"}
    page = client_for(cast.admin).get(URL).content.decode()
    assert "only 2 eligible experts have not had it" in page


def test_capacity_alone_does_not_make_a_slot_unfillable(cast):
    campaign = demo_campaign(cast)
    ExpertProfile.objects.update(capacity=0)
    assert unfillable_slots(campaign) == []


def test_a_campaign_whose_pace_misses_its_deadline_is_behind_schedule(cast, client_for):
    extra = more_experts(1)
    qualify(*extra)
    campaign = demo_campaign(cast, experts=[*cast.experts, *extra])
    Campaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() + timedelta(days=1))
    judge(assign_next_response(expert=cast.expert, campaign=campaign))  # one submission a week is far too slow
    page = client_for(cast.admin).get(URL).content.decode()
    assert "behind schedule" in page and campaign.name in page


def test_a_campaign_without_any_submission_has_no_pace_and_says_why(cast, client_for):
    campaign = demo_campaign(cast)
    Campaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() + timedelta(days=30))
    page = client_for(cast.admin).get(URL).content.decode()
    assert "no submission yet, so no pace to project from" in page and "behind schedule" in page


def test_an_admin_opts_in_and_out_of_the_digest(cast, client_for):
    c = client_for(cast.admin)
    c.post(reverse("annotation:digest_opt_in"), {"digest": "on"})
    assert cast.admin.groups.filter(name="risk_digest").exists()
    c.post(reverse("annotation:digest_opt_in"), {"digest": "off"})
    assert not cast.admin.groups.filter(name="risk_digest").exists()
    assert client_for(cast.expert).post(reverse("annotation:digest_opt_in"), {"digest": "on"}).status_code == 403
