"""The report's page, API, exports and command say whether the judge can replace an expert (the alternative annotator test),
with ε and the counts, why when it is undefined, and that a report stored before the test did not compute it."""

import csv
import io
import json

import pytest
from django.core.management import call_command

from heartbench_core.lib.agreement_report import GatePolicy, compute_report
from tests.lib.synthetic_campaign import synthetic_campaign
from tests.validation.builders import blind_test
from validation.models import AgreementReport
from validation.services.agreement_reports import create_agreement_report
from validation.services.release import change_release_policy

NOT_ENOUGH = "no expert rated 30 or more responses that the judge and another expert also rated"


@pytest.fixture
def report(cast):
    """The demo blind test: 17 responses, too few for any expert to be tested."""
    campaign = blind_test(cast)
    change_release_policy(dataset=campaign.version.dataset, admin=cast.admin, reason="a cheap judge", alt_test_epsilon=0.25)
    return create_agreement_report(campaign=campaign, resamples=0)


def stored_with(report: AgreementReport, alt_test: dict | None) -> AgreementReport:
    """A newer report of the same campaign whose stored alternative annotator test is `alt_test` (absent: None)."""
    result = {k: v for k, v in report.result.items() if k != "alt_test"}
    if alt_test is not None:
        result["alt_test"] = alt_test
    return AgreementReport.objects.create(campaign=report.campaign, parameters=report.parameters, inputs=report.inputs, result=result)


def defined_test() -> dict:
    """A defined test, computed on a synthetic campaign large enough to test its experts."""
    return compute_report(synthetic_campaign(0.3, items=40), resamples=0, gate_policy=GatePolicy(alt_test_epsilon=0.25)).to_dict()[
        "alt_test"
    ]


def test_it_is_computed_with_the_release_policy_s_margin_and_says_why_it_is_undefined(report):
    t = report.typed_result.alt_test.overall
    assert t.epsilon == 0.25 and report.parameters["alt_test_epsilon"] == 0.25
    assert not any("alt_test" in reason for reason in report.typed_result.exploratory_reasons)  # the policy's: not exploratory
    assert t.winning_rate.value is None and t.winning_rate.reason == NOT_ENOUGH
    assert (t.experts_tested, t.experts_left_out, t.responses, t.min_responses) == (0, 3, 17, 30)


def test_the_page_shows_the_reason_the_counts_and_the_margin(report, cast, client_for):
    page = client_for(cast.admin).get(report.get_absolute_url()).content.decode()
    assert 'id="alt-test"' in page and NOT_ENOUGH in page
    assert "ε = 0.25" in page and "0 experts tested, 3 left out for too few responses · 17 responses compared" in page


def test_the_page_shows_a_defined_test_with_its_verdict_and_experts(report, cast, client_for):
    shown = stored_with(report, defined_test())
    page = client_for(cast.admin).get(shown.get_absolute_url()).content.decode()
    assert 'id="alt-test-experts"' in page and "expert000" in page
    assert "the judge can replace an expert" in page or "the judge cannot replace an expert" in page
    assert 'id="alt-test-groups"' in page


def test_a_report_stored_before_the_test_says_it_was_not_computed(report, cast, client_for):
    old = stored_with(report, None)
    page = client_for(cast.admin).get(old.get_absolute_url()).content.decode()
    assert 'id="alt-test-not-computed"' in page
    body = client_for(cast.admin).get(f"/api/v1/validation/reports/{old.pk}/").json()
    assert body["result"]["alt_test"] is None


def test_the_page_reads_in_chinese(report, cast, client_for):
    client = client_for(cast.admin)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(report.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "评审模型能否替代一位专家" in page and "没有哪位专家评过至少 30 个" in page


def test_the_api_gives_the_test_overall_by_dimension_and_by_ability(report, cast, client_for):
    shown = stored_with(report, defined_test())
    body = client_for(cast.admin).get(f"/api/v1/validation/reports/{shown.pk}/").json()["result"]["alt_test"]
    overall = body["overall"]
    assert overall["epsilon"] == 0.25 and overall["winning_rate"]["n"] == overall["experts_tested"] > 0
    assert overall["passed"] == (overall["winning_rate"]["value"] >= 0.5)
    assert {"expert", "responses", "judge_wins", "expert_wins", "p", "p_adjusted", "judge_beats"} == set(overall["experts"][0])
    assert body["by_dimension"] and body["by_ability"] and set(body["by_ability"][0]) == {"key", "label", "test"}


def test_the_exports_and_the_command_carry_it(report, cast, client_for):
    client = client_for(cast.admin)
    campaign = report.campaign
    rows = list(
        csv.reader(io.StringIO(b"".join(client.get(f"/validation/campaigns/{campaign.pk}/export/report.csv").streaming_content).decode()))
    )
    assert ["alt_test", "", "undefined_reason", NOT_ENOUGH, ""] in rows
    assert ["alt_test", "", "epsilon", "0.25", ""] in rows and ["alt_test", "", "experts_left_out", "3", ""] in rows
    line = json.loads(client.get(f"/validation/campaigns/{campaign.pk}/export/report.jsonl").content)
    assert line["alt_test"]["overall"]["winning_rate"]["reason"] == NOT_ENOUGH
    out = io.StringIO()
    call_command("agreement_report", "--campaign", campaign.name, "--resamples", "0", stdout=out)
    assert "Can the judge replace an expert? Alternative annotator test, ε = 0.25" in out.getvalue()
