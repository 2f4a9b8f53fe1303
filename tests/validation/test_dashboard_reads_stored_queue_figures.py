"""The dashboard reads the queue's figures and the report history from stored rows, in as many queries at 3× as at 1×.

The queue is computed on the dashboard's first view of a campaign, then by the background refresh
after whatever changes it (the page says how old the figures are); the history reads the agreement
figure copied into columns when each report was stored, never a report's JSON.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Assignment, CampaignResponse, UnclearCriterionReport
from heartbench_core.models import Criterion
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judge_verdicts, judgment_lines
from validation.models import Adjudication, AgreementReport, BackgroundJob, QueueSummary
from validation.services.agreement_reports import create_agreement_report
from validation.services.golden import adjudicate, adjudication_queue
from validation.services.imports import import_judgments
from validation.services.jobs import run_background_job
from validation.services.queue_summary import store_queue_summary


def build(name, *, raters, reports, seed=0):
    """A blind test of the demo set judged by `raters` experts each (an even number: ties need a decision)."""
    lines = judgment_lines([f"{name}-rater{i}" for i in range(raters)], flip=0.3, seed=seed)
    campaign = import_judgments(source=as_file(lines), dataset_name="demo", campaign_name=name, create_experts=True).campaign
    for _ in range(reports):
        create_agreement_report(campaign=campaign, resamples=10)
    return campaign


@pytest.fixture
def world(db):
    demo_version()
    demo_responses()
    judge_verdicts()


def dashboard_queries(client, campaign) -> tuple[int, str]:
    url = f"/validation/campaigns/{campaign.pk}/"
    client.get(url)  # the first view of a campaign computes and stores its queue's figures
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(url).content.decode()
    return len(ctx.captured_queries), page


def test_the_dashboard_costs_as_many_queries_at_three_times_the_size(world, cast, client_for):
    client = client_for(cast.admin)
    small = build("one", raters=2, reports=1)
    small_count, small_page = dashboard_queries(client, small)
    # Three times the judgments per response, three times the reports, and two more campaigns in the installation.
    big = build("three", raters=6, reports=3, seed=1)
    build("other-a", raters=2, reports=1, seed=2)
    build("other-b", raters=2, reports=1, seed=3)
    big_count, big_page = dashboard_queries(client, big)
    assert small_count == big_count
    for campaign, page in ((small, small_page), (big, big_page)):
        assert 'id="queue-as-of"' in page and "Decide" in page
        assert f"All {len(adjudication_queue(campaign))} →" in page


def test_the_history_reads_no_reports_json(world, cast, client_for):
    campaign = build("one", raters=2, reports=3)
    client = client_for(cast.admin)
    with CaptureQueriesContext(connection) as ctx:
        body = client.get(f"/validation/campaigns/{campaign.pk}/?part=history", HTTP_HX_REQUEST="true").content.decode()
    history = [q["sql"] for q in ctx.captured_queries if "validation_agreementreport" in q["sql"]]
    assert history and not any('"result"' in sql or '"inputs"' in sql for sql in history)
    for report in AgreementReport.objects.all():
        assert f"{report._agreement_from_result().value:.3f}" in body


def test_a_stored_report_keeps_its_agreement_figure_in_columns(world):
    campaign = build("one", raters=2, reports=1)
    report = AgreementReport.objects.get(campaign=campaign)
    assert report.agreement_stored
    assert report.agreement_rate == report._agreement_from_result()
    assert report.agreement_value == report.typed_result.item_agreement.rate.value


def test_a_report_stored_before_the_columns_still_shows_its_figure(world):
    campaign = build("one", raters=2, reports=1)
    AgreementReport.objects.update(agreement_stored=False, agreement_value=None)
    report = AgreementReport.objects.get(campaign=campaign)
    assert report.agreement_rate.value == report.typed_result.item_agreement.rate.value


def test_an_adjudication_takes_its_unit_out_of_the_stored_queue_at_once(world, cast, client_for):
    campaign = build("one", raters=2, reports=1)
    client = client_for(cast.admin)
    client.get(f"/validation/campaigns/{campaign.pk}/")
    summary = QueueSummary.objects.get(campaign=campaign)
    before = summary.needs_decision
    assert before == len(adjudication_queue(campaign)) > 0 and not summary.stale
    entry = adjudication_queue(campaign)[0]
    adjudicate(
        reviewer=cast.reviewer,
        campaign_response=CampaignResponse.objects.get(pk=entry.campaign_response_id),
        criterion=Criterion.objects.get(pk=entry.criterion_id),
        hit=True,
        cause=Adjudication.Cause.RATER_ERROR,
        note="a tie, decided",
    )
    summary = QueueSummary.objects.get(campaign=campaign)
    assert not summary.stale and summary.needs_decision == before - 1 == len(adjudication_queue(campaign))
    stored = summary.units.get(campaign_response_id=entry.campaign_response_id, criterion_id=entry.criterion_id)
    assert stored.decided and not stored.needs_decision
    # What the decision wrote is what computing the whole queue again finds.
    recomputed = store_queue_summary(campaign=campaign)
    assert recomputed.needs_decision == summary.needs_decision and recomputed.counts == summary.counts
    assert recomputed.units.get(campaign_response_id=entry.campaign_response_id, criterion_id=entry.criterion_id).decided


def test_writes_of_other_apps_that_change_the_queue_mark_it_stale_after_commit(world, cast, client_for, django_capture_on_commit_callbacks):
    campaign = build("one", raters=2, reports=1)
    client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/")
    before = QueueSummary.objects.get(campaign=campaign).needs_decision
    assignment = Assignment.objects.filter(campaign_response__campaign=campaign).first()
    criterion = assignment.campaign_response.item.criteria.first()
    with django_capture_on_commit_callbacks(execute=True):
        UnclearCriterionReport.objects.create(assignment=assignment, criterion=criterion, comment="which feeling?")
    assert QueueSummary.objects.get(campaign=campaign).stale
    job = BackgroundJob.objects.get(campaign=campaign, kind=BackgroundJob.Kind.GOLDEN_REFRESH, status="pending")
    run_background_job(job_id=job.pk)
    summary = QueueSummary.objects.get(campaign=campaign)
    assert summary.needs_decision == len(adjudication_queue(campaign)) > before and not summary.stale


def test_a_new_report_brings_the_figures_to_its_moment(world, cast, client_for, django_capture_on_commit_callbacks):
    campaign = build("one", raters=2, reports=1)
    client_for(cast.admin).get(f"/validation/campaigns/{campaign.pk}/")
    with django_capture_on_commit_callbacks(execute=True):
        create_agreement_report(campaign=campaign, resamples=10)
    assert QueueSummary.objects.get(campaign=campaign).stale
    assert BackgroundJob.objects.filter(campaign=campaign, kind=BackgroundJob.Kind.GOLDEN_REFRESH, status="pending").exists()


def test_the_stored_queue_lists_what_computing_it_lists_in_every_view(world, cast):
    from validation.selectors import adjudication_units
    from validation.services.queue_summary import stored_queue

    campaign = build("one", raters=2, reports=0)
    rater = Assignment.objects.filter(campaign_response__campaign=campaign).first().expert
    # A reviewer who rated some responses sees the queue without them: take a third of the rater's work off them.
    theirs = Assignment.objects.filter(campaign_response__campaign=campaign, expert=rater).order_by("pk")
    Assignment.objects.filter(pk__in=list(theirs.values_list("pk", flat=True))[::3]).update(expert=cast.reviewer)
    store_queue_summary(campaign=campaign)
    assert 0 < len(adjudication_units(campaign, reviewer=cast.reviewer)) < len(adjudication_units(campaign))
    for reviewer in (None, cast.reviewer):
        live = adjudication_units(campaign, reviewer=reviewer)
        for show in ("all", "needs_decision"):
            for trigger in ("", "tie", "split", "judge_contradicts"):
                expected = [e for e in live if (show == "all" or e.needs_decision) and (not trigger or trigger in e.triggers)]
                stored = stored_queue(campaign, viewer=cast.admin, reviewer=reviewer, show=show, trigger=trigger)
                assert len(stored) == len(expected), (reviewer, show, trigger)
                assert stored[0 : len(expected) + 5] == expected
                assert stored[7:19] == expected[7:19]
            assert stored.counts() == (sum(e.needs_decision for e in live), len(live))
