"""The leaderboard's page, API and CSV give each model's experts-only and corrected score beside the judge-only one,
from the judge's latest official agreement report, with counts, and say why when there is none."""

import csv
import io

import pytest

from heartbench_core.leaderboard.calibrated import NO_REPORT, NOT_A_JUDGE, ONLY_ALL_PAPER
from tests.validation.builders import MODELS, blind_test
from validation.services.agreement_reports import create_agreement_report

LEADERBOARD = "/datasets/demo/v/v1/leaderboard/"


@pytest.fixture
def report(cast):
    return create_agreement_report(campaign=blind_test(cast))  # official: the release policy, the default resamples and seed


def _url(report) -> str:
    return f"/datasets/{report.campaign.version.dataset.name}/v/{report.campaign.version.label}/leaderboard/"


def test_the_page_shows_the_three_scores_and_what_each_is(report, cast, client_for, django_assert_max_num_queries):
    client = client_for(cast.admin)
    client.get(_url(report))  # stored scores written on the first read
    # 13 for the page (its rows ranked from the stored scores), two for the calibrated ones: the version's official reports
    # with their index headings, then the page's models' rows of the newest of each judge (whatever the models compared).
    with django_assert_max_num_queries(15):
        page = client.get(_url(report)).content.decode()
    assert 'id="calibrated-leaderboard"' in page and 'id="calibrated-sentences"' in page
    first = report.typed_result.calibrated_scores.models[0]
    corrected = f"{first.overall.corrected.value:.1f}"
    assert corrected in page and f"(n={first.labelled_items})" in page
    assert report.get_absolute_url() in page


def test_the_api_gives_them_typed_per_model(report, cast, client_for):
    version = report.campaign.version
    body = client_for(cast.admin).get(f"/api/v1/scores/leaderboard/?dataset={version.dataset.name}&version={version.label}").json()
    by_model = {m["model"]: m for m in body["models"]}
    assert set(by_model) == set(MODELS)
    for m in report.typed_result.calibrated_scores.models:
        cell = by_model[m.model]["calibrated"]
        assert cell["report"] == report.pk and by_model[m.model]["calibrated_reason"] is None
        assert cell["corrected"]["value"] == m.overall.corrected.value and cell["corrected"]["n"] == m.labelled_items
        assert cell["judge_only"]["value"] == pytest.approx(by_model[m.model]["scores"]["overall"], abs=1e-9)
    scene = client_for(cast.admin).get(f"/api/v1/scores/leaderboard/?dataset={version.dataset.name}&subset=hard").json()
    assert all(m["calibrated"] is None and m["calibrated_reason"] == ONLY_ALL_PAPER for m in scene["models"])


def test_the_csv_has_the_columns_beside_the_judge_s(report, cast, client_for):
    response = client_for(cast.admin).get(_url(report) + "?format=csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {r["model"] for r in rows} == set(MODELS)
    first = report.typed_result.calibrated_scores.models[0]
    row = next(r for r in rows if r["model"] == first.model)
    assert float(row["corrected"]) == pytest.approx(first.overall.corrected.value)
    assert float(row["experts_only_ci95_low"]) == pytest.approx(first.overall.experts_ci95.low)
    assert int(row["labelled_items"]) == first.labelled_items and row["judge_only_all"]


def test_without_a_report_the_page_api_and_csv_say_why(cast, client_for):
    blind_test(cast)  # judge runs, no report
    client = client_for(cast.admin)
    rows = list(csv.DictReader(io.StringIO(client.get(LEADERBOARD + "?format=csv").content.decode())))
    assert rows and all(r["corrected"] == "" and r["calibrated_reason"] == NO_REPORT for r in rows)
    body = client.get("/api/v1/scores/leaderboard/?dataset=demo").json()
    assert all(m["calibrated"] is None and m["calibrated_reason"] == NO_REPORT for m in body["models"])
    assert 'id="calibrated-leaderboard"' in client.get(LEADERBOARD).content.decode()


def test_an_exploratory_report_is_not_shown(cast, client_for):
    create_agreement_report(campaign=blind_test(cast), resamples=10)  # other resamples than the default: exploratory
    body = client_for(cast.admin).get("/api/v1/scores/leaderboard/?dataset=demo").json()
    assert all(m["calibrated_reason"] == NO_REPORT for m in body["models"])


def test_the_experts_own_scores_say_they_are_no_judge_to_correct(report, cast, client_for):
    body = client_for(cast.admin).get("/api/v1/scores/leaderboard/?dataset=demo&source=consensus").json()
    assert body["models"] and all(m["calibrated"] is None and m["calibrated_reason"] == NOT_A_JUDGE for m in body["models"])
