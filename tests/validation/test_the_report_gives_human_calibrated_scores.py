"""A report carries the human-calibrated scores of the campaign's models, from the judge's stored scores on every item;
its page, API and exports show them with their counts, and a report stored before them says they were not computed."""

import csv
import io
import itertools
import json

import pytest
from django.core.management import call_command
from django.db import connection

from tests.validation.builders import MODELS, blind_test
from validation.models import AgreementReport
from validation.services.agreement_reports import create_agreement_report


@pytest.fixture
def report(cast):
    return create_agreement_report(campaign=blind_test(cast), resamples=50)


def stored_without(report: AgreementReport) -> AgreementReport:
    """A newer report of the same campaign stored before the calibrated scores existed."""
    result = {k: v for k, v in report.result.items() if k != "calibrated_scores"}
    return AgreementReport.objects.create(campaign=report.campaign, parameters=report.parameters, inputs=report.inputs, result=result)


def test_the_report_computes_them_for_every_model_from_the_judge_s_scores_and_the_golden_labels(report):
    block = report.typed_result.calibrated_scores
    assert block is not None and block.reason is None
    assert sorted(m.model for m in block.models) == sorted(MODELS)
    assert block.sampled_items == block.items == 6  # the imported campaign holds every demo item
    for m in block.models:
        assert m.labelled_items == m.scored_items > 0
        assert m.overall.judge.n == m.scored_items and m.overall.corrected.n == m.labelled_items
        ci, experts = m.overall.corrected_ci95, m.overall.experts_ci95
        assert ci.defined and ci.high - ci.low <= experts.high - experts.low + 1e-9
    # The judge-only overall is the leaderboard's score of the same run.
    from heartbench_core.leaderboard.selectors import leaderboard

    board = {row.run.model.name: row.all.overall for row in leaderboard(report.campaign.version)}
    for m in block.models:
        assert m.overall.judge.value == pytest.approx(board[m.model], abs=1e-9)


def test_leaving_out_the_catastrophic_criteria_says_why_there_are_none(cast):
    report = create_agreement_report(campaign=blind_test(cast), resamples=0, exclude_catastrophic=True)
    block = report.typed_result.calibrated_scores
    assert block.models == () and "catastrophic" in block.reason


def test_without_a_judge_there_is_no_block(cast):
    report = create_agreement_report(campaign=blind_test(cast, with_judge=False), resamples=0)
    assert report.typed_result.calibrated_scores is None


def test_the_page_shows_each_model_three_ways_with_what_each_score_is(report, cast, client_for, django_assert_max_num_queries):
    client = client_for(cast.admin)
    # The block is read from the stored report and adds no query; PostgreSQL counts one more for the page.
    with django_assert_max_num_queries(32 if connection.vendor == "postgresql" else 31):
        page = client.get(report.get_absolute_url()).content.decode()
    assert 'id="calibrated-models"' in page and 'id="calibrated-sentences"' in page
    assert "What would each model score if the experts had judged everything?" in page
    for model in MODELS:
        assert model in page
    assert "Kendall" in page and "Angelopoulos" in page


def test_the_campaign_dashboard_shows_them_for_its_latest_report(report, cast, client_for):
    page = client_for(cast.admin).get(f"/validation/campaigns/{report.campaign.pk}/").content.decode()
    assert 'id="calibrated-models"' in page


def test_a_report_stored_before_them_says_they_were_not_computed(report, cast, client_for):
    old = stored_without(report)
    client = client_for(cast.admin)
    assert 'id="calibrated-not-computed"' in client.get(old.get_absolute_url()).content.decode()
    assert client.get(f"/api/v1/validation/reports/{old.pk}/").json()["result"]["calibrated_scores"] is None


def test_the_api_gives_them_typed(report, cast, client_for):
    body = client_for(cast.admin).get(f"/api/v1/validation/reports/{report.pk}/").json()["result"]["calibrated_scores"]
    model = body["models"][0]
    assert set(model["overall"]) == {"key", "label", "judge", "experts", "experts_ci95", "corrected", "corrected_ci95", "lam"}
    assert model["overall"]["corrected"]["n"] == model["labelled_items"]
    assert model["overall"]["corrected_ci95"]["resampled"]["method"] == "ppi_clt"
    assert len(body["differences"]) == 2 and body["kendall_tau"]["n"] == 3


def test_the_exports_carry_them(report, cast, client_for):
    client = client_for(cast.admin)
    campaign = report.campaign
    rows = list(
        csv.reader(io.StringIO(b"".join(client.get(f"/validation/campaigns/{campaign.pk}/export/report.csv").streaming_content).decode()))
    )
    mine = [r for r in rows if r[0] == "calibrated_scores"]
    first = report.typed_result.calibrated_scores.models[0]
    assert [
        "calibrated_scores",
        f"{first.model}/overall",
        "corrected",
        str(first.overall.corrected.value),
        str(first.labelled_items),
    ] in mine
    assert any(r[2] == "corrected_ci95_low" for r in mine) and any(r[0] == "calibrated_difference" for r in rows)
    line = json.loads(client.get(f"/validation/campaigns/{campaign.pk}/export/report.jsonl").content)
    assert line["calibrated_scores"]["models"][0]["overall"]["corrected"]["n"] == first.labelled_items


def test_the_page_reads_in_chinese(report, cast, client_for):
    client = client_for(cast.admin)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(report.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "如果专家评审了全部题目" in page


def test_each_model_is_compared_with_the_next_in_the_corrected_ranking(report):
    block = report.typed_result.calibrated_scores
    order = [m.model for m in sorted(block.models, key=lambda m: m.corrected_rank)]
    assert [(d.model, d.other) for d in block.differences] == list(itertools.pairwise(order))
    for d in block.differences:
        assert d.difference.value >= 0 and d.ci95.defined and d.ci95.resampled.resamples == 50


def test_the_command_prints_them(report):
    out = io.StringIO()
    call_command("agreement_report", "--campaign", report.campaign.name, "--resamples", "0", stdout=out)
    text = out.getvalue()
    assert "Human-calibrated scores (PPI++) on 6 items, 6 sampled" in text
    assert all(f"  {model}" in text for model in MODELS) and "corrected" in text
