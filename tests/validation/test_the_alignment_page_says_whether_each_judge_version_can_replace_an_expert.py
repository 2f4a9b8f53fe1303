"""The alignment page and its API carry each judge version's alternative annotator test, with the release policy's ε."""

from tests.validation.builders import blind_test
from validation.alignment import dataset_alignment
from validation.services.agreement_reports import create_agreement_report
from validation.services.release import change_release_policy


def test_each_version_has_the_report_s_test_under_the_policy_s_margin(cast, client_for):
    campaign = blind_test(cast)
    change_release_policy(dataset=campaign.version.dataset, admin=cast.admin, reason="a cheap judge", alt_test_epsilon=0.3)
    [section] = dataset_alignment(campaign.version.dataset, resamples=50).campaigns
    [row] = section.rows
    report = create_agreement_report(campaign=campaign, resamples=50).typed_result
    assert section.alt_test_epsilon == 0.3
    assert row.alignment.alt_test == report.alt_test and row.alignment.alt_test.overall.epsilon == 0.3
    [(_table_row, overall, dimensions, abilities)] = section.alt_test_table()
    assert overall == report.alt_test.overall and len(dimensions) == len(section.alt_test_dimensions) > 0
    assert len(abilities) == len(section.abilities)

    client = client_for(cast.admin)
    page = client.get("/validation/datasets/demo/alignment/").content.decode()
    assert 'class="alignment-alt-test"' in page and "(ε = 0.3)" in page
    body = client.get("/api/v1/validation/datasets/demo/alignment/").json()["campaigns"][0]
    assert body["alt_test_epsilon"] == 0.3
    overall = body["rows"][0]["alignment"]["alt_test"]["overall"]
    assert overall["winning_rate"]["value"] is None and "30 or more responses" in overall["winning_rate"]["reason"]
    assert overall["experts_left_out"] == 3
