"""The leaderboard's page, API and CSV give, beside the calibrated scores, the same report's answer to "can the judge
replace an expert?" and how many experts the intervals resampled with the items, in English and Chinese."""

import csv
import io

import pytest

from tests.validation.builders import blind_test
from validation.services.agreement_reports import create_agreement_report

LEADERBOARD = "/datasets/demo/v/v1/leaderboard/"


@pytest.fixture
def report(cast):
    return create_agreement_report(campaign=blind_test(cast))  # official


def test_page_api_and_csv_carry_the_alt_test_and_the_experts_resampled(report, cast, client_for):
    result = report.typed_result
    t = result.alt_test.overall
    experts = result.calibrated_scores.models[0].overall.corrected_ci95.resampled.experts
    assert experts and experts > 1
    client = client_for(cast.admin)
    page = client.get(LEADERBOARD).content.decode()
    assert 'id="leaderboard-judges"' in page and "can the judge replace an expert?" in page
    assert f"the intervals count the {experts} experts who gave the golden labels" in page
    body = client.get("/api/v1/scores/leaderboard/?dataset=demo").json()
    for m in body["models"]:
        cell = m["calibrated"]
        assert cell["experts_resampled"] == experts
        assert cell["judge_alt_test"]["epsilon"] == t.epsilon and cell["judge_alt_test"]["experts_tested"] == t.experts_tested
        assert cell["judge_alt_test"]["winning_rate"]["value"] == t.winning_rate.value
        assert (cell["judge_alt_test"]["winning_rate"]["reason"] is None) == (t.winning_rate.value is not None)
    rows = list(csv.DictReader(io.StringIO(client.get(LEADERBOARD + "?format=csv").content.decode())))
    assert rows and all(r["experts_resampled"] == str(experts) and float(r["alt_test_epsilon"]) == t.epsilon for r in rows)
    chinese = client.get(LEADERBOARD, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "评审模型能否替代一位专家？" in chinese and f"给出金标准的 {experts} 位专家" in chinese


def test_without_a_report_the_columns_are_empty(cast, client_for):
    blind_test(cast)
    rows = list(csv.DictReader(io.StringIO(client_for(cast.admin).get(LEADERBOARD + "?format=csv").content.decode())))
    assert rows and all(r["experts_resampled"] == "" and r["judge_winning_rate"] == "" for r in rows)
