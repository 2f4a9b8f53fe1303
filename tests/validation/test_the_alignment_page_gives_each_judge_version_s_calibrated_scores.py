"""The alignment page and its API carry each judge version's human-calibrated scores, as the report computes them,
with their counts, what was resampled, and why they are undefined."""

from tests.validation.builders import MODELS, blind_test
from validation.alignment import dataset_alignment
from validation.services.agreement_reports import create_agreement_report


def test_each_version_has_the_report_s_calibrated_scores_with_counts(cast, client_for):
    campaign = blind_test(cast)
    [section] = dataset_alignment(campaign.version.dataset, resamples=50).campaigns
    [(row, block)] = section.calibrated_table()
    report = create_agreement_report(campaign=campaign, resamples=50).typed_result
    assert block == report.calibrated_scores and block.reason is None
    assert sorted(m.model for m in block.models) == sorted(MODELS)

    client = client_for(cast.admin)
    page = client.get("/validation/datasets/demo/alignment/").content.decode()
    assert 'class="table wide alignment-calibrated"' in page and row.version.key in page
    first = block.models[0]
    assert f"{first.scored_items} / {first.labelled_items}" in page
    experts = first.overall.corrected_ci95.resampled.experts
    assert experts and f"the {experts} experts added" in page
    body = client.get("/api/v1/validation/datasets/demo/alignment/").json()["campaigns"][0]
    api = body["rows"][0]["alignment"]["calibrated_scores"]
    assert [m["model"] for m in api["models"]] == [m.model for m in block.models]
    assert api["models"][0]["overall"]["corrected_ci95"]["resampled"]["experts"] == experts

    chinese = client.get("/validation/datasets/demo/alignment/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "各评审模型版本下的人类校准得分" in chinese


def test_a_version_without_scores_on_the_blind_test_s_version_says_why(cast, client_for, monkeypatch):
    from heartbench_core.lib import agreement_report
    from validation import alignment

    campaign = blind_test(cast)
    monkeypatch.setattr(
        alignment, "scoring_population", lambda campaign, runs: alignment_population_without(agreement_report, "another version")
    )
    [section] = dataset_alignment(campaign.version.dataset, resamples=0).campaigns
    [(_row, block)] = section.calibrated_table()
    assert block.models == () and block.reason == "another version"
    page = client_for(cast.admin).get("/validation/datasets/demo/alignment/").content.decode()
    assert "another version" in page


def alignment_population_without(agreement_report, reason):
    import numpy as np

    none = np.zeros(0, np.intp)
    return agreement_report.ScoringPopulation((), none, (), np.zeros((0, 0), bool), none, {}, {}, reason)
